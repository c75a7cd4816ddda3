package fhir

import "providerdir/mapping/fhirmap"

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

// definition is the canonical of a search parameter of a type, or "" for a parameter this
// server defines itself: phone on Organization, Location and HealthcareService, which R4 gives
// no phone parameter (searchParam.documentation says so).
func definition(resourceType string, p param) string {
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
	return ""
}
