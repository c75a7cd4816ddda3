package fhir_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"providerdir/mapping/fhirmap"
	"providerdir/testing/fhirvalidate"
)

// The Endpoint resource, the Plan-Net parameters that name it or that no source fills, the
// parameters on meta (_tag, _profile) and _include:iterate, over real HTTP against the ingested
// synthetic drop. Every expectation is recomputed from the served resources themselves.

// wantIDs lists "typ/id" of the resources of all[typ] that pred accepts, sorted.
func wantIDs(all map[string]map[string]res, typ string, pred func(res) bool) []string {
	var out []string
	for id, r := range all[typ] {
		if pred(r) {
			out = append(out, typ+"/"+id)
		}
	}
	sort.Strings(out)
	return out
}

// endpointRefs lists the Endpoint references of a resource.
func endpointRefs(r res) []string {
	var out []string
	for _, x := range list(r["endpoint"]) {
		out = append(out, text(x, "reference"))
	}
	return out
}

func TestEndpointRead(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	if len(all[fhirmap.TypeEndpoint]) == 0 {
		t.Fatal("the drop has no Endpoint")
	}
	for id, want := range all[fhirmap.TypeEndpoint] {
		r := get(t, e.url("/Endpoint/"+id))
		if r.status != http.StatusOK {
			t.Fatalf("GET Endpoint/%s: %d %s", id, r.status, r.body)
		}
		if err := fhirvalidate.Validate(r.body, e.base+"/provenance/"); err != nil {
			t.Errorf("%v", err)
		}
		var got res
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		if got["address"] != want["address"] || text(got["connectionType"], "code") == "" || r.header.Get("ETag") == "" {
			t.Errorf("Endpoint/%s served %s", id, r.body)
		}
		profile := list(field(got["meta"], "profile"))
		want := []any{fhirmap.Profiles[fhirmap.TypeEndpoint]}
		if got["status"] == "active" {
			want = append(want, fhirmap.PlanNetProfiles[fhirmap.TypeEndpoint])
		}
		if !slices.Equal(profile, want) {
			t.Errorf("Endpoint/%s (%v) profile %v, want %v", id, got["status"], profile, want)
		}
	}
	if r := get(t, e.url("/Endpoint/1234567893.0000000000000000")); r.status != http.StatusNotFound {
		t.Errorf("unknown Endpoint: %d", r.status)
	}
}

