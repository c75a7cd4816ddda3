package fhir_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"providerdir/fhir"
)

// params builds search parameters: n copies of name=value after the pairs given.
func params(n int, name, value string, pairs ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Add(pairs[i], pairs[i+1])
	}
	for range n {
		v.Add(name, value)
	}
	return v
}

// search runs a search by GET or by POST _search with a form body.
func (e *env) search(t *testing.T, post bool, typ string, v url.Values, headers ...string) response {
	t.Helper()
	if post {
		headers = append(headers, "Content-Type", "application/x-www-form-urlencoded")
		return do(t, http.MethodPost, e.base+"/"+typ+"/_search", strings.NewReader(v.Encode()), headers...)
	}
	return get(t, e.base+"/"+typ+"?"+v.Encode(), headers...)
}

// TestSearchLimits checks each request limit of a search by GET and by POST _search: a search at
// the limit is served, one past it is a 400 too-costly (not-supported for the depths, which the
// server cannot follow at all) whose diagnostics give the limit's value.
func TestSearchLimits(t *testing.T) {
	e := sharedEnv(t)
	const has = "_has:PractitionerRole:practitioner:active"
	ids := make([]string, fhir.MaxValues+1)
	for i := range ids {
		ids[i] = strconv.Itoa(1000000000 + i)
	}
	includes := []string{"PractitionerRole:practitioner", "PractitionerRole:organization", "PractitionerRole:location", "PractitionerRole:service"}
	tenIncludes := params(0, "", "")
	for i := range fhir.MaxIncludeParams {
		tenIncludes.Add("_include", includes[i%len(includes)])
	}
	elevenIncludes := params(1, "_revinclude", "PractitionerRole:practitioner")
	for _, v := range tenIncludes["_include"] {
		elevenIncludes.Add("_include", v)
	}

	tests := []struct {
		name     string
		typ      string
		params   url.Values
		formOnly bool   // too long for a URL: sent as a form body only
		prefer   string // the Prefer header
		code     string
		mention  []string // the diagnostics must hold these
	}{
		{"parameters at the limit", "Practitioner", params(fhir.MaxSearchParams-1, "active", "true", "_count", "2"), false, "", "", nil},
		{"parameters over the limit", "Practitioner", params(fhir.MaxSearchParams, "active", "true", "_count", "2"), false, "", "too-costly", []string{"51 parameters", "limit is 50"}},
		{"5,000 parameters", "Practitioner", params(5000, "family", "smith"), true, "", "too-costly", []string{"5000 parameters", "limit is 50"}},
		{"empty parameters count", "Practitioner", params(fhir.MaxSearchParams+1, "family", ""), false, "", "too-costly", []string{"limit is 50"}},
		{"chains at the limit", "Practitioner", params(fhir.MaxChainParams, has, "true", "_count", "2"), false, "", "", nil},
		{"chains over the limit", "Practitioner", params(fhir.MaxChainParams+1, has, "true"), false, "", "too-costly", []string{"6 chained and _has parameters", "limit is 5"}},
		{"chains and _has together over the limit", "PractitionerRole", params(3, "practitioner.active", "true", "_has:PractitionerRole:practitioner:active", "true", "organization.active", "true",
			"location.name", "a", "service.name", "a"), false, "", "too-costly", []string{"7 chained and _has parameters", "limit is 5"}},
		{"1,000 _has parameters", "Practitioner", params(1000, has, "true"), true, "", "too-costly", []string{"1000 chained and _has parameters", "limit is 5"}},
		{"chain depth over the limit", "PractitionerRole", params(1, "organization.partof.name", "x"), false, "", "not-supported", []string{"organization.partof.name", "depth 2", "depth of 1"}},
		{"_has depth over the limit", "Practitioner", params(1, "_has:PractitionerRole:practitioner:_has:PractitionerRole:practitioner:active", "true"), false, "", "not-supported", []string{"depth 2", "depth of 1"}},
		{"includes at the limit", "PractitionerRole", tenIncludes, false, "", "", nil},
		{"includes over the limit", "PractitionerRole", elevenIncludes, false, "", "too-costly", []string{"11 _include and _revinclude parameters", "limit is 10"}},
		{"values at the limit", "Practitioner", params(1, "_id", strings.Join(ids[:fhir.MaxValues], ",")), false, "", "", nil},
		{"values over the limit", "Practitioner", params(1, "_id", strings.Join(ids, ",")), false, "", "too-costly", []string{`"_id"`, "101 comma-separated", "limit is 100"}},
		{"escaped commas are not alternatives", "Practitioner", params(1, "family", strings.Repeat(`a\,`, fhir.MaxValues+1)), false, "", "", nil},
		{"values of a control parameter", "Practitioner", params(1, "_elements", strings.Repeat("id,", fhir.MaxValues)+"id"), false, "", "too-costly", []string{`"_elements"`, "limit is 100"}},
		{"over a limit under lenient handling", "Practitioner", params(fhir.MaxSearchParams+1, "foo", "bar"), false, "handling=lenient", "too-costly", []string{"limit is 50"}},
		{"over a limit by default", "Practitioner", params(fhir.MaxSearchParams+1, "foo", "bar"), false, "", "too-costly", []string{"limit is 50"}},
		{"chain depth under lenient handling", "PractitionerRole", params(1, "organization.partof.name", "x"), false, "handling=lenient", "not-supported", []string{"depth of 1"}},
		{"values over the limit under lenient handling", "Practitioner", params(1, "_id", strings.Join(ids, ",")), false, "handling=lenient", "too-costly", []string{"limit is 100"}},
	}
	for _, tt := range tests {
		for _, post := range []bool{false, true} {
			if !post && tt.formOnly {
				continue
			}
			name := tt.name + map[bool]string{false: " GET", true: " POST"}[post]
			t.Run(name, func(t *testing.T) {
				r := e.search(t, post, tt.typ, tt.params, "Prefer", tt.prefer)
				if tt.code == "" {
					b := e.checkBundle(t, r)
					if r.status != http.StatusOK || len(b.Entry) > 0 && b.Entry[len(b.Entry)-1].Search.Mode == "outcome" {
						t.Fatalf("status %d: %.300s", r.status, r.body)
					}
					return
				}
				if r.status != http.StatusBadRequest {
					t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
				}
				oo := decodeOutcome(t, r)
				if oo.Issue[0].Code != tt.code {
					t.Errorf("issue code %q, want %q", oo.Issue[0].Code, tt.code)
				}
				for _, m := range tt.mention {
					if !strings.Contains(oo.Issue[0].Diagnostics, m) {
						t.Errorf("diagnostics %q lack %q", oo.Issue[0].Diagnostics, m)
					}
				}
			})
		}
	}
}

