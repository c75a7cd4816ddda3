package fhir_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"providerdir/mapping/fhirmap"
	"providerdir/testing/fhirvalidate"
)

func TestMetadata(t *testing.T) {
	e := sharedEnv(t)
	// The CapabilityStatement needs no grant.
	r := get(t, e.url("/metadata"), "Accept", "application/fhir+json", "X-Test-Grant", "none")
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if err := fhirvalidate.Parse(r.body); err != nil {
		t.Fatalf("google/fhir/go: %v", err)
	}
	var cs struct {
		ResourceType string   `json:"resourceType"`
		Kind         string   `json:"kind"`
		FHIRVersion  string   `json:"fhirVersion"`
		Format       []string `json:"format"`
		Instantiates []string `json:"instantiates"`
		Description  string   `json:"description"`
		Rest         []struct {
			Security struct {
				Extension []struct {
					URL       string `json:"url"`
					Extension []struct {
						URL      string `json:"url"`
						ValueURI string `json:"valueUri"`
					} `json:"extension"`
				} `json:"extension"`
				Service []struct {
					Coding []struct{ Code string } `json:"coding"`
				} `json:"service"`
			} `json:"security"`
			Resource []struct {
				Type             string   `json:"type"`
				SupportedProfile []string `json:"supportedProfile"`
				Interaction      []struct{ Code string }
				Versioning       string   `json:"versioning"`
				SearchInclude    []string `json:"searchInclude"`
				SearchRevInclude []string `json:"searchRevInclude"`
				SearchParam      []struct {
					Name, Type string
				} `json:"searchParam"`
			} `json:"resource"`
			Operation []struct {
				Name, Definition string
			} `json:"operation"`
		} `json:"rest"`
	}
	if err := json.Unmarshal(r.body, &cs); err != nil {
		t.Fatal(err)
	}
	if cs.ResourceType != "CapabilityStatement" || cs.Kind != "instance" || cs.FHIRVersion != "4.0.1" {
		t.Errorf("statement: %+v", cs)
	}
	if !slices.Equal(cs.Instantiates, []string{"http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data"}) || !strings.Contains(cs.Description, "does not serve Patient") {
		t.Errorf("the statement must claim the Bulk Data export server's capabilities and not US Core server conformance: %v %q", cs.Instantiates, cs.Description)
	}
	rest := cs.Rest[0]
	token := ""
	for _, x := range rest.Security.Extension {
		if x.URL == "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris" {
			for _, y := range x.Extension {
				if y.URL == "token" {
					token = y.ValueURI
				}
			}
		}
	}
	if token != e.base+"/token" {
		t.Errorf("token endpoint %q, want %s/token", token, e.base)
	}
	if len(rest.Security.Service) == 0 || rest.Security.Service[0].Coding[0].Code != "SMART-on-FHIR" {
		t.Errorf("security service: %+v", rest.Security.Service)
	}
	var types []string
	for _, res := range rest.Resource {
		types = append(types, res.Type)
		want := []string{fhirmap.Profiles[res.Type]}
		if p := fhirmap.PlanNetProfiles[res.Type]; p != "" {
			want = append(want, p) // claimed by the resources that meet it
		}
		if !slices.Equal(res.SupportedProfile, want) {
			t.Errorf("%s profiles %v", res.Type, res.SupportedProfile)
		}
		var codes []string
		for _, i := range res.Interaction {
			codes = append(codes, i.Code)
		}
		if !slices.Equal(codes, []string{"read", "vread", "search-type"}) || res.Versioning != "versioned" {
			t.Errorf("%s interactions %v, versioning %q", res.Type, codes, res.Versioning)
		}
		var names []string
		for _, p := range res.SearchParam {
			names = append(names, p.Name)
		}
		for _, want := range requiredParams[res.Type] {
			if !slices.Contains(names, want) {
				t.Errorf("%s lacks search parameter %s", res.Type, want)
			}
		}
	}
	if !slices.Equal(types, fhirmap.Types) {
		t.Errorf("resources %v", types)
	}
	role := rest.Resource[1]
	for _, inc := range []string{"PractitionerRole:practitioner", "PractitionerRole:organization", "PractitionerRole:location", "PractitionerRole:service"} {
		if !slices.Contains(role.SearchInclude, inc) {
			t.Errorf("PractitionerRole lacks _include %s: %v", inc, role.SearchInclude)
		}
	}
	if len(rest.Operation) != 1 || rest.Operation[0].Name != "export" || rest.Operation[0].Definition != "http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export" {
		t.Errorf("system operations %+v, want $export", rest.Operation)
	}
	if !slices.Contains(rest.Resource[0].SearchRevInclude, "PractitionerRole:practitioner") {
		t.Errorf("Practitioner lacks _revinclude PractitionerRole:practitioner")
	}
}