// TestEndpointParameters runs each new parameter and compares its matches with the resources
// that hold the value searched for.
func TestEndpointParameters(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	eps := all[fhirmap.TypeEndpoint]
	pickEP := func(pred func(r res) bool) (string, res) {
		id, r := pick(eps, func(_ string, r res) bool { return pred(r) })
		if r == nil {
			t.Fatal("no Endpoint fits the case")
		}
		return id, r
	}
	orgEP, orgEPRes := pickEP(func(r res) bool { return text(r["managingOrganization"], "reference") != "" })
	managing := text(orgEPRes["managingOrganization"], "reference")
	roleEP, _ := pick(eps, func(id string, _ res) bool {
		_, r := pick(all["PractitionerRole"], func(_ string, r res) bool { return slices.Contains(endpointRefs(r), "Endpoint/"+id) })
		return r != nil
	})
	_, named := pickEP(func(r res) bool { return text(r, "name") != "" })
	locEP, _ := pick(eps, func(id string, _ res) bool {
		_, r := pick(all["Location"], func(_ string, r res) bool { return slices.Contains(endpointRefs(r), "Endpoint/"+id) })
		return r != nil
	})
	hasEndpoint := func(ref string) func(r res) bool {
		return func(r res) bool { return slices.Contains(endpointRefs(r), ref) }
	}
	connection := func(code string) func(r res) bool {
		return func(r res) bool { return text(r["connectionType"], "code") == code }
	}
	none := func(res) bool { return false }
	cases := []struct {
		name, typ string
		params    []string
		want      func(r res) bool
		empty     bool // the parameter has no data behind it: nothing matches
	}{
		{"connection type by code", "Endpoint", []string{"connection-type", "direct-project"}, connection("direct-project"), false},
		{"connection type by system and code", "Endpoint", []string{"connection-type", fhirmap.SystemConnectionType + "|hl7-fhir-rest"}, connection("hl7-fhir-rest"), false},
		{"NPPES endpoint type", "Endpoint", []string{"connection-type", fhirmap.SystemNPPESEndpointType + "|"},
			func(r res) bool { return text(r["connectionType"], "system") == fhirmap.SystemNPPESEndpointType }, false},
		{"managing organization", "Endpoint", []string{"organization", managing},
			func(r res) bool { return text(r["managingOrganization"], "reference") == managing }, false},
		{"status", "Endpoint", []string{"status", "active"}, func(r res) bool { return r["status"] == "active" }, false},
		{"payload type", "Endpoint", []string{"payload-type", "NA"}, func(res) bool { return true }, false},
		{"mime type", "Endpoint", []string{"mime-type", "text/csv"},
			func(r res) bool { return slices.Contains(list(r["payloadMimeType"]), any("text/csv")) }, false},
		{"name", "Endpoint", []string{"name:exact", text(named, "name")}, func(r res) bool { return r["name"] == named["name"] }, false},
		{"role by endpoint", "PractitionerRole", []string{"endpoint", "Endpoint/" + roleEP}, hasEndpoint("Endpoint/" + roleEP), false},
		{"organization by endpoint", "Organization", []string{"endpoint", orgEP}, hasEndpoint("Endpoint/" + orgEP), false},
		{"service by endpoint", "HealthcareService", []string{"endpoint", "Endpoint/" + orgEP}, hasEndpoint("Endpoint/" + orgEP), false},
		{"location by endpoint", "Location", []string{"endpoint", "Endpoint/" + locEP}, hasEndpoint("Endpoint/" + locEP), false},
		{"role by network", "PractitionerRole", []string{"network", managing}, none, true},
		{"organization by coverage area", "Organization", []string{"coverage-area", "Location/" + strings.TrimPrefix(managing, "Organization/")}, none, true},
		{"service by coverage area", "HealthcareService", []string{"coverage-area", "Location/" + strings.TrimPrefix(managing, "Organization/")}, none, true},
		{"service by type", "HealthcareService", []string{"service-type", "hosp"}, none, true},
		{"location by partof", "Location", []string{"partof", "Location/" + strings.TrimPrefix(managing, "Organization/")}, none, true},
		{"endpoints of a chained organization", "Endpoint", []string{"organization.name", text(all["Organization"][strings.TrimPrefix(managing, "Organization/")], "name")},
			func(r res) bool {
				org := all["Organization"][strings.TrimPrefix(text(r["managingOrganization"], "reference"), "Organization/")]
				return org != nil && org["name"] == all["Organization"][strings.TrimPrefix(managing, "Organization/")]["name"]
			}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := url.Values{"_count": {"5"}}
			v.Add(c.params[0], c.params[1])
			got := e.searchAll(t, e.base+"/"+c.typ+"?"+v.Encode())
			want := wantIDs(all, c.typ, c.want)
			if len(want) == 0 && !c.empty {
				t.Fatal("the case finds nothing: pick another value")
			}
			if gotSorted := slices.Sorted(slices.Values(got.matches)); !slices.Equal(gotSorted, want) {
				t.Errorf("got %d matches, want %d\n got %v\nwant %v", len(got.matches), len(want), head(gotSorted), head(want))
			}
			if got.total == nil || int(*got.total) != len(want) {
				t.Errorf("total %v, want %d", got.total, len(want))
			}
		})
	}
}

