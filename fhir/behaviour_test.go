package fhir_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"providerdir/catalog"
	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

func TestSearchErrors(t *testing.T) {
	e := sharedEnv(t)
	first := get(t, e.url("/Practitioner", "_count", "2"))
	var b bundle
	_ = json.Unmarshal(first.body, &b)
	next, _ := url.Parse(b.link("next"))
	cursor := next.Query().Get("_cursor")

	tests := []struct {
		name    string
		query   string
		headers []string
		status  int
		code    string
		mention string // the diagnostics must name this
	}{
		{"unknown parameter", "Practitioner?foo=bar", nil, 400, "invalid", "foo"},
		{"unknown parameter of the type", "Practitioner?specialty=207R00000X", nil, 400, "invalid", "specialty"},
		{"malformed _count", "Practitioner?_count=abc", nil, 400, "invalid", "_count"},
		{"negative _count", "Practitioner?_count=-1", nil, 400, "invalid", "_count"},
		{"malformed _total", "Practitioner?_total=maybe", nil, 400, "invalid", "_total"},
		{"malformed _summary", "Practitioner?_summary=yes", nil, 400, "invalid", "_summary"},
		{"unknown element", "Practitioner?_elements=colour", nil, 400, "invalid", "_elements"},
		{"_sort by name", "Practitioner?_sort=family", nil, 400, "not-supported", "_sort"},
		{"active not boolean", "Practitioner?active=maybe", nil, 400, "invalid", "active"},
		{"malformed date", "Practitioner?_lastUpdated=yesterday", nil, 400, "invalid", "_lastUpdated"},
		{"unsupported date prefix", "Practitioner?_lastUpdated=ne2024", nil, 400, "invalid", "_lastUpdated"},
		{"unsupported modifier", "Practitioner?family:contains=smi", nil, 400, "not-supported", "family:contains"},
		{"token modifier", "Practitioner?identifier:not=1", nil, 400, "not-supported", "identifier:not"},
		{"spaces only", "Practitioner?name=%20%20", nil, 400, "invalid", "name"},
		{"include modifier other than iterate", "PractitionerRole?_include:recurse=PractitionerRole:practitioner", nil, 400, "not-supported", "_include:recurse"},
		{"iterate over no reference", "PractitionerRole?_include:iterate=Organization:name", nil, 400, "not-supported", "_include:iterate"},
		{"_profile modifier", "Practitioner?_profile:below=http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner", nil, 400, "not-supported", "_profile"},
		{"_tag chained", "PractitionerRole?practitioner._tag=x", nil, 400, "not-supported", "practitioner._tag"},
		{"include of another type", "Practitioner?_include=PractitionerRole:practitioner", nil, 400, "not-supported", "_include"},
		{"revinclude not pointing here", "Practitioner?_revinclude=PractitionerRole:organization", nil, 400, "not-supported", "_revinclude"},
		{"chain on a token", "Practitioner?identifier.name=x", nil, 400, "invalid", "identifier.name"},
		{"chain to unknown", "PractitionerRole?practitioner.colour=x", nil, 400, "invalid", "practitioner.colour"},
		{"two-level chain", "PractitionerRole?organization.partof.name=x", nil, 400, "not-supported", "organization.partof.name"},
		{"bad _has", "Practitioner?_has:PractitionerRole:organization:specialty=x", nil, 400, "invalid", "_has"},
		{"garbage cursor", "Practitioner?_cursor=xyz", nil, 400, "invalid", "_cursor"},
		{"cursor of another search", "Practitioner?active=true&_cursor=" + cursor, nil, 400, "invalid", "_cursor"},
		{"xml", "Practitioner?_format=xml", nil, 406, "not-supported", ""},
		{"no grant", "Practitioner", []string{"X-Test-Grant", "none"}, 401, "login", ""},
		{"read scope only", "Practitioner", []string{"X-Test-Scopes", "system/Practitioner.r"}, 403, "forbidden", ""},
		{"lenient", "Practitioner?foo=bar&_count=1", []string{"Prefer", "handling=lenient"}, 200, "", ""},
		{"lenient and strict parts", "Practitioner?foo=bar&_count=1", []string{"Prefer", "return=minimal, handling=lenient"}, 200, "", ""},
		{"strict among preferences", "Practitioner?foo=bar", []string{"Prefer", "return=minimal, handling = strict; x=1"}, 400, "invalid", "foo"},
		{"quoted strict", "Practitioner?foo=bar", []string{"Prefer", `handling="strict"`}, 400, "invalid", "foo"},
		{"first handling counts", "Practitioner?foo=bar&_count=1", []string{"Prefer", "handling=lenient, handling=strict"}, 200, "", ""},
		{"no handling", "Practitioner?foo=bar&_count=1", []string{"Prefer", "return=minimal"}, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.headers == nil {
				tt.headers = []string{"Prefer", "handling=strict"} // errors, not warnings
			}
			r := get(t, e.base+"/"+tt.query, tt.headers...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.code == "" {
				return
			}
			oo := decodeOutcome(t, r)
			if oo.Issue[0].Code != tt.code || !strings.Contains(oo.Issue[0].Diagnostics, tt.mention) {
				t.Errorf("issue %+v, want code %s naming %q", oo.Issue[0], tt.code, tt.mention)
			}
		})
	}

	// Lenient handling ignores the parameter and says so in an outcome entry.
	r := get(t, e.url("/Practitioner", "foo", "bar", "_count", "1"), "Prefer", "handling=lenient")
	lb := e.checkBundle(t, r)
	last := lb.Entry[len(lb.Entry)-1]
	if last.Search.Mode != "outcome" || !strings.Contains(string(last.Resource), "foo") {
		t.Errorf("no warning naming foo: %s", last.Resource)
	}

	// POST _search wants a form.
	r = do(t, http.MethodPost, e.url("/Practitioner/_search"), strings.NewReader(`{}`), "Content-Type", "application/json")
	if r.status != http.StatusUnsupportedMediaType {
		t.Errorf("POST JSON: %d", r.status)
	}
	decodeOutcome(t, r)

	// A count above the maximum is served at the maximum, with a warning.
	r = get(t, e.url("/Practitioner", "_count", "100000", "_elements", "id"))
	cb := e.checkBundle(t, r)
	if cb.Entry[len(cb.Entry)-1].Search.Mode != "outcome" || len(cb.Entry) != min(fhir.MaxCount, int(*cb.Total))+1 {
		t.Errorf("count above the maximum: %d entries of %d, last %s", len(cb.Entry), *cb.Total, cb.Entry[len(cb.Entry)-1].Search.Mode)
	}
}