// TestSearchAtLimitPages checks that a search with the most parameters allowed pages on: its
// next link adds _cursor, which the limit does not count.
func TestSearchAtLimitPages(t *testing.T) {
	e := sharedEnv(t)
	got := e.searchAll(t, e.url("/Practitioner")+"?"+params(fhir.MaxSearchParams-1, "active", "true", "_count", "50").Encode())
	if got.pages < 2 {
		t.Fatalf("%d pages; the test needs a search of more than one", got.pages)
	}
}

// TestEchoedValuesClipped checks that an error quoting a huge parameter name or value returns a
// small body: each quoted piece is clipped, at a character boundary, with an ellipsis.
func TestEchoedValuesClipped(t *testing.T) {
	e := sharedEnv(t)
	huge := strings.Repeat("9", 900<<10)
	accents := strings.Repeat("é", 100<<10) // two bytes each (six in the form): a cut at an odd byte would split one
	tests := []struct {
		name   string
		params url.Values
	}{
		{"value", params(1, "_count", huge)},
		{"multi-byte value", params(1, "_total", "x"+accents)},
		{"name", params(1, "x"+accents, "1")},
		{"modifier", params(1, "family:"+huge, "a")},
		{"chain name", params(1, "practitioner."+huge, "a")},
		{"_has name", params(1, "_has:"+accents, "a")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.search(t, true, "Practitioner", tt.params, "Prefer", "handling=strict")
			if tt.name == "chain name" {
				r = e.search(t, true, "PractitionerRole", tt.params, "Prefer", "handling=strict")
			}
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d: %.300s", r.status, r.body)
			}
			if len(r.body) > 1024 {
				t.Errorf("a body of %d bytes: %.300s", len(r.body), r.body)
			}
			var oo struct {
				Issue []struct{ Diagnostics string } `json:"issue"`
			}
			if !utf8.Valid(r.body) || json.Unmarshal(r.body, &oo) != nil || len(oo.Issue) == 0 {
				t.Fatalf("not a UTF-8 OperationOutcome: %.300s", r.body)
			}
			if d := oo.Issue[0].Diagnostics; !strings.Contains(d, "…") || strings.ContainsRune(d, utf8.RuneError) {
				t.Errorf("diagnostics %q: no ellipsis, or a split character", d)
			}
		})
	}
}