// requiredParams are the search parameters the issue, US Core and Plan-Net name, per type.
var requiredParams = map[string][]string{
	"Practitioner":      {"_id", "_lastUpdated", "identifier", "name", "family", "given", "address", "address-city", "address-state", "address-postalcode", "active"},
	"PractitionerRole":  {"_id", "_lastUpdated", "specialty", "practitioner", "organization", "location", "service", "active"},
	"Organization":      {"_id", "_lastUpdated", "identifier", "name", "address", "type", "active", "partof"},
	"Location":          {"_id", "_lastUpdated", "name", "address", "address-city", "address-state", "address-postalcode", "organization"},
	"HealthcareService": {"_id", "_lastUpdated", "name", "specialty", "service-category", "organization", "location", "active"},
}

func TestRead(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	var pracID string
	for id := range all["Practitioner"] {
		pracID = id
		break
	}
	r := get(t, e.url("/Practitioner/"+pracID))
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if err := fhirvalidate.Validate(r.body, e.base+"/provenance/"); err != nil {
		t.Error(err)
	}
	etag, lastMod := r.header.Get("ETag"), r.header.Get("Last-Modified")
	if !strings.HasPrefix(etag, `W/"`) || lastMod == "" {
		t.Errorf("ETag %q Last-Modified %q", etag, lastMod)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/fhir+json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cl := r.header.Get("Content-Length"); cl != strconv.Itoa(len(r.body)) {
		t.Errorf("Content-Length %q for %d bytes", cl, len(r.body))
	}
	var res struct{ Meta fhirmap.Meta }
	if err := json.Unmarshal(r.body, &res); err != nil {
		t.Fatal(err)
	}
	version := strings.Trim(strings.TrimPrefix(etag, "W/"), `"`)
	if res.Meta.VersionID != version {
		t.Errorf("meta.versionId %q, ETag %q", res.Meta.VersionID, etag)
	}
	if v := get(t, e.url("/Practitioner/"+pracID+"/_history/"+version)); v.status != http.StatusOK || string(v.body) != string(r.body) ||
		v.header.Get("ETag") != etag || v.header.Get("Last-Modified") != lastMod {
		t.Errorf("vread of the current version: %d ETag %q Last-Modified %q, same body as the read: %v", v.status, v.header.Get("ETag"),
			v.header.Get("Last-Modified"), string(v.body) == string(r.body))
	}

	tests := []struct {
		name    string
		path    string
		headers []string
		status  int
		code    string // issue code of an OperationOutcome
	}{
		{"If-None-Match", "/Practitioner/" + pracID, []string{"If-None-Match", etag}, http.StatusNotModified, ""},
		{"If-None-Match strong form", "/Practitioner/" + pracID, []string{"If-None-Match", strings.TrimPrefix(etag, "W/")}, http.StatusNotModified, ""},
		{"If-None-Match other", "/Practitioner/" + pracID, []string{"If-None-Match", `W/"0000"`}, http.StatusOK, ""},
		{"If-Modified-Since", "/Practitioner/" + pracID, []string{"If-Modified-Since", lastMod}, http.StatusNotModified, ""},
		{"unknown id", "/Practitioner/1000000000", nil, http.StatusNotFound, "not-found"},
		{"unknown type", "/Patient/1", nil, http.StatusNotFound, "not-found"},
		{"malformed id", "/Practitioner/a_b", nil, http.StatusNotFound, "not-found"},
		{"xml", "/Practitioner/" + pracID + "?_format=xml", nil, http.StatusNotAcceptable, "not-supported"},
		{"Accept xml", "/Practitioner/" + pracID, []string{"Accept", "application/fhir+xml"}, http.StatusNotAcceptable, "not-supported"},
		{"Accept other release", "/Practitioner/" + pracID, []string{"Accept", "application/fhir+json; fhirVersion=3.0"}, http.StatusNotAcceptable, "not-supported"},
		{"Accept json", "/Practitioner/" + pracID, []string{"Accept", "application/json"}, http.StatusOK, ""},
		{"unknown parameter", "/Practitioner/" + pracID + "?foo=1", nil, http.StatusOK, ""},
		{"unknown parameter, strict", "/Practitioner/" + pracID + "?foo=1", []string{"Prefer", "handling=strict"}, http.StatusBadRequest, "invalid"},
		{"unknown parameter, lenient", "/Practitioner/" + pracID + "?foo=1", []string{"Prefer", "handling=lenient"}, http.StatusOK, ""},
		{"no grant", "/Practitioner/" + pracID, []string{"X-Test-Grant", "none"}, http.StatusUnauthorized, "login"},
		{"scope of another type", "/Practitioner/" + pracID, []string{"X-Test-Scopes", "system/Organization.rs"}, http.StatusForbidden, "forbidden"},
		{"search scope only", "/Practitioner/" + pracID, []string{"X-Test-Scopes", "system/Practitioner.s"}, http.StatusForbidden, "forbidden"},
		{"v1 read scope", "/Practitioner/" + pracID, []string{"X-Test-Scopes", "system/Practitioner.read"}, http.StatusOK, ""},
		{"POST", "/Practitioner/" + pracID, nil, http.StatusMethodNotAllowed, "not-supported"},
		{"vread If-None-Match", "/Practitioner/" + pracID + "/_history/" + version, []string{"If-None-Match", etag}, http.StatusNotModified, ""},
		{"vread of another version", "/Practitioner/" + pracID + "/_history/0000000000000000", nil, http.StatusNotFound, "not-found"},
		{"vread of an unknown id", "/Practitioner/1000000000/_history/" + version, nil, http.StatusNotFound, "not-found"},
		{"vread, malformed version", "/Practitioner/" + pracID + "/_history/a_b", nil, http.StatusNotFound, "not-found"},
		{"vread, no grant", "/Practitioner/" + pracID + "/_history/" + version, []string{"X-Test-Grant", "none"}, http.StatusUnauthorized, "login"},
		{"vread, search scope only", "/Practitioner/" + pracID + "/_history/" + version, []string{"X-Test-Scopes", "system/Practitioner.s"}, http.StatusForbidden, "forbidden"},
		{"history", "/Practitioner/" + pracID + "/_history", nil, http.StatusNotFound, "not-found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodGet
			if tt.name == "POST" {
				method = http.MethodPost
			}
			r := do(t, method, e.base+tt.path, nil, tt.headers...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.code != "" {
				if oo := decodeOutcome(t, r); oo.Issue[0].Code != tt.code {
					t.Errorf("issue code %q, want %q", oo.Issue[0].Code, tt.code)
				}
			}
			if tt.status == http.StatusNotModified && (len(r.body) != 0 || r.header.Get("ETag") != etag) {
				t.Errorf("304 with body %q, ETag %q", r.body, r.header.Get("ETag"))
			}
		})
	}
	if r := get(t, e.url("/Practitioner/"+pracID), "Accept", "application/json"); r.header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("Accept: application/json got %q", r.header.Get("Content-Type"))
	}
}

