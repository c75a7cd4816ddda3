package resolver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/match/queryset"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/demostore"
)

// benchNPIs are the first n NPIs of the demo registry.
func benchNPIs(b *testing.B, st store.Store, n int) []string {
	b.Helper()
	snap, err := store.Serving(b.Context(), st)
	if err != nil {
		b.Fatal(err)
	}
	page, err := st.Find(b.Context(), store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders), Limit: n})
	if err != nil {
		b.Fatal(err)
	}
	out := make([]string, 0, n)
	for _, d := range page.Docs {
		var body stored.Body[stored.RegistryRecord]
		if err := stored.DecodeJSON(d.Body, &body); err != nil {
			b.Fatal(err)
		}
		out = append(out, body.Record.NPI)
	}
	return out
}

// send posts or gets over the loopback listener and fails on anything but 200. Every 40,000
// requests the gate's clock moves an hour on, so the Pro budget never binds.
func (e *env) send(b *testing.B, i int, req func() *http.Request) {
	if i%40000 == 39999 {
		e.clock.Advance(time.Hour)
	}
	resp, err := http.DefaultClient.Do(req())
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

// POST /batch/npi with 1,000 NPIs of the demo registry, over real HTTP.
func BenchmarkBatch1000(b *testing.B) {
	d := demostore.Open(b)
	e := newEnv(b, d.Store)
	key := e.Key(b, apikey.TierPro)
	body, _ := json.Marshal(map[string]any{"npis": benchNPIs(b, d.Store, 1000)})
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		e.send(b, i, func() *http.Request {
			req, _ := http.NewRequest(http.MethodPost, e.URL+"/resolver/v1/batch/npi", bytes.NewReader(body))
			req.Header.Set(gate.HeaderServiceKey, key)
			return req
		})
	}
}

// GET /npi/{npi}?include=facts over real HTTP.
func BenchmarkNPIFacts(b *testing.B) {
	d := demostore.Open(b)
	e := newEnv(b, d.Store)
	key := e.Key(b, apikey.TierPro)
	npis := benchNPIs(b, d.Store, 1000)
	for i := 0; b.Loop(); i++ {
		e.send(b, i, func() *http.Request {
			req, _ := http.NewRequest(http.MethodGet, e.URL+"/resolver/v1/npi/"+npis[i%len(npis)]+"?include=facts", nil)
			req.Header.Set(gate.HeaderServiceKey, key)
			return req
		})
	}
}

// GET /search over real HTTP for each query of the demo drop's labelled query set in turn:
// names deformed as callers deform them, typos among them (whose words select by the lexicon's
// words within one edit, beside a first name's postings).
func BenchmarkSearchLabelled(b *testing.B) {
	d := demostore.Open(b)
	e := newEnv(b, d.Store)
	key := e.Key(b, apikey.TierPro)
	qs, err := queryset.Build(d.Drop, 1000, 7)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		v := url.Values{"q": {q.Q}, "limit": {"10"}, "state": {q.State}, "taxonomy": {q.Taxonomy}}
		e.send(b, i, func() *http.Request {
			req, _ := http.NewRequest(http.MethodGet, e.URL+"/resolver/v1/search?"+v.Encode(), nil)
			req.Header.Set(gate.HeaderServiceKey, key)
			return req
		})
	}
}
