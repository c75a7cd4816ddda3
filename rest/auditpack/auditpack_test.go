package auditpack_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"providerdir/rest/auditpack"
	"providerdir/rest/export"
	"providerdir/testing/backends"
	"providerdir/testing/demostore"
	"providerdir/testing/packserver"
)

func TestMain(m *testing.M) { demostore.Main(m) }

func demo(tb testing.TB) *packserver.Env {
	return packserver.Open(tb, demostore.Open(tb).Store, export.Options{})
}

var version = regexp.MustCompile(`^v[0-9]{4}\.(0[1-9]|1[0-2])\.[1-9][0-9]*$`)

// decodePack reads the pack of an envelope.
func decodePack(t *testing.T, raw []byte) auditpack.Pack {
	t.Helper()
	var env struct {
		Data auditpack.Pack `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

// The catalog lists sixteen packs, twelve specialty supply studies and four facility studies,
// each with its version, cadence and the three links, which answer.
func TestCatalog(t *testing.T) {
	e := demo(t)
	key := e.Key(t)
	r := e.Get(t, "/v1/audit-pack", key)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	var env struct {
		Data []auditpack.Entry `json:"data"`
	}
	if err := json.Unmarshal(r.Raw, &env); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, en := range env.Data {
		kinds[en.Kind]++
		if !version.MatchString(en.MethodologyVersion) || en.RefreshCadence == "" {
			t.Errorf("%s: version %q cadence %q", en.DatasetSlug, en.MethodologyVersion, en.RefreshCadence)
		}
		for _, link := range []string{en.Links.JSON, en.Links.PDF, en.Links.Web} {
			if !strings.HasPrefix(link, e.URL+"/") || !strings.Contains(link, en.DatasetSlug) {
				t.Errorf("%s: link %q", en.DatasetSlug, link)
			}
		}
		if got := e.Get(t, strings.TrimPrefix(en.Links.JSON, e.URL), ""); got.Status != 200 {
			t.Errorf("%s: %d", en.Links.JSON, got.Status)
		}
	}
	if len(env.Data) != 16 || kinds["specialty_supply_study"] != 12 || kinds["facility_quality_study"] != 4 {
		t.Errorf("%d packs, kinds %v", len(env.Data), kinds)
	}
	if !reflect.DeepEqual(env.Data, e.Packs.Catalog()) {
		t.Error("the served catalog differs from Service.Catalog")
	}
}

// Every pack has the envelope's parts: schema 1.0, the methodology version, a provenance entry
// for every field of the state figures, steps, limitations, a version history ending at the
// served version and the compliance Q&A. The service host serves the same pack without a key.
func TestEveryPack(t *testing.T) {
	e := demo(t)
	key := e.Key(t)
	for _, slug := range auditpack.Slugs() {
		t.Run(slug, func(t *testing.T) {
			r := e.Get(t, "/v1/audit-pack/"+slug, key)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Raw)
			}
			p := decodePack(t, r.Raw)
			if p.SchemaVersion != "1.0" || p.DatasetSlug != slug || !version.MatchString(p.MethodologyVersion) {
				t.Errorf("schema %q slug %q version %q", p.SchemaVersion, p.DatasetSlug, p.MethodologyVersion)
			}
			if len(p.Figures.States) != 51 {
				t.Fatalf("%d states", len(p.Figures.States))
			}
			var fields map[string]any
			row, _ := json.Marshal(p.Figures.States[0])
			_ = json.Unmarshal(row, &fields)
			for f := range fields {
				if _, ok := p.Provenance[f]; !ok {
					t.Errorf("field %s has no provenance", f)
				}
			}
			for f, pr := range p.Provenance {
				if pr.Derivation == "" || (pr.Source != "computed" && (pr.SourceURL == "" || pr.Snapshot == "" || pr.Confidence == nil)) {
					t.Errorf("provenance of %s: %+v", f, pr)
				}
			}
			if len(p.Reproducibility.Steps) < 5 || len(p.Reproducibility.Files) != 2 || len(p.Limitations) == 0 || len(p.Compliance) < 5 {
				t.Errorf("steps %d files %d limitations %d compliance %d", len(p.Reproducibility.Steps), len(p.Reproducibility.Files), len(p.Limitations), len(p.Compliance))
			}
			if h := p.VersionHistory; len(h) == 0 || h[len(h)-1].Version != p.MethodologyVersion {
				t.Errorf("version history %v does not end at %s", h, p.MethodologyVersion)
			}
			pub := e.Get(t, "/api/audit-pack/"+slug+"/json", "")
			if pub.Status != 200 {
				t.Fatalf("/api json: %d %s", pub.Status, pub.Raw)
			}
			if !reflect.DeepEqual(decodePack(t, pub.Raw), p) {
				t.Error("the service host's pack differs from /v1's")
			}
			built, err := e.Packs.Build(context.Background(), slug)
			if err != nil || !reflect.DeepEqual(roundTrip(t, built), p) {
				t.Errorf("Service.Build differs from the served pack (%v)", err)
			}
			if meta, _ := pub.Body["meta"].(map[string]any); meta["api_version"] != "v1" || meta["methodology_url"] != p.MethodologyURL {
				t.Errorf("/api meta %v", meta)
			}
		})
	}
}

// Each error, on /v1 in its envelope and on the service host in its own.
func TestPackErrors(t *testing.T) {
	e := demo(t)
	bare := packserver.Open(t, backends.Embedded(t), export.Options{})
	for _, tt := range []struct {
		env    *packserver.Env
		path   string
		key    bool
		status int
		code   string
	}{
		{e, "/v1/audit-pack/chiropractor-supply", true, 404, auditpack.CodeAuditPackNotFound},
		{e, "/v1/audit-pack/cardiology", true, 404, auditpack.CodeAuditPackNotFound},
		{e, "/v1/audit-pack", false, 401, "missing_api_key"},
		{e, "/v1/audit-pack/cardiology-supply", false, 401, "missing_api_key"},
		{e, "/api/audit-pack/nope/json", false, 404, auditpack.CodeAuditPackNotFound},
		{e, "/api/audit-pack/chiropractor-supply/pdf", false, 404, auditpack.CodeAuditPackNotFound},
		{bare, "/v1/audit-pack/cardiology-supply", true, 404, auditpack.CodeDatasetNotLoaded},
		{bare, "/api/audit-pack/hospice-availability/json", false, 404, auditpack.CodeDatasetNotLoaded},
		{bare, "/api/audit-pack/hospice-availability/pdf", false, 404, auditpack.CodeDatasetNotLoaded},
	} {
		k := ""
		if tt.key {
			k = tt.env.Key(t)
		}
		r := tt.env.Get(t, tt.path, k)
		if r.Status != tt.status || r.ErrorCode() != tt.code {
			t.Errorf("%s: %d %q, want %d %s", tt.path, r.Status, r.ErrorCode(), tt.status, tt.code)
		}
	}
	// The catalog is what is published: it answers without data loaded.
	if r := bare.Get(t, "/v1/audit-pack", bare.Key(t)); r.Status != 200 {
		t.Errorf("catalog over an empty store: %d", r.Status)
	}
}

// The service host limits the public forms per client address: 100 an hour, then 429 with
// Retry-After.
func TestPublicLimit(t *testing.T) {
	e := demo(t)
	for i := range 100 {
		if r := e.Get(t, "/api/audit-pack/dialysis-quality/json", ""); r.Status != 200 {
			t.Fatalf("request %d: %d", i+1, r.Status)
		}
	}
	r := e.Get(t, "/api/audit-pack/dialysis-quality/pdf", "")
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("request 101: %d, Retry-After %q", r.Status, r.Header.Get("Retry-After"))
	}
}

// roundTrip is a pack as a client decodes it.
func roundTrip(t *testing.T, p auditpack.Pack) auditpack.Pack {
	t.Helper()
	b, err := json.Marshal(map[string]any{"data": p})
	if err != nil {
		t.Fatal(err)
	}
	return decodePack(t, b)
}