// TestChainProbe checks the chained and _has searches whose other type matches more than
// MaxChain resources: with MaxChain 1 each of the search cases' chains that matches two or more
// is checked per candidate, five candidates a page, and must find what the case's predicate
// says; its pages carry no total unless the first is the last, a page cut short says so, and a
// count is refused.
func TestChainProbe(t *testing.T) {
	e := freshEnv(t, fhir.Config{MaxChain: 1})
	all := e.all(t)
	// Broad forward chains, which the search cases (one practitioner's NPI or family) lack.
	refTo := func(r res, name, typ string, pred func(res) bool) bool {
		return anyOf(list(r[name]), func(x any) bool {
			id, ok := strings.CutPrefix(text(x, "reference"), typ+"/")
			return ok && all[typ][id] != nil && pred(all[typ][id])
		})
	}
	list1 := func(r res, name string) res { // a reference field that is not a list
		if ref, ok := r[name].(map[string]any); ok {
			return res{name: []any{ref}}
		}
		return res{}
	}
	broadCases := []searchCase{
		{"broad location.address-state", "PractitionerRole", []string{"location.address-state", "m"}, func(r res) bool {
			return refTo(r, "location", "Location", func(l res) bool { return addressPart(l, "state", "m") })
		}, false},
		{"broad practitioner.family", "PractitionerRole", []string{"practitioner.family", "m"}, func(r res) bool {
			return refTo(list1(r, "practitioner"), "practitioner", "Practitioner", func(p res) bool {
				return anyOf(list(p["name"]), func(n any) bool { return prefixed(text(n, "family"), "m") })
			})
		}, false},
	}
	probed, short := 0, 0
	for _, c := range append(cases(t, all), broadCases...) {
		chained := false
		for i := 0; i < len(c.params); i += 2 {
			chained = chained || strings.HasPrefix(c.params[i], "_has:") || strings.Contains(c.params[i], ".")
		}
		if !chained {
			continue
		}
		t.Run(c.typ+" "+c.name, func(t *testing.T) {
			v := url.Values{"_count": {"3"}}
			for i := 0; i+1 < len(c.params); i += 2 {
				v.Add(c.params[i], strings.ReplaceAll(c.params[i+1], "{base}", e.base))
			}
			got := e.searchAll(t, e.base+"/"+c.typ+"?"+v.Encode())
			checkMatches(t, all[c.typ], c, v, got)
			if got.total == nil {
				probed++
			} else if got.pages > 1 {
				// a probed search counts only when its first page is its last
				count := get(t, e.url("/"+c.typ, append([]string{"_summary", "count"}, c.params...)...))
				if count.status != http.StatusOK {
					t.Errorf("total %d over %d pages, and a count answers %d", *got.total, got.pages, count.status)
				}
			}
			for _, oo := range got.outcomes {
				if strings.Contains(string(oo), "checks its candidates one by one") {
					short++
				}
			}
		})
	}
	if probed == 0 || short == 0 {
		t.Errorf("%d searches probed, %d short pages: the cases no longer reach the probe", probed, short)
	}

	// What only reading every candidate answers is refused; the rest is served.
	broad := []string{"practitioner.identifier", fhirmap.SystemNPI + "|"}
	for _, tc := range []struct {
		params []string
		status int
	}{
		{[]string{"_summary", "count"}, http.StatusBadRequest},
		{[]string{"_count", "0"}, http.StatusBadRequest},
		{[]string{"_total", "accurate"}, http.StatusBadRequest},
		{[]string{"_total", "estimate"}, http.StatusOK},
		{[]string{"_total", "none"}, http.StatusOK},
		{nil, http.StatusOK},
	} {
		r := get(t, e.url("/PractitionerRole", append(slices.Clone(broad), tc.params...)...))
		if r.status != tc.status {
			t.Errorf("%v: %d, want %d", tc.params, r.status, tc.status)
			continue
		}
		if r.status != http.StatusOK {
			if oo := decodeOutcome(t, r); oo.Issue[0].Code != "too-costly" || !strings.Contains(oo.Issue[0].Diagnostics, "practitioner.identifier") {
				t.Errorf("%v: %+v", tc.params, oo.Issue[0])
			}
			continue
		}
		if b := e.checkBundle(t, r); b.Total != nil || len(b.Entry) == 0 {
			t.Errorf("%v: total %v, %d entries", tc.params, b.Total, len(b.Entry))
		}
	}
}

