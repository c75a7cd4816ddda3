package resolver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"providerdir/catalog"
	"providerdir/rest/apikey"
	"providerdir/rest/resolver"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/demostore"
)

// anIndividual is a registry record of the demo snapshot with a first, middle and last name.
func anIndividual(t *testing.T, st store.Store) stored.RegistryRecord {
	t.Helper()
	ctx := context.Background()
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	page, err := st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders),
		Where: []store.Condition{{Param: stored.KeyEntity, Values: []string{"individual"}}}, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range page.Docs {
		b, err := stored.DecodeBody[stored.RegistryRecord](d)
		if err != nil {
			t.Fatal(err)
		}
		if n := b.Record.Name; n != nil && n.Middle != "" && len(n.First) > 3 && len(n.Last) > 3 && b.Record.PracticeAddress.State != "" {
			return b.Record
		}
	}
	t.Fatal("no individual with a middle name in the demo snapshot")
	return stored.RegistryRecord{}
}

// GET /search: every status and code, the rate-limit fields on each, the provenance keys and
// _match_score on each candidate, and each response valid against the document.
func TestSearch(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	rec := anIndividual(t, d.Store)
	name := rec.Name.First + " " + rec.Name.Last
	q := func(params string) string { return "/resolver/v1/search?" + params }
	tests := []struct {
		name, path string
		status     int
		code       string
	}{
		{"name", q("q=" + url.QueryEscape(name)), 200, ""},
		{"narrowed", q("q=" + url.QueryEscape(name) + "&state=" + rec.PracticeAddress.State + "&taxonomy=" + rec.PrimaryTaxonomy + "&limit=5&page=1"), 200, ""},
		{"limit over the cap", q("q=" + url.QueryEscape(rec.Name.Last) + "&limit=1000"), 200, ""},
		{"page past the end", q("q=" + url.QueryEscape(name) + "&page=50"), 200, ""},
		{"no q", q("state=CA"), 400, resolver.CodeInvalidQuery},
		{"only initials", q("q=J+A"), 400, resolver.CodeInvalidQuery},
		{"q too long", q("q=" + strings.Repeat("a", 201)), 400, resolver.CodeInvalidQuery},
		{"bad state", q("q=smith&state=ZZ"), 400, resolver.CodeInvalidState},
		{"bad taxonomy", q("q=smith&taxonomy=nope"), 400, resolver.CodeInvalidTaxonomy},
		{"bad limit", q("q=smith&limit=0"), 400, resolver.CodeInvalidLimit},
		{"limit not a number", q("q=smith&limit=ten"), 400, resolver.CodeInvalidLimit},
		{"bad page", q("q=smith&page=51"), 400, resolver.CodeInvalidPage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, tt.path, key)
			if r.Status != tt.status || r.ErrorCode() != tt.code {
				t.Fatalf("%d %q, want %d %q: %.400s", r.Status, r.ErrorCode(), tt.status, tt.code, r.Raw)
			}
			rateLimitHeaders(t, tt.name, r)
			if tt.code != "" {
				return
			}
			results, _ := r.Body["results"].([]any)
			for _, c := range results {
				provenanceKeys(t, "candidate", c.(map[string]any))
			}
		})
	}
	// state and taxonomy narrow: every candidate is in the state and holds the taxonomy.
	narrowed := e.get(t, q("q="+url.QueryEscape(rec.Name.Last)+"&state="+rec.PracticeAddress.State+"&taxonomy="+rec.PrimaryTaxonomy+"&limit=100"), key)
	wide := e.get(t, q("q="+url.QueryEscape(rec.Name.Last)+"&limit=100"), key)
	if narrowed.Body["total"].(float64) < 1 || narrowed.Body["total"].(float64) > wide.Body["total"].(float64) {
		t.Errorf("narrowed total %v, unnarrowed %v", narrowed.Body["total"], wide.Body["total"])
	}
	for _, c := range narrowed.Body["results"].([]any) {
		if c.(map[string]any)["state"] != rec.PracticeAddress.State {
			t.Errorf("candidate outside state %s: %v", rec.PracticeAddress.State, c)
		}
	}
	if r := e.get(t, q("q=smith"), ""); r.Status != 401 || r.ErrorCode() != "invalid_key" {
		t.Errorf("no key: %d %q", r.Status, r.ErrorCode())
	}
}

