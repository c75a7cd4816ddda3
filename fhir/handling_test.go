package fhir_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestParameterHandling checks how unknown parameters and unknown _elements are handled, as
// clients such as fhirpy and fhir-kit-client meet them: ignored with an OperationOutcome entry
// (search mode outcome) by default and under Prefer: handling=lenient, refused with a 400 under
// handling=strict; known elements of _elements are kept in any order; resourceType is an element.
func TestParameterHandling(t *testing.T) {
	e := sharedEnv(t)
	tests := []struct {
		name     string
		query    string // raw, so that the order of the parameters is the client's
		warn     string // the outcome entry must name this; "" means no outcome entry
		elements []string
	}{
		{"resourceType is an element", "_elements=id,resourceType,name", "", []string{"name"}},
		{"resourceType last", "_elements=name,id,resourceType", "", []string{"name"}},
		{"unknown element first", "_elements=colour,name,telecom", "colour", []string{"name", "telecom"}},
		{"unknown element in the middle", "_elements=name,colour,telecom", "colour", []string{"name", "telecom"}},
		{"unknown element last", "_elements=name,telecom,colour", "colour", []string{"name", "telecom"}},
		{"unknown elements only", "_elements=colour,shape", "shape", nil},
		{"fhirpy's _totalMethod first", "_totalMethod=count&family=a", "_totalMethod", nil},
		{"fhirpy's _totalMethod last", "family=a&_totalMethod=count", "_totalMethod", nil},
		{"unknown parameter with _elements", "_elements=name&foo=1", "foo", []string{"name"}},
	}
	for _, tt := range tests {
		for _, prefer := range []string{"", "handling=lenient", "handling=strict"} {
			for _, post := range []bool{false, true} {
				name := tt.name + " " + map[string]string{"": "default", "handling=lenient": "lenient", "handling=strict": "strict"}[prefer] +
					map[bool]string{false: " GET", true: " POST"}[post]
				t.Run(name, func(t *testing.T) {
					v, err := url.ParseQuery(tt.query + "&_count=3")
					if err != nil {
						t.Fatal(err)
					}
					var r response
					if post {
						r = do(t, http.MethodPost, e.base+"/Practitioner/_search", strings.NewReader(tt.query+"&_count=3"),
							"Content-Type", "application/x-www-form-urlencoded", "Prefer", prefer)
					} else {
						r = get(t, e.base+"/Practitioner?"+tt.query+"&_count=3", "Prefer", prefer)
					}
					if prefer == "handling=strict" && tt.warn != "" {
						oo := decodeOutcome(t, r)
						if r.status != http.StatusBadRequest || !strings.Contains(oo.Issue[0].Diagnostics, tt.warn) {
							t.Fatalf("status %d, %+v; want a 400 naming %s", r.status, oo.Issue[0], tt.warn)
						}
						return
					}
					if r.status != http.StatusOK {
						t.Fatalf("status %d: %.300s", r.status, r.body)
					}
					b := e.checkBundle(t, r)
					checkHandled(t, b, tt.warn, tt.elements)
					// The next page is shaped as this one: its link carries the elements in effect.
					if next := b.link("next"); next != "" {
						if got := linkElements(next); !slices.Equal(got, slices.Sorted(slices.Values(tt.elements))) || v.Get("_totalMethod") != "" && strings.Contains(next, "_totalMethod") {
							t.Errorf("next link %s: elements %q", next, got)
						}
						// The link holds only what was applied: nothing is left to warn about.
						checkHandled(t, e.checkBundle(t, get(t, next, "Prefer", prefer)), "", tt.elements)
					}
				})
			}
		}
	}
}

// TestCountWithUnknownParameter checks fhirpy's count(): a count-only search with the client's
// own parameter answers the total, with the ignored parameter named in an outcome entry.
func TestCountWithUnknownParameter(t *testing.T) {
	e := sharedEnv(t)
	n := int64(len(e.all(t)["Practitioner"]))
	for _, q := range []string{"_count=0&_totalMethod=count", "_totalMethod=count&_summary=count"} {
		b := e.checkBundle(t, get(t, e.base+"/Practitioner?"+q))
		if b.Total == nil || *b.Total != n || len(b.Entry) != 1 || b.Entry[0].Search.Mode != "outcome" ||
			!strings.Contains(string(b.Entry[0].Resource), "_totalMethod") {
			t.Errorf("%s: total %v of %d, entries %+v", q, b.Total, n, b.Entry)
		}
	}
}

// checkHandled checks a page: each match has the elements asked for and no other (beside
// resourceType, id and meta), and an outcome entry names warn, or there is none.
func checkHandled(t *testing.T, b bundle, warn string, elements []string) {
	t.Helper()
	var outcomes []string
	matches := 0
	for _, en := range b.Entry {
		if en.Search.Mode == "outcome" {
			outcomes = append(outcomes, string(en.Resource))
			continue
		}
		matches++
		if elements == nil {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(en.Resource, &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if !slices.Contains(elements, k) && k != "resourceType" && k != "id" && k != "meta" {
				t.Errorf("%s returned, beside %v", k, elements)
			}
		}
		if _, ok := m["name"]; slices.Contains(elements, "name") && !ok {
			t.Errorf("name missing from %s", en.Resource)
		}
		if !strings.Contains(string(m["meta"]), "SUBSETTED") {
			t.Errorf("no SUBSETTED tag: %s", m["meta"])
		}
	}
	if matches == 0 {
		t.Error("no matches: the case proves nothing")
	}
	switch {
	case warn == "" && len(outcomes) > 0:
		t.Errorf("unexpected outcome entries %v", outcomes)
	case warn != "" && (len(outcomes) != 1 || !strings.Contains(outcomes[0], warn)):
		t.Errorf("outcome entries %v, want one naming %s", outcomes, warn)
	}
}

// linkElements lists the elements a link's _elements asks for beside those always returned,
// sorted.
func linkElements(link string) []string {
	var out []string
	for _, e := range strings.Split(queryParam(link, "_elements"), ",") {
		if e != "" && e != "resourceType" && e != "id" && e != "meta" {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out
}