func TestTotalsAndShapes(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	n := int64(len(all["Practitioner"]))
	tests := []struct {
		query   string
		total   int64 // -1: absent
		entries int
	}{
		{"_count=5", n, 5},
		{"_count=5&_total=none", -1, 5},
		{"_count=5&_total=estimate", n, 5},
		{"_summary=count", n, 0},
		{"_count=0", n, 0},
		{"_count=3&_summary=true", n, 3},
		{"_count=3&_elements=name", n, 3},
		// ids no document can have (longer than the store allows) match nothing
		{"_id=" + strings.Repeat("9", store.MaxIDLen+1), 0, 0},
		{"identifier=" + url.QueryEscape(fhirmap.SystemNPI+"|"+strings.Repeat("9", store.MaxIDLen+1)), 0, 0},
	}
	for _, tt := range tests {
		r := get(t, e.base+"/Practitioner?"+tt.query)
		b := e.checkBundle(t, r)
		if tt.total < 0 && b.Total != nil || tt.total >= 0 && (b.Total == nil || *b.Total != tt.total) {
			t.Errorf("%s: total %v, want %d", tt.query, b.Total, tt.total)
		}
		if len(b.Entry) != tt.entries {
			t.Errorf("%s: %d entries, want %d", tt.query, len(b.Entry), tt.entries)
		}
		for _, en := range b.Entry {
			subsetted := strings.Contains(string(en.Resource), "SUBSETTED")
			if want := strings.Contains(tt.query, "_summary=true") || strings.Contains(tt.query, "_elements"); subsetted != want {
				t.Errorf("%s: SUBSETTED %v", tt.query, subsetted)
			}
			if strings.Contains(tt.query, "_elements=name") && strings.Contains(string(en.Resource), `"qualification"`) {
				t.Errorf("%s: returned qualification", tt.query)
			}
		}
	}
}

