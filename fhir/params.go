package fhir

import (
	"slices"

	"providerdir/mapping/fhirmap"
)

// kind is a search parameter's FHIR type, which fixes how its values are parsed and matched.
type kind string

const (
	kindToken     kind = "token"
	kindString    kind = "string"
	kindReference kind = "reference"
	kindDate      kind = "date"
	kindURI       kind = "uri"
)

// param is one search parameter of one resource type. The registry below is the single source
// of what is searchable: the parser accepts exactly these, and the CapabilityStatement lists
// exactly these, so the two cannot disagree.
type param struct {
	name string
	kind kind
	// key is the search-key param of the stored documents (fhirmap.Key*).
	key string
	// targets are the resource types a reference parameter points at.
	targets []string
	// bare says a token parameter's values carry no system (active, status, _id): "|x" is "x".
	bare bool
	// noExact says a string parameter has no :exact keys.
	noExact bool
	// also are further search-key params whose :exact keys an :exact search of a string
	// parameter looks in too, so that a part indexed under a parameter of its own is not indexed
	// twice: a Practitioner's name is also its family and given names. A prefix search looks in
	// the parameter's own keys only, which hold those parts too (fhirmap.addHumanName).
	also       []string
	definition string
	doc        string
	// apply, when set, parses the parameter itself (_tag, _profile: parameters on meta, which
	// are not search keys of their own); such a parameter is not chained.
	apply func(q *query, modifier, name, value string) error
}

const (
	usCoreSP = "http://hl7.org/fhir/us/core/SearchParameter/"
	baseSP   = "http://hl7.org/fhir/SearchParameter/"
)

// planNetSearchParams is the canonical base of Plan-Net's SearchParameter definitions.
const planNetSearchParams = "http://hl7.org/fhir/us/davinci-pdex-plan-net/SearchParameter/"

var (
	pID          = param{name: "_id", kind: kindToken, key: fhirmap.KeyID, bare: true, definition: baseSP + "Resource-id", doc: "logical id; a comma-separated list matches any"}
	pLastUpdated = param{name: "_lastUpdated", kind: kindDate, key: fhirmap.KeyLastUpdated, definition: baseSP + "Resource-lastUpdated", doc: "when the source record last changed (day precision); prefixes eq, gt, ge, lt, le, sa, eb"}
	pIdentifier  = param{name: "identifier", kind: kindToken, key: fhirmap.KeyIdentifier, doc: "system|value, value, or system|; NPI system " + fhirmap.SystemNPI + ", CCN system " + fhirmap.SystemCCN}
	pActive      = param{name: "active", kind: kindToken, key: fhirmap.KeyActive, bare: true, doc: "true or false"}
	pPhone       = param{name: "phone", kind: kindToken, key: fhirmap.KeyPhone, bare: true, doc: "telephone number, digits only are compared"}
	pAddress     = param{name: "address", kind: kindString, key: fhirmap.KeyAddress, noExact: true, doc: "start of any part of the address (line, city, state, ZIP, country), case and accent insensitive"}
	pCity        = param{name: "address-city", kind: kindString, key: fhirmap.KeyAddressCity, noExact: true, doc: "city, prefix, case and accent insensitive"}
	pState       = param{name: "address-state", kind: kindString, key: fhirmap.KeyAddressState, noExact: true, doc: "USPS state code"}
	pPostal      = param{name: "address-postalcode", kind: kindString, key: fhirmap.KeyAddressPostal, noExact: true, doc: "ZIP or ZIP+4, prefix; the dash is optional"}
	pSpecialty   = param{name: "specialty", kind: kindToken, key: fhirmap.KeySpecialty, doc: "NUCC taxonomy code, " + fhirmap.SystemNUCC + "|code or code"}
)

// Parameters whose values no source fills yet: the directory's sources publish no insurance
// networks, no coverage areas, no Location hierarchy and no coded service or location types. A
// search on them follows R4 (the parameter is supported and matches the resources that have a
// matching value: none), and the CapabilityStatement says so in their documentation.
const (
	keyNetwork      = "network"
	keyCoverageArea = "coverage-area"
	keyServiceType  = "service-type"
	noData          = "; no source publishes this yet, so it matches nothing"
)

