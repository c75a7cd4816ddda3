package fhirmap

import (
	"providerdir/stored"
	"strings"
)

// EndpointInput is one endpoint_pfile record of a provider, with its stored document id.
type EndpointInput struct {
	ID     string
	Record stored.EndpointRecord
	// Affiliate is the id of the Organization an endpoint affiliated elsewhere belongs to: the
	// one organization whose legal business name is the record's Affiliation Legal Business
	// Name, found by the projection; "" when no organization or several have the name.
	Affiliate string
}

// Endpoint is the Plan-Net Endpoint resource.
type Endpoint struct {
	ResourceType         string            `json:"resourceType"`
	ID                   string            `json:"id"`
	Meta                 *Meta             `json:"meta,omitempty"`
	Status               string            `json:"status"`
	ConnectionType       Coding            `json:"connectionType"`
	Name                 string            `json:"name,omitempty"`
	ManagingOrganization *Reference        `json:"managingOrganization,omitempty"`
	PayloadType          []CodeableConcept `json:"payloadType"`
	PayloadMimeType      []string          `json:"payloadMimeType,omitempty"`
	Address              string            `json:"address"`
}

// Code systems of Endpoint.connectionType and Endpoint.payloadType.
const (
	// SystemConnectionType is HL7 Terminology's endpoint connection types.
	SystemConnectionType = "http://terminology.hl7.org/CodeSystem/endpoint-connection-type"
	// SystemPlanNetConnectionType is Plan-Net's additional connection types (rest-non-fhir).
	SystemPlanNetConnectionType = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/EndpointConnectionTypeCS"
	// SystemNPPESEndpointType holds the NPPES endpoint type codes no FHIR connection type
	// stands for (SOAP, CONNECT, OTHERS and any code a later release adds), as published, so
	// that no endpoint is given a protocol the registry does not state.
	SystemNPPESEndpointType = "urn:providerdir:nppes:endpoint-type"
	// SystemPlanNetPayloadType is Plan-Net's payload types, which it constrains to NA.
	SystemPlanNetPayloadType = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/EndpointPayloadTypeCS"
)

// connectionTypes maps the NPPES endpoint types that name a protocol to its FHIR connection
// type: a FHIR URL is a FHIR REST base, a Direct address is Direct messaging, a RESTful URL is
// REST without FHIR (Plan-Net's code, which it also gives web portals).
var connectionTypes = map[string]Coding{
	"FHIR":   {System: SystemConnectionType, Code: "hl7-fhir-rest", Display: "HL7 FHIR"},
	"DIRECT": {System: SystemConnectionType, Code: "direct-project", Display: "Direct Project"},
	"REST":   {System: SystemPlanNetConnectionType, Code: "rest-non-fhir", Display: "REST (not FHIR)"},
}

// connectionType is the connection type of an NPPES endpoint type: the FHIR code when one
// stands for it, else the NPPES code under SystemNPPESEndpointType with its published
// description.
func connectionType(rec *stored.EndpointRecord) Coding {
	code := strings.ToUpper(rec.Type)
	if c, ok := connectionTypes[code]; ok {
		return c
	}
	return Coding{System: SystemNPPESEndpointType, Code: code, Display: rec.TypeDescription}
}

// mimeTypes maps the NPPES content types that name a format to its MIME type.
var mimeTypes = map[string]string{"CSV": "text/csv"}

// HasEndpoint reports whether an endpoint record yields an Endpoint: Endpoint.address is a url,
// which holds no whitespace.
func HasEndpoint(rec *stored.EndpointRecord) bool {
	return rec.Address != "" && !strings.ContainsAny(rec.Address, " \t\r\n")
}

// providerEndpoints builds a provider's Endpoints: active when the NPI is, managed by the
// provider's own Organization (orgID, "" for an individual) unless the registry says the
// endpoint belongs to another organization. That one is the Organization its legal name names
// (EndpointInput.Affiliate), the reference stating the rule and its confidence, else a
// reference by display only to the name. Records without a usable address are skipped.
//
// Plan-Net fixes Endpoint.status to active: a deactivated NPI's endpoints, off, claim the base
// R4 profile alone.
func providerEndpoints(p *Provider, orgID, updated string) ([]Resource, error) {
	var out []Resource
	for i := range p.Endpoints {
		in := &p.Endpoints[i]
		rec := &in.Record
		if !HasEndpoint(rec) {
			continue
		}
		ep := Endpoint{
			ResourceType: TypeEndpoint, ID: in.ID,
			Status:         endpointStatus(p.Record.Active),
			ConnectionType: connectionType(rec),
			Name:           firstOf(rec.Description, rec.TypeDescription),
			PayloadType:    []CodeableConcept{{Coding: []Coding{{System: SystemPlanNetPayloadType, Code: "NA", Display: "Not Applicable"}}}},
			Address:        rec.Address,
		}
		if m := mimeTypes[strings.ToUpper(rec.ContentType)]; m != "" {
			ep.PayloadMimeType = []string{m}
		}
		switch {
		case rec.AffiliatedElsewhere() && in.Affiliate != "":
			ep.ManagingOrganization = &Reference{Reference: Ref(TypeOrganization, in.Affiliate), Display: rec.AffiliationName,
				Extension: []Extension{affiliationMatch()}}
		case rec.AffiliatedElsewhere() && rec.AffiliationName != "":
			ep.ManagingOrganization = &Reference{Display: rec.AffiliationName}
		case !rec.AffiliatedElsewhere() && orgID != "":
			ep.ManagingOrganization = &Reference{Reference: Ref(TypeOrganization, orgID), Display: p.Record.OrganizationName}
		}
		meta := newMeta(TypeEndpoint, updated, p.Provenance).meetsPlanNet(ep.Status == "active")
		res, err := encode(TypeEndpoint, ep.ID, ep, meta, endpointKeys(&ep, p.Sandbox))
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// AffiliationNameConfidence is the confidence of an endpoint's managing organization found by
// the affiliation's legal name: a unique exact name among the organizations that are not
// subparts, but a name typed by the registrant, not an identifier.
const AffiliationNameConfidence = 0.9

// affiliationMatch states the affiliation rule on an Endpoint.managingOrganization it produced.
func affiliationMatch() Extension {
	return linkMatch("NPPES endpoint affiliated elsewhere: its Affiliation Legal Business Name is the legal business name of exactly one organization NPI not itself a subpart (case, punctuation and spacing aside)",
		AffiliationNameConfidence)
}

func endpointStatus(active bool) string {
	if active {
		return "active"
	}
	return "off"
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// endpointRefs are references to built Endpoints.
func endpointRefs(eps []Resource) []Reference {
	var out []Reference
	for _, e := range eps {
		out = append(out, Reference{Reference: Ref(TypeEndpoint, e.ID)})
	}
	return out
}

func endpointKeys(ep *Endpoint, visible bool) stored.Keys {
	k := make(stored.Keys, 0, 12)
	k.Add(KeyStatus, ep.Status)
	addToken(&k, KeyConnectionType, ep.ConnectionType.System, ep.ConnectionType.Code)
	addConcepts(&k, KeyPayloadType, ep.PayloadType)
	for _, m := range ep.PayloadMimeType {
		k.Add(KeyMimeType, m)
	}
	addString(&k, KeyName, ep.Name)
	addReference(&k, KeyOrganization, ep.ManagingOrganization)
	sandbox(&k, visible)
	return k
}