// TestPaging walks a search forward by next links, then back by previous links, and finds the
// same pages.
func TestPaging(t *testing.T) {
	e := sharedEnv(t)
	for _, sort := range []string{"", "_lastUpdated", "-_lastUpdated", "-_id"} {
		u := e.url("/Practitioner", "_count", "40", "_sort", sort)
		if sort == "" {
			u = e.url("/Practitioner", "_count", "40")
		}
		var pages [][]string
		var last bundle
		for u != "" {
			b := e.checkBundle(t, get(t, u))
			pages = append(pages, matchIDs(b))
			if len(pages) == 1 && b.link("previous") != "" {
				t.Errorf("%s: the first page has a previous link", sort)
			}
			last, u = b, b.link("next")
		}
		if len(pages) < 3 {
			t.Fatalf("%s: only %d pages", sort, len(pages))
		}
		for i := len(pages) - 2; i >= 0; i-- {
			prev := last.link("previous")
			if prev == "" {
				t.Fatalf("%s: page %d has no previous link", sort, i+1)
			}
			last = e.checkBundle(t, get(t, prev))
			if got := matchIDs(last); !slices.Equal(got, pages[i]) {
				t.Fatalf("%s: going back, page %d is %v, was %v", sort, i, head(got), head(pages[i]))
			}
			if next := last.link("next"); next == "" {
				t.Fatalf("%s: page %d reached backwards has no next link", sort, i)
			}
		}
		if last.link("previous") != "" {
			t.Errorf("%s: back at the first page, there is still a previous link", sort)
		}
	}
}

func matchIDs(b bundle) []string {
	var out []string
	for _, en := range b.Entry {
		if en.Search.Mode == "match" {
			out = append(out, idOf(en.Resource))
		}
	}
	return out
}

// TestIncludeCap checks that includes past the cap are announced, never dropped silently.
func TestIncludeCap(t *testing.T) {
	e := freshEnv(t, fhir.Config{MaxIncludes: 5})
	r := get(t, e.url("/PractitionerRole", "_count", "20", "_include", "PractitionerRole:practitioner", "_include", "PractitionerRole:location"))
	b := e.checkBundle(t, r)
	var included int
	var warned bool
	for _, en := range b.Entry {
		switch en.Search.Mode {
		case "include":
			included++
		case "outcome":
			warned = strings.Contains(string(en.Resource), `"code":"incomplete"`)
		}
	}
	if included != 5 || !warned {
		t.Errorf("%d included, warning %v; want 5 and a warning", included, warned)
	}
	// Under the cap there is no warning.
	b = e.checkBundle(t, get(t, e.url("/PractitionerRole", "_count", "2", "_include", "PractitionerRole:practitioner")))
	for _, en := range b.Entry {
		if en.Search.Mode == "outcome" {
			t.Errorf("warning under the cap: %s", en.Resource)
		}
	}
}