var (
	pEndpoint = param{name: "endpoint", kind: kindReference, key: fhirmap.KeyEndpoint, targets: []string{fhirmap.TypeEndpoint},
		doc: "an Endpoint from the NPPES endpoint file, as Type/id or id"}
	pTag = param{name: "_tag", kind: kindToken, key: fhirmap.KeyTag, definition: baseSP + "Resource-tag", apply: addTagParam,
		doc: "a provenance tag, system|code with system <base>/provenance/<key> (as meta.tag has it), code alone, or system|"}
	pProfile = param{name: "_profile", kind: kindURI, definition: baseSP + "Resource-profile", apply: addProfileParam,
		doc: "the profile canonical in meta.profile (each type has one); comma-separated alternatives"}
)

func withDef(p param, def string) param { p.definition = def; return p }

func withDoc(p param, doc string) param { p.doc = doc; return p }

func ref(name, key string, targets ...string) param {
	return param{name: name, kind: kindReference, key: key, targets: targets, doc: "reference as Type/id, id, or an absolute URL of this server; chains with ."}
}

// searchParams are the search parameters of each type, in CapabilityStatement order.
var searchParams = map[string][]param{
	fhirmap.TypePractitioner: {
		pID, pLastUpdated,
		withDef(pIdentifier, usCoreSP+"us-core-practitioner-identifier"),
		withDef(param{name: "name", kind: kindString, key: fhirmap.KeyName, also: []string{fhirmap.KeyFamily, fhirmap.KeyGiven},
			doc: "the text or any part of the name (family, given, prefix, suffix), prefix, case and accent insensitive; :exact: one of them whole, as published"}, usCoreSP+"us-core-practitioner-name"),
		{name: "family", kind: kindString, key: fhirmap.KeyFamily, doc: "family name, prefix; :exact"},
		{name: "given", kind: kindString, key: fhirmap.KeyGiven, doc: "given names, prefix; :exact"},
		pAddress, pCity, pState, pPostal, pActive, pPhone,
		pTag, pProfile,
	},
	fhirmap.TypePractitionerRole: {
		pID, pLastUpdated,
		withDef(ref("practitioner", fhirmap.KeyPractitioner, fhirmap.TypePractitioner), usCoreSP+"us-core-practitionerrole-practitioner"),
		ref("organization", fhirmap.KeyOrganization, fhirmap.TypeOrganization),
		ref("location", fhirmap.KeyLocation, fhirmap.TypeLocation),
		ref("service", fhirmap.KeyService, fhirmap.TypeHealthcareService),
		withDef(pSpecialty, usCoreSP+"us-core-practitionerrole-specialty"),
		{name: "role", kind: kindToken, key: fhirmap.KeyRole, doc: "NUCC taxonomy code of the role, or its Plan-Net ProviderRoleCS code"},
		pActive, pPhone,
		withDef(pEndpoint, planNetSearchParams+"practitionerrole-endpoint"),
		withDef(withDoc(ref("network", keyNetwork, fhirmap.TypeOrganization), "an insurance network the practitioner participates in"+noData), planNetSearchParams+"practitionerrole-network"),
		pTag, pProfile,
	},
	fhirmap.TypeOrganization: {
		pID, pLastUpdated, pIdentifier,
		withDef(param{name: "name", kind: kindString, key: fhirmap.KeyName, doc: "name or alias, prefix, case and accent insensitive; :exact"}, usCoreSP+"us-core-organization-name"),
		withDef(pAddress, usCoreSP+"us-core-organization-address"),
		pCity, pState, pPostal,
		{name: "type", kind: kindToken, key: fhirmap.KeyType, doc: "Plan-Net OrgTypeCS code (fac, prvgrp, atyprv) or organization-type prov"},
		pActive,
		ref("partof", fhirmap.KeyPartOf, fhirmap.TypeOrganization),
		pPhone,
		withDef(pEndpoint, planNetSearchParams+"organization-endpoint"),
		withDef(withDoc(ref("coverage-area", keyCoverageArea, fhirmap.TypeLocation), "the region a network covers"+noData), planNetSearchParams+"organization-coverage-area"),
		pTag, pProfile,
	},
	fhirmap.TypeLocation: {
		pID, pLastUpdated, pIdentifier,
		withDef(param{name: "name", kind: kindString, key: fhirmap.KeyName, doc: "name, prefix, case and accent insensitive; :exact"}, usCoreSP+"us-core-location-name"),
		withDef(pAddress, usCoreSP+"us-core-location-address"),
		withDef(pCity, usCoreSP+"us-core-location-address-city"),
		withDef(pState, usCoreSP+"us-core-location-address-state"),
		withDef(pPostal, usCoreSP+"us-core-location-address-postalcode"),
		ref("organization", fhirmap.KeyOrganization, fhirmap.TypeOrganization),
		{name: "status", kind: kindToken, key: fhirmap.KeyStatus, bare: true, doc: "active or inactive"},
		pPhone,
		withDef(withDoc(pEndpoint, "an Endpoint whose NPPES endpoint file row gives the location's address"), planNetSearchParams+"location-endpoint"),
		withDef(withDoc(ref("partof", fhirmap.KeyPartOf, fhirmap.TypeLocation), "the Location this one is part of"+noData), planNetSearchParams+"location-partof"),
		withDef(param{name: "type", kind: kindToken, key: fhirmap.KeyType, doc: "HL7 v3 RoleCode location type (HOSP, SNF, NCCF, RTF, OF, MOBL, PHARM) of facility and organization Locations"}, planNetSearchParams+"location-type"),
		pNear,
		pTag, pProfile,
	},
	fhirmap.TypeHealthcareService: {
		pID, pLastUpdated, pIdentifier,
		{name: "name", kind: kindString, key: fhirmap.KeyName, doc: "name, prefix, case and accent insensitive; :exact"},
		pSpecialty,
		{name: "service-category", kind: kindToken, key: fhirmap.KeyCategory, doc: "Plan-Net HealthcareServiceCategoryCS code"},
		ref("organization", fhirmap.KeyOrganization, fhirmap.TypeOrganization),
		ref("location", fhirmap.KeyLocation, fhirmap.TypeLocation),
		pActive, pPhone,
		withDef(withDoc(pEndpoint, "an Endpoint of the organization providing the service"), planNetSearchParams+"healthcareservice-endpoint"),
		withDef(withDoc(ref("coverage-area", keyCoverageArea, fhirmap.TypeLocation), "a region the service covers"+noData), planNetSearchParams+"healthcareservice-coverage-area"),
		withDef(param{name: "service-type", kind: kindToken, key: keyServiceType, doc: "a coded service type (facility services carry their Provider of Services category as text only)" + noData}, planNetSearchParams+"healthcareservice-service-type"),
		pTag, pProfile,
	},
	fhirmap.TypeEndpoint: {
		pID, pLastUpdated,
		withDef(param{name: "connection-type", kind: kindToken, key: fhirmap.KeyConnectionType,
			doc: "connection type: " + fhirmap.SystemConnectionType + " hl7-fhir-rest (NPPES FHIR URL) or direct-project (Direct address), " +
				fhirmap.SystemPlanNetConnectionType + " rest-non-fhir (RESTful URL), else the NPPES type code under " + fhirmap.SystemNPPESEndpointType},
			planNetSearchParams+"endpoint-connection-type"),
		withDef(ref("organization", fhirmap.KeyOrganization, fhirmap.TypeOrganization), planNetSearchParams+"endpoint-organization"),
		withDef(param{name: "payload-type", kind: kindToken, key: fhirmap.KeyPayloadType, doc: "Plan-Net payload type (NA)"}, planNetSearchParams+"endpoint-payload-type"),
		withDef(param{name: "mime-type", kind: kindToken, key: fhirmap.KeyMimeType, bare: true, doc: "payload MIME type (text/csv where NPPES says CSV)"}, planNetSearchParams+"endpoint-mime-type"),
		withDef(param{name: "name", kind: kindString, key: fhirmap.KeyName, doc: "name (the NPPES endpoint description, else its type description), prefix; :exact"}, baseSP+"Endpoint-name"),
		withDef(param{name: "status", kind: kindToken, key: fhirmap.KeyStatus, bare: true, doc: "active, or off for a deactivated NPI's endpoint"}, baseSP+"Endpoint-status"),
		pTag, pProfile,
	},
}

