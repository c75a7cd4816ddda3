package fhir

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"providerdir/internal/buildinfo"
	"providerdir/mapping/fhirmap"
)

// The CapabilityStatement, rendered from the same tables the handlers run on (searchParams,
// includesOf, revIncludesOf, fhirmap.Profiles), so it states what the server does and nothing
// else. It claims the US Core profiles of the resources served, not US Core server conformance,
// which would require Patient and the clinical resources this directory does not hold.

type capStatement struct {
	ResourceType string `json:"resourceType"`
	ID           string `json:"id"`
	URL          string `json:"url"`
	Version      string `json:"version"`
	Name         string `json:"name"`
	Title        string `json:"title"`
	Status       string `json:"status"`
	Experimental bool   `json:"experimental"`
	Date         string `json:"date"`
	Publisher    string `json:"publisher"`
	Description  string `json:"description"`
	Kind         string `json:"kind"`
	// Instantiates names the published capability statements whose subset this server
	// implements: the Bulk Data IG's, for $export (bulkDataCapability). US Core's server
	// statement is not named: it requires Patient, which a directory does not serve.
	Instantiates   []string    `json:"instantiates"`
	Software       capSoftware `json:"software"`
	Implementation capImpl     `json:"implementation"`
	FHIRVersion    string      `json:"fhirVersion"`
	Format         []string    `json:"format"`
	// ImplementationGuide lists the guides followed (implementationGuides).
	ImplementationGuide []string  `json:"implementationGuide"`
	Rest                []capRest `json:"rest"`
}

// bulkDataCapability is the Bulk Data Access IG's capability statement for export servers.
const bulkDataCapability = "http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data"

type capSoftware struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type capImpl struct {
	Description string `json:"description"`
	URL         string `json:"url"`
}

type capRest struct {
	Mode          string         `json:"mode"`
	Documentation string         `json:"documentation"`
	Security      capSecurity    `json:"security"`
	Resource      []capResource  `json:"resource"`
	Operation     []capOperation `json:"operation,omitempty"`
}

type capSecurity struct {
	Extension   []capExtension `json:"extension"`
	CORS        bool           `json:"cors"`
	Service     []capConcept   `json:"service"`
	Description string         `json:"description"`
}

type capExtension struct {
	URL            string         `json:"url"`
	ValueURI       string         `json:"valueUri,omitempty"`
	ValueCanonical string         `json:"valueCanonical,omitempty"`
	Extension      []capExtension `json:"extension,omitempty"`
}

type capConcept struct {
	Coding []capCoding `json:"coding"`
	Text   string      `json:"text,omitempty"`
}

type capCoding struct {
	System  string `json:"system"`
	Code    string `json:"code"`
	Display string `json:"display,omitempty"`
}

type capResource struct {
	Extension         []capExtension   `json:"extension,omitempty"`
	Type              string           `json:"type"`
	Profile           string           `json:"profile"`
	SupportedProfile  []string         `json:"supportedProfile,omitempty"`
	Documentation     string           `json:"documentation"`
	Interaction       []capInteraction `json:"interaction"`
	Versioning        string           `json:"versioning"`
	ReadHistory       bool             `json:"readHistory"`
	UpdateCreate      bool             `json:"updateCreate"`
	ConditionalCreate bool             `json:"conditionalCreate"`
	ConditionalRead   string           `json:"conditionalRead"`
	ConditionalUpdate bool             `json:"conditionalUpdate"`
	ConditionalDelete string           `json:"conditionalDelete"`
	SearchInclude     []string         `json:"searchInclude,omitempty"`
	SearchRevInclude  []string         `json:"searchRevInclude,omitempty"`
	SearchParam       []capSearchParam `json:"searchParam,omitempty"`
	Operation         []capOperation   `json:"operation,omitempty"`
}

type capOperation struct {
	Name          string `json:"name"`
	Definition    string `json:"definition"`
	Documentation string `json:"documentation,omitempty"`
}

type capInteraction struct {
	Code          string `json:"code"`
	Documentation string `json:"documentation,omitempty"`
}

type capSearchParam struct {
	Name          string `json:"name"`
	Definition    string `json:"definition,omitempty"`
	Type          string `json:"type"`
	Documentation string `json:"documentation,omitempty"`
}

const capDescription = "Read-only FHIR R4 provider directory built from public US provider data (NPPES, PECOS, " +
	"the CMS Provider of Services file, NUCC taxonomy). It serves Practitioner, PractitionerRole, Organization and " +
	"Location conforming to their US Core 6.1.0 profiles, HealthcareService to Da Vinci Plan-Net 1.2.0's, and Endpoint; " +
	"the resources that meet their type's Plan-Net 1.2.0 profile (every active Endpoint among them) claim it too. " +
	"It is a directory facade: it does not serve Patient or any clinical resource, so it does not claim conformance " +
	"to the US Core Server CapabilityStatement as a whole, only to the profiles listed per resource. Every resource " +
	"carries its source provenance (14 keys) in meta.tag, with tag systems <base>/provenance/<key>."