// TestEndpointIncludes: _include of each endpoint reference adds exactly the Endpoints the
// matches name, and _revinclude goes the other way.
func TestEndpointIncludes(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	for _, c := range []struct{ typ, include string }{
		{"PractitionerRole", "PractitionerRole:endpoint"},
		{"Organization", "Organization:endpoint"},
		{"HealthcareService", "HealthcareService:endpoint:Endpoint"},
	} {
		t.Run(c.include, func(t *testing.T) {
			var ids []string
			for id, r := range all[c.typ] {
				if len(endpointRefs(r)) > 0 && len(ids) < 3 {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 {
				t.Fatalf("no %s names an Endpoint", c.typ)
			}
			var want []string
			for _, id := range ids {
				want = append(want, endpointRefs(all[c.typ][id])...)
			}
			got := e.searchAll(t, e.url("/"+c.typ, "_id", strings.Join(ids, ","), "_include", c.include))
			if g, w := slices.Sorted(slices.Values(got.included)), slices.Compact(slices.Sorted(slices.Values(want))); !slices.Equal(g, w) {
				t.Errorf("included %v, want %v", g, w)
			}
		})
	}
	epID, _ := pick(all["Endpoint"], func(id string, _ res) bool {
		_, r := pick(all["PractitionerRole"], func(_ string, r res) bool { return slices.Contains(endpointRefs(r), "Endpoint/"+id) })
		return r != nil
	})
	got := e.searchAll(t, e.url("/Endpoint", "_id", epID, "_revinclude", "PractitionerRole:endpoint"))
	want := wantIDs(all, "PractitionerRole", func(r res) bool { return slices.Contains(endpointRefs(r), "Endpoint/"+epID) })
	if g := slices.Sorted(slices.Values(got.included)); len(want) == 0 || !slices.Equal(g, want) {
		t.Errorf("_revinclude=PractitionerRole:endpoint included %v, want %v", g, want)
	}
}

// TestIncludeIterate: an :iterate include applies to what other includes added, and only then.
func TestIncludeIterate(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	// A role whose organization names an Endpoint: the Endpoint is two references away.
	roleID, role := pick(all["PractitionerRole"], func(_ string, r res) bool {
		org := all["Organization"][strings.TrimPrefix(text(r["organization"], "reference"), "Organization/")]
		return org != nil && len(endpointRefs(org)) > 0
	})
	if role == nil {
		t.Fatal("no role whose organization has an Endpoint")
	}
	orgRef := text(role["organization"], "reference")
	orgEPs := endpointRefs(all["Organization"][strings.TrimPrefix(orgRef, "Organization/")])
	// A practitioner whose role names an Endpoint: reached by a _revinclude, then an iterate.
	pracRoleID, pracRole := pick(all["PractitionerRole"], func(_ string, r res) bool { return len(endpointRefs(r)) > 0 })
	pracRef := text(pracRole["practitioner"], "reference")
	pracRoles := wantIDs(all, "PractitionerRole", func(r res) bool { return text(r["practitioner"], "reference") == pracRef })
	var pracEPs []string
	for _, ref := range pracRoles {
		pracEPs = append(pracEPs, endpointRefs(all["PractitionerRole"][strings.TrimPrefix(ref, "PractitionerRole/")])...)
	}
	sorted := func(s []string) []string { return slices.Compact(slices.Sorted(slices.Values(s))) }
	cases := []struct {
		name string
		u    string
		want []string
	}{
		{"one level", e.url("/PractitionerRole", "_id", roleID, "_include", "PractitionerRole:organization"), []string{orgRef}},
		{"iterate from an included organization", e.url("/PractitionerRole", "_id", roleID, "_include", "PractitionerRole:organization",
			"_include:iterate", "Organization:endpoint"), sorted(append([]string{orgRef}, orgEPs...))},
		{"iterate from a revincluded role", e.url("/Practitioner", "_id", strings.TrimPrefix(pracRef, "Practitioner/"),
			"_revinclude", "PractitionerRole:practitioner", "_include:iterate", "PractitionerRole:endpoint"), sorted(append(slices.Clone(pracRoles), pracEPs...))},
		{"iterate applies to the matches too", e.url("/PractitionerRole", "_id", pracRoleID, "_include:iterate", "PractitionerRole:endpoint"),
			sorted(endpointRefs(pracRole))},
		{"the type's own include is not applied to included resources", e.url("/PractitionerRole", "_id", roleID,
			"_include", "PractitionerRole:organization", "_include", "Organization:endpoint"), []string{orgRef}},
	}
	// Without :iterate, an include of another type is not applicable: ignored with a warning by
	// default, refused under strict handling.
	if r := get(t, cases[len(cases)-1].u, "Prefer", "handling=strict"); r.status != 400 {
		t.Errorf("strict: status %d, want 400: %s", r.status, r.body)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := e.searchAll(t, c.u)
			if g := sorted(got.included); !slices.Equal(g, c.want) {
				t.Errorf("included %v, want %v", g, c.want)
			}
		})
	}
	// An iterating include needs read of the type it adds.
	r := get(t, e.url("/PractitionerRole", "_id", roleID, "_include", "PractitionerRole:organization", "_include:iterate", "Organization:endpoint"),
		"X-Test-Scopes", "system/PractitionerRole.rs system/Organization.r")
	if r.status != http.StatusForbidden || !strings.Contains(r.header.Get("WWW-Authenticate"), "system/Endpoint.r") ||
		!strings.Contains(string(r.body), "_include:iterate=Organization:endpoint:Endpoint") {
		t.Errorf("without Endpoint read: %d %s %s", r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
}

// TestTagAndProfile: _tag finds resources by a provenance tag as served, _profile by the
// profile each type claims.
func TestTagAndProfile(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	// e.all has the tags as stored, their systems under fhirmap.TagSystemPrefix; the server
	// serves them under <base>/provenance/, as the searches name them.
	tagged := func(key, code string) func(r res) bool {
		return func(r res) bool {
			return anyOf(list(field(r["meta"], "tag")), func(t any) bool {
				return text(t, "system") == fhirmap.TagSystemPrefix+key && (code == "" || text(t, "code") == code)
			})
		}
	}
	codeOnly := func(code string) func(r res) bool {
		return func(r res) bool {
			return anyOf(list(field(r["meta"], "tag")), func(t any) bool { return text(t, "code") == code })
		}
	}
	everything := func(res) bool { return true }
	cases := []struct {
		name, typ, param, value string
		want                    func(r res) bool
	}{
		{"tag of PECOS roles", "PractitionerRole", "_tag", e.base + "/provenance/_dataset_id|cms_pecos_ppef", tagged("_dataset_id", "cms_pecos_ppef")},
		{"tag of NPPES roles", "PractitionerRole", "_tag", e.base + "/provenance/_dataset_id|nppes", tagged("_dataset_id", "nppes")},
		{"tag code alone", "Endpoint", "_tag", "nppes", codeOnly("nppes")},
		{"tag system alone", "Endpoint", "_tag", e.base + "/provenance/_license|", tagged("_license", "")},
		{"tag alternatives", "Organization", "_tag", e.base + "/provenance/_dataset_id|cms_pos_facilities," + e.base + "/provenance/_dataset_id|nppes",
			func(r res) bool {
				return tagged("_dataset_id", "cms_pos_facilities")(r) || tagged("_dataset_id", "nppes")(r)
			}},
		{"tag of another server", "Practitioner", "_tag", "https://elsewhere.example/fhir/provenance/_dataset_id|nppes", func(res) bool { return false }},
		{"tag without a system", "Practitioner", "_tag", "|nppes", func(res) bool { return false }},
		{"profile of the type", "Endpoint", "_profile", fhirmap.Profiles[fhirmap.TypeEndpoint], everything},
		{"profile of another type", "Practitioner", "_profile", fhirmap.Profiles[fhirmap.TypeEndpoint], func(res) bool { return false }},
		{"profile alternatives", "Location", "_profile", fhirmap.Profiles[fhirmap.TypeEndpoint] + "," + fhirmap.Profiles[fhirmap.TypeLocation], everything},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := e.searchAll(t, e.url("/"+c.typ, c.param, c.value, "_count", "50"))
			want := wantIDs(all, c.typ, c.want)
			if !strings.Contains(c.name, "another") && !strings.Contains(c.name, "without") && len(want) == 0 {
				t.Fatal("the case finds nothing: pick another value")
			}
			if g := slices.Sorted(slices.Values(got.matches)); !slices.Equal(g, want) {
				t.Errorf("got %d matches, want %d\n got %v\nwant %v", len(g), len(want), head(g), head(want))
			}
		})
	}
	// A search pinned to ids is read by id and its tag checked on the documents' keys.
	var ids, wantPinned []string
	for id, r := range all["PractitionerRole"] {
		if len(ids) < 10 {
			ids = append(ids, id)
			if tagged("_dataset_id", "cms_pecos_ppef")(r) {
				wantPinned = append(wantPinned, "PractitionerRole/"+id)
			}
		}
	}
	sort.Strings(wantPinned)
	pinned := e.searchAll(t, e.url("/PractitionerRole", "_id", strings.Join(ids, ","), "_tag", e.base+"/provenance/_dataset_id|cms_pecos_ppef"))
	if g := slices.Sorted(slices.Values(pinned.matches)); !slices.Equal(g, wantPinned) {
		t.Errorf("_id with _tag: got %v, want %v", g, wantPinned)
	}
	// A tag narrows the other conditions, not the other way round.
	pecosActive := wantIDs(all, "PractitionerRole", func(r res) bool { return tagged("_dataset_id", "cms_pecos_ppef")(r) && r["active"] == true })
	got := e.searchAll(t, e.url("/PractitionerRole", "_tag", e.base+"/provenance/_dataset_id|cms_pecos_ppef", "active", "true", "_count", "50"))
	if g := slices.Sorted(slices.Values(got.matches)); len(pecosActive) == 0 || !slices.Equal(g, pecosActive) {
		t.Errorf("_tag with active: %d matches, want %d", len(g), len(pecosActive))
	}
}

