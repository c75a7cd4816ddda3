package fhir_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestScopesOfJoinedTypes checks, with access tokens of clients whose scopes leave types out,
// that a search is refused with 403 and the insufficient_scope challenge when a chain, a _has,
// an _include or a _revinclude touches a type the token may not search (chains, _has) or read
// (includes), and that the same searches are served to a token with those scopes.
func TestScopesOfJoinedTypes(t *testing.T) {
	e := newSMARTEnv(t, false)
	tokens := map[string]string{}
	auth := func(scopes string) string {
		if tokens[scopes] == "" {
			tokens[scopes] = e.token(t, strings.Fields(scopes)...)
		}
		return tokens[scopes]
	}
	const (
		roles = "system/PractitionerRole.rs"
		pracs = "system/Practitioner.rs"
		orgs  = "system/Organization.rs"
		both  = roles + " " + pracs
	)
	var first bundle
	if r := get(t, e.url+"/fhir/Practitioner?_count=1", "Authorization", auth(pracs)); r.status != http.StatusOK || json.Unmarshal(r.body, &first) != nil || len(first.Entry) == 0 {
		t.Fatalf("no practitioner to read: %d %.300s", r.status, r.body)
	}
	pracRead := "/fhir/" + idOf(first.Entry[0].Resource)

	tests := []struct {
		name, scopes, path string
		status             int
		missing            []string // the scopes the 403's diagnostics must name
		challenge          string   // the scope attribute of the 403's challenge
		matches, included  bool     // a 200 must hold matches, included resources
	}{
		{"chain to a type not granted", roles, "/fhir/PractitionerRole?practitioner.active=true", 403,
			[]string{"system/Practitioner.s", "practitioner.active"}, "system/PractitionerRole.s system/Practitioner.s", false, false},
		{"_include of a type not granted", roles, "/fhir/PractitionerRole?_include=PractitionerRole:practitioner", 403,
			[]string{"system/Practitioner.r", "_include=PractitionerRole:practitioner:Practitioner"}, "system/PractitionerRole.s system/Practitioner.r", false, false},
		{"chain and _include of a type not granted", roles, "/fhir/PractitionerRole?practitioner.active=true&_include=PractitionerRole:practitioner", 403,
			[]string{"system/Practitioner.s", "system/Practitioner.r"}, "system/PractitionerRole.s system/Practitioner.rs", false, false},
		{"_has of a type not granted", pracs, "/fhir/Practitioner?_has:PractitionerRole:practitioner:active=true", 403,
			[]string{"system/PractitionerRole.s", "_has:PractitionerRole:practitioner:active"}, "system/Practitioner.s system/PractitionerRole.s", false, false},
		{"_revinclude of a type not granted", pracs, "/fhir/Practitioner?_revinclude=PractitionerRole:practitioner", 403,
			[]string{"system/PractitionerRole.r"}, "system/Practitioner.s system/PractitionerRole.r", false, false},
		{"affiliations by _has", orgs, "/fhir/Organization?_has:PractitionerRole:organization:active=true", 403,
			[]string{"system/PractitionerRole.s"}, "system/Organization.s system/PractitionerRole.s", false, false},
		{"affiliations by _revinclude", orgs, "/fhir/Organization?_revinclude=PractitionerRole:organization", 403,
			[]string{"system/PractitionerRole.r"}, "system/Organization.s system/PractitionerRole.r", false, false},
		{"search right but no read right for an _include", roles + " system/Practitioner.s", "/fhir/PractitionerRole?_include=PractitionerRole:practitioner", 403,
			[]string{"system/Practitioner.r"}, "system/PractitionerRole.s system/Practitioner.r", false, false},
		{"read of a type not granted", roles, pracRead, 403, []string{"system/Practitioner.r"}, "system/Practitioner.r", false, false},

		{"own type only", roles, "/fhir/PractitionerRole?_count=2", 200, nil, "", true, false},
		{"chain with search right only", roles + " system/Practitioner.s", "/fhir/PractitionerRole?practitioner.active=true&_count=5", 200, nil, "", true, false},
		{"chain", both, "/fhir/PractitionerRole?practitioner.active=true&_count=5", 200, nil, "", true, false},
		{"_include", both, "/fhir/PractitionerRole?_include=PractitionerRole:practitioner&_count=5", 200, nil, "", true, true},
		{"_has", both, "/fhir/Practitioner?_has:PractitionerRole:practitioner:active=true&_count=5", 200, nil, "", true, false},
		{"_revinclude", both, "/fhir/Practitioner?_revinclude=PractitionerRole:practitioner&_count=5", 200, nil, "", true, true},
		{"affiliations granted", orgs + " " + roles, "/fhir/Organization?_has:PractitionerRole:organization:active=true&_revinclude=PractitionerRole:organization&_count=5", 200, nil, "", true, true},
		{"v1 scopes", "system/Practitioner.read system/PractitionerRole.read", "/fhir/Practitioner?_has:PractitionerRole:practitioner:active=true&_revinclude=PractitionerRole:practitioner&_count=5", 200, nil, "", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := get(t, e.url+tt.path, "Authorization", auth(tt.scopes))
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, tt.status, r.body)
			}
			if tt.status != http.StatusOK {
				oo := decodeOutcome(t, r)
				if oo.Issue[0].Code != "forbidden" {
					t.Errorf("issue code %q, want forbidden", oo.Issue[0].Code)
				}
				for _, m := range tt.missing {
					if !strings.Contains(oo.Issue[0].Diagnostics, m) {
						t.Errorf("diagnostics %q do not name %s", oo.Issue[0].Diagnostics, m)
					}
				}
				want := `Bearer realm="fhir", error="insufficient_scope", scope="` + tt.challenge + `"`
				if got := r.header.Get("WWW-Authenticate"); got != want {
					t.Errorf("WWW-Authenticate %q, want %q", got, want)
				}
				return
			}
			var b bundle
			if err := json.Unmarshal(r.body, &b); err != nil {
				t.Fatal(err)
			}
			modes := map[string]int{}
			for _, en := range b.Entry {
				modes[en.Search.Mode]++
			}
			if tt.matches && modes["match"] == 0 || tt.included && modes["include"] == 0 || modes["outcome"] > 0 {
				t.Errorf("entries by mode %v: %.300s", modes, r.body)
			}
		})
	}
}