func TestReadShapes(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	var pracID string
	for id := range all["Practitioner"] {
		pracID = id
		break
	}
	tests := []struct {
		query     string
		want      []string // top-level elements
		subsetted bool
	}{
		{"_elements=identifier", []string{"resourceType", "id", "meta", "identifier"}, true},
		{"_elements=name,gender", []string{"resourceType", "id", "meta", "name", "gender"}, true},
		{"_summary=true", []string{"resourceType", "id", "meta", "identifier", "active", "name", "telecom", "address", "gender"}, true},
		{"_summary=false", nil, false},
		{"_pretty=true", nil, false},
	}
	for _, tt := range tests {
		r := get(t, e.url("/Practitioner/"+pracID)+"?"+tt.query)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", tt.query, r.status, r.body)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatal(err)
		}
		if tt.want != nil {
			for _, w := range tt.want {
				if _, ok := m[w]; !ok && w != "gender" && w != "telecom" {
					t.Errorf("%s: %s missing", tt.query, w)
				}
			}
			for k := range m {
				if !slices.Contains(tt.want, k) {
					t.Errorf("%s: %s returned", tt.query, k)
				}
			}
		}
		if got := strings.Contains(string(m["meta"]), "SUBSETTED"); got != tt.subsetted {
			t.Errorf("%s: SUBSETTED tag %v", tt.query, got)
		}
		if err := fhirvalidate.Parse(r.body); err != nil {
			t.Errorf("%s: %v", tt.query, err)
		}
	}
	if r := get(t, e.url("/Practitioner/"+pracID)+"?_elements=nonsense", "Prefer", "handling=strict"); r.status != http.StatusBadRequest {
		t.Errorf("_elements=nonsense, strict: %d", r.status)
	}
}
