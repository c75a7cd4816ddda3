package resolver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/rest/apikey"
	"providerdir/rest/resolver"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/demostore"
	"providerdir/testing/storecontract"
)

// registryNPIs are the first n NPIs of the registry, read off the store.
func registryNPIs(tb testing.TB, st store.Store, n int) []string {
	tb.Helper()
	snap, err := store.Serving(tb.Context(), st)
	if err != nil {
		tb.Fatal(err)
	}
	page, err := st.Find(tb.Context(), store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders), Limit: n})
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]string, 0, n)
	for _, d := range page.Docs {
		out = append(out, d.ID)
	}
	return out
}

// expectedProvider is the provider record of an NPI built from the whole stored registry record
// and the enrollment file, read off the store, encoded as a response encodes it.
func expectedProvider(tb testing.TB, st store.Store, npi string) []byte {
	tb.Helper()
	ctx := tb.Context()
	snap, err := store.Serving(ctx, st)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := st.Get(ctx, snap.Generation(catalog.RegistryProviders), catalog.RegistryProviders, npi)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := stored.DecodeBody[stored.RegistryRecord](d)
	if err != nil {
		tb.Fatal(err)
	}
	rec := b.Record
	p := resolver.Provider{NPI: rec.NPI, EntityType: rec.EntityType, OrganizationName: rec.OrganizationName, Name: rec.Name,
		PrimaryTaxonomy: rec.PrimaryTaxonomy, EnumerationDate: rec.EnumerationDate,
		Address:    resolver.Address{City: rec.PracticeAddress.City, State: rec.PracticeAddress.State, PostalCode: rec.PracticeAddress.PostalCode},
		Provenance: b.Provenance}
	if gen := snap.Generation(catalog.Enrollments); gen != "" {
		n, err := st.Count(ctx, store.Query{Collection: catalog.Enrollments, Generation: gen,
			Where: []store.Condition{{Param: stored.KeyNPI, Values: []string{npi}}}})
		if err != nil {
			tb.Fatal(err)
		}
		enrolled := n > 0
		p.PecosEnrolled = &enrolled
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// A batch answers each NPI with the bytes of the provider record built from the whole stored
// record, and the same bytes GET /npi/{npi} answers; and it reads the registry in one store call
// whatever its size, never a read per NPI.
func TestBatchRecords(t *testing.T) {
	d := demostore.Open(t)
	f := demoFixtures(t, d.Store)
	st := &storecontract.Counting{Store: d.Store}
	e := newEnv(t, st)
	key := e.Key(t, apikey.TierPro)
	tests := []struct {
		name string
		npis []string
	}{
		{"one", []string{f.enrolled}},
		{"enrolled, not enrolled, excluded, repeated", []string{f.enrolled, f.notEnrolled, f.excluded, f.enrolled}},
		{"absent and failing the check digit among them", []string{f.absent, f.enrolled, f.badCheckDigit}},
		{"entries that are no NPI among them", []string{"1", f.enrolled, "../npi", "", "１２３４５６７８９３", f.excluded, "12345678931"}},
		{"a full batch", registryNPIs(t, d.Store, resolver.MaxBatch)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"npis": tt.npis})
			gets, getMany, bodies := st.Gets.Load(), st.GetManys.Load(), st.GetBodiesCalls.Load()
			r := e.do(t, http.MethodPost, "/resolver/v1/batch/npi", key, body)
			if r.Status != http.StatusOK {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := st.Gets.Load() - gets + st.GetManys.Load() - getMany + st.GetBodiesCalls.Load() - bodies; n != 1 {
				t.Errorf("the batch read records by id in %d store calls, want 1", n)
			}
			var got struct {
				Results []json.RawMessage `json:"results"`
			}
			if err := json.Unmarshal(r.Raw, &got); err != nil || len(got.Results) != len(tt.npis) {
				t.Fatalf("%d results for %d NPIs (%v)", len(got.Results), len(tt.npis), err)
			}
			for i, npi := range tt.npis {
				if npi == f.absent || npi == f.badCheckDigit || ident.ValidateNPI(npi) != nil {
					if string(got.Results[i]) != "null" {
						t.Errorf("results[%d] = %s, want null", i, got.Results[i])
					}
					continue
				}
				if want := expectedProvider(t, d.Store, npi); !bytes.Equal(got.Results[i], want) {
					t.Fatalf("results[%d]:\n got %s\nwant %s", i, got.Results[i], want)
				}
				if i < 4 {
					single := e.get(t, "/resolver/v1/npi/"+npi, key)
					if !bytes.Equal(bytes.TrimSuffix(single.Raw, []byte("\n")), got.Results[i]) {
						t.Errorf("GET /npi/%s:\n%s\nbatch:\n%s", npi, single.Raw, got.Results[i])
					}
				}
			}
		})
	}
}