// TestEndpointSandboxAndScopes: sandbox credentials see the sandbox providers' Endpoints only,
// and Endpoint takes its own scopes.
func TestEndpointSandboxAndScopes(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	got := e.searchAll(t, e.url("/Endpoint", "_count", "50"), "X-Test-Sandbox", "1")
	want := wantIDs(all, "Endpoint", func(r res) bool { return r["__sandbox"] == true })
	if g := slices.Sorted(slices.Values(got.matches)); len(want) == 0 || len(want) == len(all["Endpoint"]) || !slices.Equal(g, want) {
		t.Errorf("sandbox Endpoints: got %d, want %d of %d", len(g), len(want), len(all["Endpoint"]))
	}
	outside, _ := pick(all["Endpoint"], func(_ string, r res) bool { return r["__sandbox"] != true })
	if r := get(t, e.url("/Endpoint/"+outside), "X-Test-Sandbox", "1"); r.status != http.StatusNotFound {
		t.Errorf("sandbox read of Endpoint/%s outside the subset: %d", outside, r.status)
	}
	for _, c := range []struct {
		name, u, scopes string
		status          int
	}{
		{"read with another type's scope", e.url("/Endpoint/" + outside), "system/Practitioner.rs", http.StatusForbidden},
		{"read with its scope", e.url("/Endpoint/" + outside), "system/Endpoint.r", http.StatusOK},
		{"include without Endpoint read", e.url("/PractitionerRole", "_include", "PractitionerRole:endpoint"), "system/PractitionerRole.rs", http.StatusForbidden},
		{"include with Endpoint read", e.url("/PractitionerRole", "_include", "PractitionerRole:endpoint"), "system/PractitionerRole.rs system/Endpoint.r", http.StatusOK},
	} {
		if r := get(t, c.u, "X-Test-Scopes", c.scopes); r.status != c.status {
			t.Errorf("%s: %d, want %d: %.200s", c.name, r.status, c.status, r.body)
		}
	}
}