// TestSandbox checks that a sandbox grant sees the sandbox subset only, in searches, reads,
// includes and counts.
func TestSandbox(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	sandbox := []string{"X-Test-Sandbox", "1"}
	for _, typ := range fhirmap.Types {
		got := e.searchAll(t, e.url("/"+typ, "_count", "100"), sandbox...)
		var want int
		for _, r := range all[typ] {
			if r["__sandbox"] == true {
				want++
			}
		}
		if len(got.matches) != want || got.total == nil || int(*got.total) != want {
			t.Errorf("%s: sandbox search found %d (total %v), want %d", typ, len(got.matches), got.total, want)
		}
		for _, m := range got.matches {
			if all[typ][strings.TrimPrefix(m, typ+"/")]["__sandbox"] != true {
				t.Errorf("%s outside the sandbox", m)
			}
		}
		if typ == "Practitioner" && want != catalog.SandboxSize {
			t.Errorf("%d sandbox practitioners, want %d", want, catalog.SandboxSize)
		}
	}
	// The subset is the ingest's: the practitioners of the sandbox NPIs.
	snap, err := store.Serving(context.Background(), e.st)
	if err != nil {
		t.Fatal(err)
	}
	page, err := e.st.Find(context.Background(), store.Query{Collection: catalog.SandboxNPIs,
		Generation: snap.Generation(catalog.SandboxNPIs), Limit: store.MaxLimit})
	if err != nil || len(page.Docs) != catalog.SandboxSize {
		t.Fatalf("%d sandbox NPIs stored, want %d: %v", len(page.Docs), catalog.SandboxSize, err)
	}
	npis := map[string]bool{}
	for _, d := range page.Docs {
		npis[d.ID] = true
	}
	for id, r := range all["Practitioner"] {
		if npis[id] != (r["__sandbox"] == true) {
			t.Errorf("Practitioner/%s: in the sandbox %v, a sandbox NPI %v", id, r["__sandbox"] == true, npis[id])
		}
		status := get(t, e.url("/Practitioner/"+id), sandbox...).status
		if want := map[bool]int{true: 200, false: 404}[r["__sandbox"] == true]; status != want {
			t.Fatalf("sandbox read of Practitioner/%s: %d, want %d", id, status, want)
		}
	}
	got := e.searchAll(t, e.url("/PractitionerRole", "_count", "50", "_include", "PractitionerRole:organization", "_include", "PractitionerRole:practitioner"), sandbox...)
	for _, inc := range got.included {
		typ, id, _ := strings.Cut(inc, "/")
		if all[typ][id]["__sandbox"] != true {
			t.Errorf("sandbox include %s outside the sandbox", inc)
		}
	}
	if len(got.included) == 0 {
		t.Error("sandbox includes nothing")
	}
}

// TestSnapshotSwitch checks that paging survives one snapshot switch, that a resource removed by
// the new snapshot reads as 410, and that after a second switch the old pages answer 410.
func TestSnapshotSwitch(t *testing.T) {
	e := freshEnv(t, fhir.Config{SnapshotTTL: -1})
	_, next := drops(t)
	before := e.all(t)
	first := e.checkBundle(t, get(t, e.url("/Practitioner", "_count", "100")))
	link := first.link("next")
	ids := matchIDs(first)

	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: e.st, Dir: next, Reference: e.ref}); err != nil {
		t.Fatal(err)
	}
	// The search started on the old snapshot pages on through it.
	rest := e.searchAll(t, link)
	ids = append(ids, rest.matches...)
	if len(ids) != len(before["Practitioner"]) {
		t.Errorf("paged %d practitioners across the switch, the old snapshot has %d", len(ids), len(before["Practitioner"]))
	}

	deactivated := nextManifest.Changes.Deactivated
	if len(deactivated) == 0 {
		t.Fatal("the evolved drop deactivates nobody")
	}
	gone := 0
	for _, c := range deactivated {
		if before["Practitioner"][c.Key] == nil {
			continue
		}
		r := get(t, e.url("/Practitioner/"+c.Key))
		if r.status != http.StatusGone || decodeOutcome(t, r).Issue[0].Code != "deleted" {
			t.Errorf("deactivated Practitioner/%s: %d %s", c.Key, r.status, r.body)
		}
		gone++
	}
	if gone == 0 {
		t.Error("no deactivated practitioner to read")
	}
	if r := get(t, e.url("/Practitioner/1000000000")); r.status != http.StatusNotFound {
		t.Errorf("never-existing id: %d", r.status)
	}

	// A second switch collects the generation the old pages were on.
	if _, err := ingest.Run(ctx, ingest.Options{Store: e.st, Dir: next, Reference: e.ref, Force: true}); err != nil {
		t.Fatal(err)
	}
	r := get(t, link)
	if r.status != http.StatusGone {
		t.Fatalf("old page after two switches: %d %s", r.status, r.body)
	}
	decodeOutcome(t, r)
}
