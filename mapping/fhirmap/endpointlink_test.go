package fhirmap_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"

	"providerdir/mapping/fhirmap"
	"providerdir/stored"
)

// endpointView is the part of a served Endpoint the link tests read.
type endpointView struct {
	Status string
	Meta   struct{ Profile []string }
	Manage *fhirmap.Reference `json:"managingOrganization"`
}

func viewOf(t *testing.T, r fhirmap.Resource, v any) {
	t.Helper()
	if err := json.Unmarshal(served(t, r, fhirmap.TagSystemPrefix), v); err != nil {
		t.Fatal(err)
	}
}

// An endpoint affiliated elsewhere is managed by the Organization its affiliation's legal name
// resolved to, the reference stating the rule and its confidence; unresolved, it names the
// affiliation by display only; an individual's own endpoint names none. An active NPI's
// Endpoint claims plannet-Endpoint; a deactivated NPI's, off, claims the base profile alone,
// since Plan-Net fixes status to active.
func TestEndpointManagingOrganization(t *testing.T) {
	const (
		own        = "1234567893.0011223344556677" // not affiliated
		affiliated = "1234567893.8899aabbccddeeff" // affiliated with KANSAS HIE, INC.
	)
	tests := []struct {
		name      string
		active    bool
		affiliate string // the Organization the affiliation name resolved to
		ref       string
		wantRef   string // managingOrganization.reference, "" for none
		display   string
		matchExt  bool // the reference carries the link-match extension
	}{
		{"resolved affiliation", true, "1112223339", affiliated, "Organization/1112223339", "KANSAS HIE, INC.", true},
		{"unresolved affiliation", true, "", affiliated, "", "KANSAS HIE, INC.", false},
		{"individual's own endpoint", true, "1112223339", own, "", "", false},
		{"deactivated NPI, resolved affiliation", false, "1112223339", affiliated, "Organization/1112223339", "KANSAS HIE, INC.", true},
		{"deactivated NPI's own endpoint", false, "", own, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := individual()
			p.Record.Active = tt.active
			for i := range p.Endpoints {
				if p.Endpoints[i].Record.AffiliatedElsewhere() {
					p.Endpoints[i].Affiliate = tt.affiliate
				}
			}
			res, err := fhirmap.BuildIndividual(p, tax)
			all := built(t, res, err)
			r, ok := all["Endpoint/"+tt.ref]
			if !ok {
				t.Fatalf("Endpoint/%s not built", tt.ref)
			}
			var ep endpointView
			viewOf(t, r, &ep)
			var gotRef, gotDisplay string
			var ext []fhirmap.Extension
			if ep.Manage != nil {
				gotRef, gotDisplay, ext = ep.Manage.Reference, ep.Manage.Display, ep.Manage.Extension
			}
			if gotRef != tt.wantRef || gotDisplay != tt.display {
				t.Errorf("managingOrganization %q (%q), want %q (%q)", gotRef, gotDisplay, tt.wantRef, tt.display)
			}
			if tt.matchExt != (len(ext) == 1 && ext[0].URL == fhirmap.ExtLinkMatch) {
				t.Errorf("link-match extension %+v, want it %v", ext, tt.matchExt)
			}
			if tt.matchExt {
				var conf float64
				var rule string
				for _, e := range ext[0].Extension {
					switch e.URL {
					case "confidence":
						conf = *e.ValueDecimal
					case "rule":
						rule = e.ValueString
					}
				}
				if conf != fhirmap.AffiliationNameConfidence || !strings.Contains(rule, "Affiliation Legal Business Name") {
					t.Errorf("link-match rule %q confidence %v", rule, conf)
				}
			}
			if tt.wantRef != "" && !findsKey(r.Doc, "organization", tt.wantRef) {
				t.Errorf("no organization key for %s", tt.wantRef)
			}
			wantStatus, wantProfiles := "active", []string{fhirmap.Profiles[fhirmap.TypeEndpoint], fhirmap.PlanNetProfiles[fhirmap.TypeEndpoint]}
			if !tt.active {
				wantStatus, wantProfiles = "off", wantProfiles[:1]
			}
			if ep.Status != wantStatus || !slices.Equal(ep.Meta.Profile, wantProfiles) {
				t.Errorf("status %q profiles %v, want %q %v", ep.Status, ep.Meta.Profile, wantStatus, wantProfiles)
			}
			if hasKey(r.Doc, "_profile", fhirmap.PlanNetProfiles[fhirmap.TypeEndpoint]) != tt.active {
				t.Errorf("_profile key of plannet-Endpoint: %v, want %v", !tt.active, tt.active)
			}
		})
	}
}