// lookupParam returns a type's search parameter by name.
func lookupParam(resourceType, name string) (param, bool) {
	i := slices.IndexFunc(searchParams[resourceType], func(p param) bool { return p.name == name })
	if i < 0 {
		return param{}, false
	}
	return searchParams[resourceType][i], true
}

// include is one _include or _revinclude: the references of param of source point at target.
type include struct {
	source, param, target string
	key                   string
	// iterate applies the include to included resources too (_include:iterate), not only to
	// the matches.
	iterate bool
}

func (i include) String() string { return i.source + ":" + i.param + ":" + i.target }

// includesOf lists the _include values a search of resourceType accepts: every reference
// parameter of the type.
func includesOf(resourceType string) []include {
	var out []include
	for _, p := range searchParams[resourceType] {
		for _, t := range p.targets {
			out = append(out, include{source: resourceType, param: p.name, target: t, key: p.key})
		}
	}
	return out
}

// revIncludesOf lists the _revinclude values a search of resourceType accepts: every reference
// parameter of any type that points at it.
func revIncludesOf(resourceType string) []include {
	var out []include
	for _, t := range fhirmap.Types {
		for _, inc := range includesOf(t) {
			if inc.target == resourceType {
				out = append(out, inc)
			}
		}
	}
	return out
}

