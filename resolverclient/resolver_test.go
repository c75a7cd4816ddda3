package resolverclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"providerdir/resolverclient"
	"providerdir/rest/apikey"
	"providerdir/stored"
	"providerdir/testing/demostore"
	"providerdir/testing/resolverserver"
)

func TestMain(m *testing.M) { demostore.Main(m) }

// live is the resolver on the demo snapshot with a client holding a real key.
type live struct {
	srv *resolverserver.Server
	key string
	c   *resolverclient.Client
	f   resolverserver.Fixtures
}

func startLive(t *testing.T) live {
	t.Helper()
	d := demostore.Open(t)
	srv := resolverserver.Start(t, d.Store)
	key := srv.Key(t, apikey.TierPro)
	c, err := resolverclient.New(srv.URL, resolverclient.Options{APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return live{srv: srv, key: key, c: c, f: resolverserver.Find(t, d.Store)}
}

// provenanceOf is the 14 provenance keys of a JSON object.
func provenanceOf(t *testing.T, o map[string]any) map[string]any {
	t.Helper()
	p := map[string]any{}
	for _, k := range stored.ProvenanceKeys {
		v, ok := o[k]
		if !ok {
			t.Errorf("provenance key %s missing", k)
		}
		p[k] = v
	}
	return p
}

// asMap is v encoded and decoded as a JSON object.
func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Against the real resolver on a real store, each path the resolver serves decodes into the
// typed result whole: the result encodes to the resolver's own body, provenance included; and
// the raw answer is that body.
func TestLiveRecords(t *testing.T) {
	l := startLive(t)
	ctx := context.Background()
	search := resolverclient.SearchParams{Q: l.f.OrganizationName, State: l.f.OrganizationState, Limit: 10}
	batch := []string{l.f.Enrolled, l.f.Absent, "1"}
	tests := []struct {
		name, method, path, body string
		call                     func() (any, error)
		raw                      func() (json.RawMessage, error)
	}{
		{"npi", "GET", "/npi/" + l.f.Enrolled, "",
			func() (any, error) { return l.c.NPI(ctx, l.f.Enrolled) },
			func() (json.RawMessage, error) { return l.c.NPIRaw(ctx, l.f.Enrolled) }},
		{"npi with facts", "GET", "/npi/" + l.f.Excluded + "?include=facts", "",
			func() (any, error) { return l.c.NPIWithFacts(ctx, l.f.Excluded) },
			func() (json.RawMessage, error) { return l.c.NPIWithFactsRaw(ctx, l.f.Excluded) }},
		{"ccn", "GET", "/ccn/" + l.f.CCN, "",
			func() (any, error) { return l.c.CCN(ctx, l.f.CCN) },
			func() (json.RawMessage, error) { return l.c.CCNRaw(ctx, l.f.CCN) }},
		{"batch", "POST", "/batch/npi", `{"npis":["` + strings.Join(batch, `","`) + `"]}`,
			func() (any, error) { return l.c.BatchNPI(ctx, batch) },
			func() (json.RawMessage, error) { return l.c.BatchNPIRaw(ctx, batch) }},
		{"search", "GET", "/search?" + url.Values{"q": {search.Q}, "state": {search.State}, "limit": {"10"}}.Encode(), "",
			func() (any, error) { return l.c.Search(ctx, search) },
			func() (json.RawMessage, error) { return l.c.SearchRaw(ctx, search) }},
		{"quality", "GET", "/quality/" + l.f.QualityType + "/" + l.f.QualityCCN, "",
			func() (any, error) { return l.c.Quality(ctx, l.f.QualityType, l.f.QualityCCN) },
			func() (json.RawMessage, error) { return l.c.QualityRaw(ctx, l.f.QualityType, l.f.QualityCCN) }},
		{"payments", "GET", "/payments/" + l.f.Paid, "",
			func() (any, error) { return l.c.Payments(ctx, l.f.Paid) },
			func() (json.RawMessage, error) { return l.c.PaymentsRaw(ctx, l.f.Paid) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := l.srv.Raw(t, l.key, tt.method, tt.path, tt.body)
			got, err := tt.call()
			if err != nil {
				t.Fatal(err)
			}
			if m := asMap(t, got); !reflect.DeepEqual(m, want) {
				t.Errorf("decoded and encoded again:\n%v\nthe resolver's body:\n%v", m, want)
			}
			raw, err := tt.raw()
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil || !reflect.DeepEqual(m, want) {
				t.Errorf("raw answer %s (%v), want the resolver's body %v", raw, err, want)
			}
		})
	}
}

// The published sandbox key is fetched without a key of one's own, and it opens the resolver.
func TestLiveSandbox(t *testing.T) {
	l := startLive(t)
	anonymous, err := resolverclient.New(l.srv.URL, resolverclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := anonymous.Sandbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Tier != "sandbox" || s.Limits.RequestsPerHour != 100 || s.Limits.BatchMaxNPIs != resolverclient.MaxBatch {
		t.Errorf("sandbox %+v, want the sandbox tier's 100 requests an hour and batches of %d", s, resolverclient.MaxBatch)
	}
	c, err := resolverclient.New(l.srv.URL, resolverclient.Options{APIKey: s.Key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.NPI(context.Background(), l.f.Enrolled); err != nil {
		t.Errorf("the sandbox key does not open the resolver: %v", err)
	}
}

// The facts keep their own provenance, and a listed NPI's exclusion fact is true.
func TestLiveFacts(t *testing.T) {
	l := startLive(t)
	p, err := l.c.NPIWithFacts(context.Background(), l.f.Excluded)
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Fact(resolverclient.FactExclusion)
	if ex == nil || string(ex.Value) != "true" {
		t.Fatalf("exclusion fact %+v, want true", ex)
	}
	provenanceOf(t, asMap(t, ex))
	if p.Fact("no_such_fact") != nil {
		t.Error("a fact type the record lacks was found")
	}
}

// The resolver's errors arrive as *Error with its code, message and request id, after one
// attempt: none of them is retried.
func TestLiveErrors(t *testing.T) {
	l := startLive(t)
	ctx := context.Background()
	badKey, err := resolverclient.New(l.srv.URL, resolverclient.Options{APIKey: "pdlive_notakey"})
	if err != nil {
		t.Fatal(err)
	}
	tooMany := make([]string, resolverclient.MaxBatch+1)
	for i := range tooMany {
		tooMany[i] = l.f.Enrolled
	}
	tests := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"malformed npi", func() error { _, err := l.c.NPI(ctx, "12345"); return err }, 400, "invalid_npi"},
		{"unknown npi", func() error { _, err := l.c.NPIWithFacts(ctx, l.f.Absent); return err }, 404, "not_found"},
		{"malformed ccn", func() error { _, err := l.c.CCN(ctx, "05-001"); return err }, 400, "invalid_ccn"},
		{"unknown ccn", func() error { _, err := l.c.CCN(ctx, l.f.UnknownCCN); return err }, 404, "not_found"},
		{"batch too large", func() error { _, err := l.c.BatchNPI(ctx, tooMany); return err }, 400, "batch_too_large"},
		{"unknown key", func() error { _, err := badKey.NPI(ctx, l.f.Enrolled); return err }, 401, "invalid_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e *resolverclient.Error
			if err := tt.call(); !errors.As(err, &e) {
				t.Fatalf("error %v, want *Error", err)
			}
			if e.Status != tt.status || e.Code != tt.code || e.Message == "" || e.RequestID == "" || e.Attempts != 1 {
				t.Errorf("%+v, want %d %s with message and request id after one attempt", e, tt.status, tt.code)
			}
		})
	}
}