// capabilityStatement builds the statement for a base URL and token endpoint.
func capabilityStatement(base, tokenURL string, publicRead bool, corsOrigins []string, date string, maxIncludes, maxChain int, subscriptions bool) capStatement {
	security := "SMART Backend Services: obtain an access token from " + tokenURL +
		" with the client-credentials grant and a private_key_jwt client assertion (RS384 or ES384); scopes " +
		"system/<Type>.read or system/<Type>.rs. Sandbox credentials see a fixed subset of 200 practitioners, " +
		"their roles and locations, and the organizations those roles name with their locations and services."
	if publicRead {
		security += " Public read mode is on: requests without a token may read and search every resource."
	}
	security += corsDescription(corsOrigins)
	cs := capStatement{
		ResourceType: "CapabilityStatement", ID: "providerdir", URL: base + "/metadata", Version: buildinfo.PipelineVersion(),
		Name: "ProviderDirectoryFHIRServer", Title: "Provider directory FHIR R4 server", Status: "active",
		Date: date, Publisher: "Provider directory service", Description: capDescription, Kind: "instance", Instantiates: []string{bulkDataCapability},
		Software:            capSoftware{Name: "providerd", Version: buildinfo.PipelineVersion()},
		Implementation:      capImpl{Description: "Provider directory FHIR R4 facade", URL: base},
		FHIRVersion:         "4.0.1",
		Format:              []string{"application/fhir+json", "json"},
		ImplementationGuide: implementationGuides,
	}
	rest := capRest{
		Mode: "server",
		Documentation: "Search by GET and by POST [type]/_search (same results). Paging: _count (default " +
			strconv.Itoa(DefaultCount) + ", at most " + strconv.Itoa(MaxCount) + "), Bundle links self/next/previous carry an opaque _cursor that " +
			"stays valid across one snapshot switch; past that a page answers 410. _total (none, estimate, accurate: " +
			"exact counts; by default counted too, except a search with a chain checked per candidate, below), _summary (true, false, text, data, count), _elements, _sort (_id, " +
			"_lastUpdated, descending with -). _include and _revinclude reach one level, and _include:iterate and " +
			"_revinclude:iterate go on from the resources included until nothing new is found; together they add at most " + strconv.Itoa(maxIncludes) +
			" resources per page, with an OperationOutcome warning entry when more were left out. _tag matches the " +
			"provenance tags as served (system <base>/provenance/<key>), _profile the profiles each type claims (its resources that meet the Plan-Net profile claim it too). Chained parameters " +
			"(reference.parameter, one level) and _has:Type:reference:parameter reverse chains are supported on every " +
			"reference parameter. One that matches more than " + strconv.Itoa(maxChain) + " resources of the other type is checked " +
			"per candidate instead: such a page reads at most " + strconv.Itoa(probeFactor*maxChain) + " candidates and may hold fewer " +
			"matches than _count (then with an OperationOutcome warning entry and a next link), its Bundle has no total, and " +
			"_total=accurate or _summary=count is a 400 too-costly. " +
			"One search takes at most " + strconv.Itoa(MaxSearchParams) + " parameters, " + strconv.Itoa(MaxChainParams) +
			" chained and _has parameters, " + strconv.Itoa(MaxIncludeParams) + " _include and _revinclude parameters and " +
			strconv.Itoa(MaxValues) + " comma-separated values per parameter (else 400 too-costly). Every type a search " +
			"touches needs a granted scope: search of its own type and of each chain's and _has's type, read of each " +
			"included type (else 403 insufficient_scope). " +
			"String parameters match from the start of a value, case and accent insensitive, or whole values with :exact " +
			"(name: the text or any one part of the name); values are unescaped as R4 has it (\\, \\$ \\| \\\\). " +
			"Unknown or malformed parameters, and unknown elements of _elements, are ignored and named in an " +
			"OperationOutcome entry (search mode outcome); under Prefer: handling=strict they are a 400 " +
			"OperationOutcome naming them. A search over a limit is refused under either handling. Reads return ETag and Last-Modified and honour If-None-Match and " +
			"If-Modified-Since; a resource removed by the latest source snapshot answers 410.",
		Security: capSecurity{
			Extension: []capExtension{{URL: "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris",
				Extension: []capExtension{{URL: "token", ValueURI: tokenURL}}}},
			CORS: len(corsOrigins) > 0,
			Service: []capConcept{{Coding: []capCoding{{System: "http://terminology.hl7.org/CodeSystem/restful-security-service",
				Code: "SMART-on-FHIR", Display: "SMART-on-FHIR"}}, Text: "SMART Backend Services"}},
			Description: security,
		},
	}
	for _, t := range fhirmap.Types {
		res := capResource{
			Type: t, Profile: "http://hl7.org/fhir/StructureDefinition/" + t,
			SupportedProfile: supportedProfiles(t),
			Documentation:    resourceDocs[t],
			Interaction: []capInteraction{
				{Code: "read", Documentation: "ETag, Last-Modified, If-None-Match and If-Modified-Since; 410 for resources removed by the latest snapshot"},
				{Code: "vread", Documentation: "the current version only: meta.versionId is the entity tag, and a vread of any other version is a 404"},
				{Code: "search-type", Documentation: "GET and POST _search"},
			},
			Versioning: "versioned", ConditionalRead: "full-support", ConditionalDelete: "not-supported",
		}
		for _, inc := range includesOf(t) {
			res.SearchInclude = append(res.SearchInclude, inc.source+":"+inc.param)
		}
		for _, inc := range revIncludesOf(t) {
			res.SearchRevInclude = append(res.SearchRevInclude, inc.source+":"+inc.param)
		}
		for _, p := range searchParams[t] {
			doc := p.doc
			if p.kind == kindReference {
				doc += "; targets " + strings.Join(p.targets, ", ")
			}
			def := definition(base, t, p)
			if strings.HasPrefix(def, base) {
				doc += "; defined by this server (no R4, US Core or Plan-Net SearchParameter)"
			}
			res.SearchParam = append(res.SearchParam, capSearchParam{Name: p.name, Definition: def, Type: string(p.kind), Documentation: doc})
		}
		rest.Resource = append(rest.Resource, res)
	}
	if subscriptions {
		rest.Security.Description += " Subscriptions need system/Subscription.* (v1) or system/Subscription.cruds (v2; c to create, r to read, d to delete), granted to Subscription alone."
		cs.ImplementationGuide = append(slices.Clip(cs.ImplementationGuide), backportIG)
		rest.Resource = append(rest.Resource, subscriptionCapabilities(base)...)
	}
	rest.Operation = []capOperation{{Name: "export", Definition: "http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export", Documentation: bulkDocumentation}}
	cs.Rest = []capRest{rest}
	return cs
}