// elements are the top-level elements of each R4 resource type, which _elements may name.
var elements = map[string][]string{
	fhirmap.TypePractitioner: {"id", "meta", "implicitRules", "language", "text", "contained", "extension", "modifierExtension",
		"identifier", "active", "name", "telecom", "address", "gender", "birthDate", "photo", "qualification", "communication"},
	fhirmap.TypePractitionerRole: {"id", "meta", "implicitRules", "language", "text", "contained", "extension", "modifierExtension",
		"identifier", "active", "period", "practitioner", "organization", "code", "specialty", "location", "healthcareService",
		"telecom", "availableTime", "notAvailable", "availabilityExceptions", "endpoint"},
	fhirmap.TypeOrganization: {"id", "meta", "implicitRules", "language", "text", "contained", "extension", "modifierExtension",
		"identifier", "active", "type", "name", "alias", "telecom", "address", "partOf", "contact", "endpoint"},
	fhirmap.TypeLocation: {"id", "meta", "implicitRules", "language", "text", "contained", "extension", "modifierExtension",
		"identifier", "status", "operationalStatus", "name", "alias", "description", "mode", "type", "telecom", "address",
		"physicalType", "position", "managingOrganization", "partOf", "hoursOfOperation", "availabilityExceptions", "endpoint"},
	fhirmap.TypeHealthcareService: {"id", "meta", "implicitRules", "language", "text", "contained", "extension", "modifierExtension",
		"identifier", "active", "providedBy", "category", "type", "specialty", "location", "name", "comment", "extraDetails",
		"photo", "telecom", "coverageArea", "serviceProvisionCode", "eligibility", "program", "characteristic",
		"communication", "referralMethod", "appointmentRequired", "availableTime", "notAvailable",
		"availabilityExceptions", "endpoint"},
	fhirmap.TypeEndpoint: {"id", "meta", "implicitRules", "language", "text", "contained", "extension", "modifierExtension",
		"identifier", "status", "connectionType", "name", "managingOrganization", "contact", "period", "payloadType",
		"payloadMimeType", "address", "header"},
}

// summaryElements are the elements R4 marks as summary (Σ) for each type: what _summary=true
// returns besides id and meta.
var summaryElements = map[string][]string{
	fhirmap.TypePractitioner:      {"identifier", "active", "name", "telecom", "address", "gender", "birthDate"},
	fhirmap.TypePractitionerRole:  {"identifier", "active", "period", "practitioner", "organization", "code", "specialty", "location", "telecom"},
	fhirmap.TypeOrganization:      {"identifier", "active", "type", "name", "partOf"},
	fhirmap.TypeLocation:          {"identifier", "status", "operationalStatus", "name", "description", "mode", "type", "physicalType", "managingOrganization"},
	fhirmap.TypeHealthcareService: {"identifier", "active", "providedBy", "category", "type", "specialty", "location", "name", "comment", "photo"},
	fhirmap.TypeEndpoint:          {"identifier", "status", "connectionType", "name", "managingOrganization", "period", "payloadType", "payloadMimeType", "address"},
}