// A practice Location names the provider's Endpoints whose endpoint file row gives the
// Location's address, compared as SamePlace does: the primary practice address matches rows
// written in another case, with other punctuation, spacing, line split or ZIP+4; the secondary
// address matches only its own row; an endpoint at no practice address is named by none.
func TestLocationEndpoints(t *testing.T) {
	p := individual()
	at := func(id string, a stored.Address) fhirmap.EndpointInput {
		return fhirmap.EndpointInput{ID: id, Record: stored.EndpointRecord{NPI: p.Record.NPI, Type: "DIRECT",
			TypeDescription: "Direct Messaging Address", Address: id + "@direct.example.org", Affiliated: "no", Location: a}}
	}
	p.Endpoints = []fhirmap.EndpointInput{
		at("1234567893.0000000000000001", stored.Address{Line1: "1 Main St.", City: "West  Springs", State: "ks", PostalCode: "67208"}),
		at("1234567893.0000000000000002", stored.Address{Line1: "1", Line2: "MAIN ST", City: "WEST SPRINGS", State: "KS", PostalCode: "67208-9999"}),
		at("1234567893.0000000000000003", stored.Address{Line1: "9 ELM", City: "TOPEKA", State: "KS", PostalCode: "666010000"}),
		at("1234567893.0000000000000004", stored.Address{Line1: "1 MAIN STREET", City: "WEST SPRINGS", State: "KS", PostalCode: "67208"}),
		at("1234567893.0000000000000005", stored.Address{Line1: "1 MAIN ST", City: "WEST SPRINGS", State: "KS"}),
	}
	res, err := fhirmap.BuildIndividual(p, tax)
	all := built(t, res, err)
	for _, tt := range []struct {
		loc  string
		want []string
	}{
		{"Location/1234567893", []string{"Endpoint/1234567893.0000000000000001", "Endpoint/1234567893.0000000000000002"}},
		{"Location/1234567893.00aa11bb22cc33dd", []string{"Endpoint/1234567893.0000000000000003"}},
	} {
		r := all[tt.loc]
		var loc struct{ Endpoint []fhirmap.Reference }
		viewOf(t, r, &loc)
		var got []string
		for _, e := range loc.Endpoint {
			got = append(got, e.Reference)
			if _, ok := all[e.Reference]; !ok {
				t.Errorf("%s names %s, which was not built", tt.loc, e.Reference)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s endpoints %v, want %v", tt.loc, got, tt.want)
		}
		for _, w := range tt.want {
			if !findsKey(r.Doc, "endpoint", w) {
				t.Errorf("%s: no endpoint key for %s", tt.loc, w)
			}
		}
	}
}

func TestSamePlace(t *testing.T) {
	base := stored.Address{Line1: "3 OAK AVE", Line2: "SUITE 100", City: "SANTA FE", State: "NM", PostalCode: "875011234"}
	with := func(f func(*stored.Address)) stored.Address { a := base; f(&a); return a }
	tests := []struct {
		name string
		b    stored.Address
		want bool
	}{
		{"identical", base, true},
		{"case, punctuation and spacing", with(func(a *stored.Address) { a.Line1, a.City, a.State = "3 Oak Ave.,", " Santa  Fe ", "nm" }), true},
		{"lines split elsewhere", with(func(a *stored.Address) { a.Line1, a.Line2 = "3 OAK AVE SUITE 100", "" }), true},
		{"ZIP5 of a ZIP+4", with(func(a *stored.Address) { a.PostalCode = "87501" }), true},
		{"ZIP+4 with a dash", with(func(a *stored.Address) { a.PostalCode = "87501-0000" }), true},
		{"another suite", with(func(a *stored.Address) { a.Line2 = "SUITE 200" }), false},
		{"a spelled-out word", with(func(a *stored.Address) { a.Line1 = "3 OAK AVENUE" }), false},
		{"another city", with(func(a *stored.Address) { a.City = "SANTA CLARA" }), false},
		{"another state", with(func(a *stored.Address) { a.State = "AZ" }), false},
		{"another ZIP", with(func(a *stored.Address) { a.PostalCode = "87502" }), false},
		{"no ZIP", with(func(a *stored.Address) { a.PostalCode = "" }), false},
		{"no city", with(func(a *stored.Address) { a.City = "" }), false},
		{"no line", with(func(a *stored.Address) { a.Line1, a.Line2 = "", "" }), false},
		{"a ZIP of four digits", with(func(a *stored.Address) { a.PostalCode = "8750" }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fhirmap.SamePlace(base, tt.b); got != tt.want {
				t.Errorf("SamePlace(%+v, %+v) = %v, want %v", base, tt.b, got, tt.want)
			}
			if got := fhirmap.SamePlace(tt.b, base); got != tt.want {
				t.Errorf("SamePlace is not symmetric for %+v", tt.b)
			}
		})
	}
}

// FuzzSamePlace: SamePlace is symmetric; an address is the same place as itself rewritten in
// lower case, with a comma after each part and doubled spaces, whenever it is one at all; and
// two addresses in different states (ASCII codes told apart ignoring case) are never the same
// place.
func FuzzSamePlace(f *testing.F) {
	f.Add("3 OAK AVE", "SUITE 100", "SANTA FE", "NM", "875011234", "3 Oak Ave", "", "Santa Fe", "nm", "87501")
	f.Add("1 MAIN ST", "", "ALBANY", "NY", "12207", "1 MAIN ST", "", "ALBANY", "NJ", "12207")
	f.Add("", "", "", "", "", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, l1, l2, city, state, zip, m1, m2, mcity, mstate, mzip string) {
		a := stored.Address{Line1: l1, Line2: l2, City: city, State: state, PostalCode: zip}
		b := stored.Address{Line1: m1, Line2: m2, City: mcity, State: mstate, PostalCode: mzip}
		if fhirmap.SamePlace(a, b) != fhirmap.SamePlace(b, a) {
			t.Fatalf("not symmetric: %+v, %+v", a, b)
		}
		if fhirmap.SamePlace(a, a) {
			messy := stored.Address{Line1: strings.ReplaceAll(strings.ToLower(l1), " ", "  ") + ",", Line2: strings.ToLower(l2) + ".",
				City: " " + strings.ToLower(city) + ",", State: strings.ToLower(state), PostalCode: zip}
			if asciiLetters(l1+l2+city+state) && !fhirmap.SamePlace(a, messy) {
				t.Fatalf("%+v is not the same place as %+v", a, messy)
			}
		}
		if !asciiLetters(state+mstate) || strings.EqualFold(strings.TrimSpace(state), strings.TrimSpace(mstate)) {
			return
		}
		if fhirmap.SamePlace(a, b) {
			t.Fatalf("%+v and %+v are in different states, yet the same place", a, b)
		}
	})
}

// asciiLetters reports whether s is printable ASCII, whose case mapping is one-to-one.
func asciiLetters(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