// supportedProfiles are the profiles a type's resources claim: the type's own, then its Plan-Net
// profile, which the resources that meet it claim too.
func supportedProfiles(typ string) []string {
	if p := fhirmap.PlanNetProfiles[typ]; p != "" {
		return []string{fhirmap.Profiles[typ], p}
	}
	return []string{fhirmap.Profiles[typ]}
}

// corsDescription says which browser origins may call the server (CORS), for the security
// description.
func corsDescription(origins []string) string {
	switch {
	case len(origins) == 0:
		return " CORS is off: browser pages on other origins cannot call this server."
	case slices.Contains(origins, "*"):
		return " CORS: browser pages on any origin may call this server (no cookies; send the token in Authorization)."
	}
	return " CORS: browser pages on " + strings.Join(origins, ", ") + " may call this server (no cookies; send the token in Authorization)."
}

var resourceDocs = map[string]string{
	fhirmap.TypePractitioner: "Individual NPIs of the NPPES registry (id = NPI): name, practice telephone and address, " +
		"gender, NUCC taxonomies with licenses and licensing state as qualifications, active from deactivation. " +
		"Deactivated NPIs whose registry entry is blanked have no resource.",
	fhirmap.TypePractitionerRole: "One per practitioner and organization the practitioner reassigns Medicare benefits to " +
		"in PECOS (id = <NPI>-<organization id>), or one of the practitioner alone (id = NPI): practice locations, " +
		"NUCC code and specialties, telephone, the practitioner's endpoints. Organizations are only named where PECOS " +
		"joins them; a practitioner with neither a published telephone nor an endpoint has no role (US Core pd-1).",
	fhirmap.TypeOrganization: "Organization NPIs of the NPPES registry (id = NPI), with the CMS Certification Number " +
		"where the PECOS hospital enrollment file bridges the NPI to exactly one facility; Provider of Services " +
		"facilities no organization NPI stands for (id = ccn-<CCN>), partOf their related provider.",
	fhirmap.TypeLocation: "Practice addresses: each NPI's primary practice location (id = NPI) and secondary ones from " +
		"the registry's practice location file, and Provider of Services facility addresses (id = ccn-<CCN>); endpoint, " +
		"the NPI's Endpoints whose endpoint file row gives the same address (lines, city, state, ZIP5; case and punctuation aside).",
	fhirmap.TypeHealthcareService: "The services of each organization (id = the organization's id): Plan-Net category, " +
		"NUCC specialties, locations, providedBy, the organization's endpoints.",
	fhirmap.TypeEndpoint: "The electronic endpoints of the NPPES endpoint reference file (endpoint_pfile; id = <NPI>.<digest>): " +
		"the address as registered, status from the NPI's (a deactivated NPI's, off, claims the base profile, not Plan-Net's), " +
		"connection type coded from the NPPES type, payload type NA, managingOrganization the NPI's own Organization or, " +
		"for an endpoint affiliated elsewhere, the one organization of the affiliation's legal name (the rule and its " +
		"confidence on the reference), else that name as display. PractitionerRoles, Organizations, their HealthcareServices " +
		"and the Locations at their address name them.",
}

// metadata serves GET [base]/metadata. It needs no token.
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	ct, ok := negotiate(r, r.URL.Query().Get("_format"))
	if !ok {
		notAcceptable(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	s.write(w, http.StatusOK, ct, s.capability, r.URL.Query().Get("_pretty") == "true")
}