// The cap, the echo and the paging: a page is at most 100, total counts every candidate, and
// the pages of a query are the ranked list cut in order.
func TestSearchPaging(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	rec := anIndividual(t, d.Store)
	base := "/resolver/v1/search?q=" + url.QueryEscape(rec.Name.Last[:1]+" "+rec.Name.Last)
	all := e.get(t, base+"&limit=1000", key)
	query := all.Body["query"].(map[string]any)
	if query["limit"] != float64(resolver.MaxSearchLimit) {
		t.Errorf("limit echoed %v, want the cap %d", query["limit"], resolver.MaxSearchLimit)
	}
	for _, k := range []string{"q", "state", "taxonomy", "limit", "page"} {
		if _, ok := query[k]; !ok {
			t.Errorf("the echo has no %q: %v", k, query)
		}
	}
	if query["state"] != nil || query["taxonomy"] != nil {
		t.Errorf("state and taxonomy not given, echoed %v and %v; want null", query["state"], query["taxonomy"])
	}
	given := e.get(t, base+"&state="+strings.ToLower(rec.PracticeAddress.State), key).Body["query"].(map[string]any)
	if given["state"] != rec.PracticeAddress.State || given["taxonomy"] != nil {
		t.Errorf("state given as %s: echoed state %v, taxonomy %v", rec.PracticeAddress.State, given["state"], given["taxonomy"])
	}
	total := int(all.Body["total"].(float64))
	results := all.Body["results"].([]any)
	if total < 1 || len(results) != min(total, resolver.MaxSearchLimit) {
		t.Fatalf("total %d, %d results", total, len(results))
	}
	var paged []any
	for p := 1; len(paged) < len(results); p++ {
		r := e.get(t, base+"&limit=10&page="+strconv.Itoa(p), key)
		if r.Body["total"] != all.Body["total"] {
			t.Fatalf("page %d: total %v, want %v", p, r.Body["total"], all.Body["total"])
		}
		page := r.Body["results"].([]any)
		if len(page) == 0 {
			t.Fatalf("page %d is empty after %d of %d results", p, len(paged), len(results))
		}
		paged = append(paged, page...)
	}
	for i := range paged {
		if paged[i].(map[string]any)["npi"] != results[i].(map[string]any)["npi"] {
			t.Fatalf("paged result %d is %v, the whole list has %v", i, paged[i], results[i])
		}
	}
	prev := 2.0
	for _, c := range results {
		s := c.(map[string]any)["_match_score"].(float64)
		if s > prev || s < 0 || s > 1 {
			t.Fatalf("scores out of order or range: %v after %v", s, prev)
		}
		prev = s
	}
}

// A one-word query within one edit of a registered family name finds the provider in its
// state through the name lexicon alone: with one word there is no other word to find it by.
func TestSearchOneWordTypoInState(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	rec := anIndividual(t, d.Store)
	last := strings.ToLower(rec.Name.Last)
	other := func(c byte) string {
		if c == 'q' {
			return "z"
		}
		return "q"
	}
	for _, tt := range []struct{ edit, q string }{
		{"deletion", last[:2] + last[3:]},
		{"insertion", last[:2] + "x" + last[2:]},
		{"substitution", last[:2] + other(last[2]) + last[3:]},
		{"transposition", last[:1] + last[2:3] + last[1:2] + last[3:]},
	} {
		if tt.q == last {
			continue // a transposition of two equal letters
		}
		r := e.get(t, "/resolver/v1/search?limit=100&state="+rec.PracticeAddress.State+"&q="+url.QueryEscape(tt.q), key)
		results, _ := r.Body["results"].([]any)
		found := slices.ContainsFunc(results, func(c any) bool { return c.(map[string]any)["npi"] == rec.NPI })
		if r.Status != 200 || !found {
			t.Errorf("%s %q of %q in %s: %d, %s not among %d results: %.300s", tt.edit, tt.q, last, rec.PracticeAddress.State, r.Status, rec.NPI, len(results), r.Raw)
		}
	}
}

