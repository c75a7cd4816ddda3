package resolver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"providerdir/catalog"
	"providerdir/rest/apikey"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/demostore"
)

// partialSnapshot serves a snapshot holding only registry documents: the demo's record of npi,
// and a document under corrupt whose body is not a record.
func partialSnapshot(t *testing.T, npi, corrupt string) store.Store {
	t.Helper()
	ctx := context.Background()
	demo := demostore.Open(t).Store
	snap, err := store.Serving(ctx, demo)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := demo.Get(ctx, snap.Generation(catalog.RegistryProviders), catalog.RegistryProviders, npi)
	if err != nil {
		t.Fatal(err)
	}
	st := backends.Embedded(t)
	gen, err := store.NewGeneration(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	docs := []store.Document{doc, {ID: corrupt, Body: []byte(`{"record":`)}}
	if err := st.Put(ctx, gen, catalog.RegistryProviders, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Switch(ctx, st, store.Snapshot{}, map[string]string{catalog.RegistryProviders: gen}, "registry only"); err != nil {
		t.Fatal(err)
	}
	return st
}

// With the registry loaded and no enrollment file or exclusion list, nothing is known of
// enrollment or exclusion: pecos_enrolled is left out and facts is empty, never false. A stored
// record the resolver cannot read is 500 internal_error quoting the request id.
func TestPartialSnapshot(t *testing.T) {
	f := demoFixtures(t, demostore.Open(t).Store)
	const corrupt = "1234567893"
	e := newEnv(t, partialSnapshot(t, f.enrolled, corrupt))
	key := e.Key(t, apikey.TierPro)

	r := e.get(t, "/resolver/v1/npi/"+f.enrolled+"?include=facts", key)
	if r.Status != 200 || r.Body["npi"] != f.enrolled {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if v, ok := r.Body["pecos_enrolled"]; ok {
		t.Errorf("pecos_enrolled %v without an enrollment file, want it left out", v)
	}
	if facts, _ := r.Body["facts"].([]any); facts == nil || len(facts) != 0 {
		t.Errorf("facts %v without the fact sources, want []", r.Body["facts"])
	}
	provenanceKeys(t, "record", r.Body)

	for _, r := range []response{
		e.get(t, "/resolver/v1/npi/"+corrupt, key),
		e.do(t, http.MethodPost, "/resolver/v1/batch/npi", key, []byte(`{"npis":["`+f.enrolled+`","`+corrupt+`"]}`)),
	} {
		msg, _ := r.Body["error"].(map[string]any)["message"].(string)
		if r.Status != 500 || r.ErrorCode() != "internal_error" || !strings.Contains(msg, r.Header.Get("X-Request-ID")) {
			t.Errorf("corrupt record: %d %q %q", r.Status, r.ErrorCode(), msg)
		}
		rateLimitHeaders(t, "500", r)
	}
}