// TestCapabilityPlanNet: the CapabilityStatement serves Endpoint and lists every parameter the
// server takes, the new ones with their Plan-Net or base definitions.
func TestCapabilityPlanNet(t *testing.T) {
	e := sharedEnv(t)
	r := get(t, e.url("/metadata"))
	var cs struct {
		Rest []struct {
			Resource []struct {
				Type             string   `json:"type"`
				SupportedProfile []string `json:"supportedProfile"`
				SearchInclude    []string `json:"searchInclude"`
				SearchParam      []struct {
					Name, Definition, Type string
				} `json:"searchParam"`
			} `json:"resource"`
		} `json:"rest"`
	}
	if err := json.Unmarshal(r.body, &cs); err != nil || len(cs.Rest) != 1 {
		t.Fatalf("%v %.200s", err, r.body)
	}
	want := map[string][]string{
		"HealthcareService": {"coverage-area", "endpoint", "service-type", "_tag", "_profile"},
		"PractitionerRole":  {"network", "endpoint", "_tag", "_profile"},
		"Organization":      {"endpoint", "coverage-area", "_tag", "_profile"},
		"Location":          {"partof", "endpoint", "type", "_tag", "_profile"},
		"Endpoint":          {"_id", "connection-type", "organization", "payload-type", "status", "_tag", "_profile"},
	}
	seen := map[string]bool{}
	for _, res := range cs.Rest[0].Resource {
		seen[res.Type] = true
		for _, name := range want[res.Type] {
			i := slices.IndexFunc(res.SearchParam, func(p struct{ Name, Definition, Type string }) bool { return p.Name == name })
			if i < 0 || res.SearchParam[i].Definition == "" {
				t.Errorf("%s: searchParam %s missing or without a definition", res.Type, name)
			}
		}
		if res.Type == "Endpoint" && !slices.Equal(res.SupportedProfile, []string{fhirmap.Profiles[fhirmap.TypeEndpoint], fhirmap.PlanNetProfiles[fhirmap.TypeEndpoint]}) {
			t.Errorf("Endpoint supportedProfile %v", res.SupportedProfile)
		}
		if res.Type == "PractitionerRole" && !slices.Contains(res.SearchInclude, "PractitionerRole:endpoint") {
			t.Errorf("PractitionerRole searchInclude %v", res.SearchInclude)
		}
	}
	if !seen["Endpoint"] {
		t.Error("no Endpoint in the CapabilityStatement")
	}
}