// Each deformation of a registered name still finds the provider first, narrowed by state and
// taxonomy, or by taxonomy alone (without a state, a misspelt word is found through the
// query's other words).
func TestSearchDeformations(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	rec := anIndividual(t, d.Store)
	n := rec.Name
	typo := n.Last[:2] + n.Last[3:]
	for _, q := range []string{
		n.First + " " + n.Middle + " " + n.Last,
		n.Last + ", " + n.First,
		n.First[:1] + ". " + n.Middle + ". " + n.Last,
		strings.ToLower(n.First) + " " + typo,
		"Dr. " + n.First + " " + n.Last + ", MD",
		n.First + " " + n.Last[:1] + "'" + n.Last[1:],
		n.First + " " + strings.Replace(n.Last, "A", "Á", 1) + " " + strings.Replace(n.Last, "E", "É", 1)[:0],
	} {
		for _, narrow := range []string{"&state=" + rec.PracticeAddress.State + "&taxonomy=" + rec.PrimaryTaxonomy, "&taxonomy=" + rec.PrimaryTaxonomy} {
			r := e.get(t, "/resolver/v1/search?q="+url.QueryEscape(q)+narrow, key)
			results, _ := r.Body["results"].([]any)
			if r.Status != 200 || len(results) == 0 || results[0].(map[string]any)["npi"] != rec.NPI {
				t.Errorf("q=%q%s: %d, first of %d results is not %s: %.300s", q, narrow, r.Status, len(results), rec.NPI, r.Raw)
			}
		}
	}
}

// queryLog is a store that keeps the queries of every Find it answers.
type queryLog struct {
	store.Store
	mu      sync.Mutex
	queries []store.Query
}

func (l *queryLog) Find(ctx context.Context, q store.Query) (store.Page, error) {
	l.mu.Lock()
	l.queries = append(l.queries, q)
	l.mu.Unlock()
	return l.Store.Find(ctx, q)
}

// A search by name reads the registry records and the name lexicon's words without their search
// keys, which the ranking never looks at: the store returns bodies alone (store.Query.BodiesOnly).
func TestSearchReadsBodies(t *testing.T) {
	d := demostore.Open(t)
	st := &queryLog{Store: d.Store}
	e := newEnv(t, st)
	key := e.Key(t, apikey.TierPro)
	rec := anIndividual(t, d.Store)
	typo := rec.Name.Last[:1] + rec.Name.Last[2:] // a letter left out: the lexicon is read
	for _, q := range []string{rec.Name.First + " " + rec.Name.Last, rec.Name.First + " " + typo, "family medicine"} {
		st.mu.Lock()
		st.queries = nil
		st.mu.Unlock()
		if r := e.get(t, "/resolver/v1/search?q="+url.QueryEscape(q), key); r.Status != 200 {
			t.Fatalf("%q: status %d", q, r.Status)
		}
		st.mu.Lock()
		read := 0
		for _, sq := range st.queries {
			if sq.Collection != catalog.RegistryProviders && sq.Collection != catalog.RegistryNameWords {
				continue
			}
			read++
			if !sq.BodiesOnly {
				t.Errorf("%q: %s read with its keys (%d conditions)", q, sq.Collection, len(sq.Where))
			}
		}
		st.mu.Unlock()
		if read == 0 {
			t.Errorf("%q: no registry read", q)
		}
	}
}

// Whether records hold a query's words is read once per generation: the same search again asks
// the store about none of them, and answers the same.
func TestSearchWordsCached(t *testing.T) {
	d := demostore.Open(t)
	st := &queryLog{Store: d.Store}
	e := newEnv(t, st)
	key := e.Key(t, apikey.TierPro)
	rec := anIndividual(t, d.Store)
	path := "/resolver/v1/search?q=" + url.QueryEscape(rec.Name.First+rec.Name.Last[:1]+" "+rec.Name.Last[1:]) // a split and a join to try
	lookups := func() (n int) {
		st.mu.Lock()
		defer st.mu.Unlock()
		for _, q := range st.queries {
			if q.Collection == catalog.RegistryProviders && q.Limit == 1 {
				n++
			}
		}
		st.queries = nil
		return n
	}
	first := e.get(t, path, key)
	if n := lookups(); first.Status != 200 || n == 0 {
		t.Fatalf("first search: status %d, %d word lookups", first.Status, n)
	}
	again := e.get(t, path, key)
	if n := lookups(); again.Status != 200 || n != 0 {
		t.Errorf("the same search again: status %d, %d word lookups", again.Status, n)
	}
	var a, b resolver.SearchResult
	if err := errors.Join(json.Unmarshal(first.Raw, &a), json.Unmarshal(again.Raw, &b)); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(a.Results, b.Results, func(x, y resolver.Candidate) bool { return x.NPI == y.NPI && x.MatchScore == y.MatchScore }) {
		t.Errorf("the same search answered %d results, then %d others", len(a.Results), len(b.Results))
	}
}
