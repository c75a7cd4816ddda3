package fhir

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/internal/buildinfo"
	"providerdir/mapping/fhirmap"
)

// The canonical URL of each search parameter's SearchParameter, for the CapabilityStatement's
// searchParam.definition, so that a client (and a conformance tool) knows which definition a
// name stands for. A parameter is defined by the first guide that defines it for its type: US
// Core 6.1.0 (set on the parameter in params.go), then Da Vinci Plan-Net, then the base R4
// specification. The canonicals carry no version; the versions are the CapabilityStatement's
// implementationGuide entries.

// Implementation guides the server follows, as versioned canonicals of their ImplementationGuide
// resources: US Core for the four profiles it defines, Plan-Net for HealthcareService and the
// directory search parameters.
var implementationGuides = []string{
	"http://hl7.org/fhir/us/core/ImplementationGuide/hl7.fhir.us.core|6.1.0",
	"http://hl7.org/fhir/us/davinci-pdex-plan-net/ImplementationGuide/hl7.fhir.us.davinci-pdex-plan-net|1.2.0",
}

const planNetSP = "http://hl7.org/fhir/us/davinci-pdex-plan-net/SearchParameter/"

// planNetDefinitions are the Plan-Net SearchParameters by type and parameter name: those of the
// Plan-Net server CapabilityStatement for the types served here.
var planNetDefinitions = map[string]map[string]string{
	fhirmap.TypePractitioner: {
		"name": "practitioner-name", "family": "practitioner-family-name", "given": "practitioner-given-name",
	},
	fhirmap.TypePractitionerRole: {
		"practitioner": "practitionerrole-practitioner", "organization": "practitionerrole-organization",
		"location": "practitionerrole-location", "service": "practitionerrole-service",
		"network": "practitionerrole-network", "endpoint": "practitionerrole-endpoint",
		"role": "practitionerrole-role", "specialty": "practitionerrole-specialty",
	},
	fhirmap.TypeOrganization: {
		"partof": "organization-partof", "endpoint": "organization-endpoint", "address": "organization-address",
		"name": "organization-name", "type": "organization-type", "coverage-area": "organization-coverage-area",
	},
	fhirmap.TypeLocation: {
		"partof": "location-partof", "organization": "location-organization", "endpoint": "location-endpoint",
		"address": "location-address", "address-city": "location-address-city", "address-state": "location-address-state",
		"address-postalcode": "location-address-postalcode", "type": "location-type",
	},
	fhirmap.TypeHealthcareService: {
		"location": "healthcareservice-location", "coverage-area": "healthcareservice-coverage-area",
		"organization": "healthcareservice-organization", "endpoint": "healthcareservice-endpoint",
		"name": "healthcareservice-name", "service-category": "healthcareservice-service-category",
		"service-type": "healthcareservice-service-type", "specialty": "healthcareservice-specialty",
	},
}

// baseDefinitions are the base R4 SearchParameters, by type and name, of the parameters neither
// US Core nor Plan-Net defines for the type. The parameters of every resource (_id,
// _lastUpdated, _tag, _profile) are Resource-<name>, found by definition.
var baseDefinitions = map[string]map[string]string{
	fhirmap.TypePractitioner: {
		"address": "individual-address", "address-city": "individual-address-city",
		"address-state": "individual-address-state", "address-postalcode": "individual-address-postalcode",
		"active": "Practitioner-active", "phone": "individual-phone",
	},
	fhirmap.TypePractitionerRole: {"active": "PractitionerRole-active", "phone": "PractitionerRole-phone"},
	fhirmap.TypeOrganization: {
		"identifier": "Organization-identifier", "address-city": "Organization-address-city",
		"address-state": "Organization-address-state", "address-postalcode": "Organization-address-postalcode",
		"active": "Organization-active",
	},
	fhirmap.TypeLocation:          {"identifier": "Location-identifier", "status": "Location-status"},
	fhirmap.TypeHealthcareService: {"identifier": "HealthcareService-identifier", "active": "HealthcareService-active"},
}

// definition is the canonical of a search parameter of a type: a published SearchParameter's,
// else one of this server's own (serverParams) under base.
func definition(base, resourceType string, p param) string {
	if p.definition != "" {
		return p.definition
	}
	if id, ok := planNetDefinitions[resourceType][p.name]; ok {
		return planNetSP + id
	}
	if id, ok := baseDefinitions[resourceType][p.name]; ok {
		return baseSP + id
	}
	if len(p.name) > 1 && p.name[0] == '_' {
		return baseSP + "Resource-" + p.name[1:]
	}
	if sp, ok := serverParamOf(resourceType, p.name); ok {
		return sp.canonical(base)
	}
	return ""
}

// serverParam is a search parameter this server defines, for a type no R4, US Core or
// Plan-Net SearchParameter gives it to. Its SearchParameter is served at its canonical,
// [base]/SearchParameter/<id>, without a token, like the CapabilityStatement that names it.
type serverParam struct {
	id, base, code, kind, expression, description string
}

// serverParams are this server's own SearchParameters: phone on the types whose telecom R4
// does not index (it defines phone for Practitioner, PractitionerRole and the person types
// only), and url on Basic, the backport IG's R4 form of a SubscriptionTopic.
var serverParams = []serverParam{
	phoneParam(fhirmap.TypeOrganization),
	phoneParam(fhirmap.TypeLocation),
	phoneParam(fhirmap.TypeHealthcareService),
	{id: "Basic-url", base: "Basic", code: "url", kind: "uri",
		expression:  "Basic.extension('" + r5TopicExt + "url').value",
		description: "The canonical URL of a subscription topic, which the Subscriptions R5 Backport IG carries on R4 in the SubscriptionTopic.url cross-version extension of Basic."},
}

func phoneParam(typ string) serverParam {
	return serverParam{id: typ + "-phone", base: typ, code: "phone", kind: "token",
		expression:  typ + ".telecom.where(system='phone')",
		description: "A telephone number of the " + typ + " (telecom of system phone); only the digits are compared, so 555-123-4567 and (555) 123 4567 match alike."}
}

func serverParamOf(resourceType, code string) (serverParam, bool) {
	for _, sp := range serverParams {
		if sp.base == resourceType && sp.code == code {
			return sp, true
		}
	}
	return serverParam{}, false
}

func (sp serverParam) canonical(base string) string { return base + "/SearchParameter/" + sp.id }

// searchParameter serves GET [base]/SearchParameter/{id}: one of serverParams, else a 404.
func (s *Server) searchParameter(w http.ResponseWriter, r *http.Request) {
	ct, ok := negotiate(r, r.URL.Query().Get("_format"))
	if !ok {
		notAcceptable(w, r)
		return
	}
	id := mux.Vars(r)["id"]
	i := slices.IndexFunc(serverParams, func(sp serverParam) bool { return sp.id == id })
	if i < 0 {
		Error(w, r, http.StatusNotFound, "not-found", "SearchParameter/"+id+" is not defined by this server")
		return
	}
	sp := serverParams[i]
	body, err := json.Marshal(map[string]any{
		"resourceType": "SearchParameter", "id": sp.id, "url": sp.canonical(s.base),
		"version": buildinfo.PipelineVersion(), "name": strings.ReplaceAll(sp.id, "-", ""),
		"status": "active", "experimental": false, "publisher": "Provider directory service",
		"description": sp.description, "code": sp.code, "base": []string{sp.base}, "type": sp.kind,
		"expression": sp.expression, "xpathUsage": "normal",
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	s.write(w, http.StatusOK, ct, body, r.URL.Query().Get("_pretty") == "true")
}
