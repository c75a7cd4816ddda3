package supply_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/supply"
	"providerdir/store"
	"providerdir/testing/backends"
)

const base = "https://directory.example.org"

// serve runs the supply API with the real router and middleware on a loopback server over an
// embedded store in a temporary directory.
func serve(t *testing.T, s store.Store) *httptest.Server {
	t.Helper()
	h, err := httpserver.New(httpserver.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: []httpserver.Surface{
			{Name: "v1", Prefix: "/v1", Error: rest.V1Error, Routes: supply.New(s, base+"/").Routes},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url, requestID string) (int, http.Header, any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("X-Request-ID", requestID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	return resp.StatusCode, resp.Header, body
}

// asJSON turns a Go literal into what decoding its JSON gives, for exact comparison.
func asJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

type obj = map[string]any

func TestHealthWithoutManifests(t *testing.T) {
	srv := serve(t, backends.Embedded(t))
	status, header, body := get(t, srv.URL+"/v1/health", "h-1")
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	if ct := header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	want := asJSON(obj{
		"data": obj{"status": "ok", "uptime_target": "99.9%", "sources": []any{}},
		"meta": obj{
			"request_id":      "h-1",
			"api_version":     "v1",
			"data_freshness":  []any{},
			"methodology_url": base + "/docs/methodology",
			"limitations_url": base + "/docs/limitations",
		},
	})
	if !reflect.DeepEqual(body, want) {
		t.Fatalf("envelope\n got %v\nwant %v", body, want)
	}
}

func TestHealthListsEveryManifest(t *testing.T) {
	s := backends.Embedded(t)
	finished := time.Date(2025, 6, 8, 14, 30, 0, 123456789, time.UTC)
	serveManifests(t, s, []catalog.Manifest{
		{Family: "nppes", DatasetID: "nppes", Source: "CMS NPPES NPI Registry", SourceURL: "https://download.cms.gov/nppes/NPI_Files.html",
			Snapshot: "2025-06-08", Cadence: "monthly", Rows: 2000, Rejected: 3, FinishedAt: finished},
		{Family: "leie", DatasetID: "oig_leie_exclusions", Source: "HHS OIG LEIE",
			Snapshot: "2025-05-31", Cadence: "irregular", Rows: 50, Rejected: 0, FinishedAt: finished.Add(-time.Hour)},
	})
	srv := serve(t, s)
	status, _, body := get(t, srv.URL+"/v1/health", "h-2")
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	want := asJSON(obj{
		"data": obj{"status": "ok", "uptime_target": "99.9%", "sources": []any{
			// ordered by family
			obj{"family": "leie", "source": "HHS OIG LEIE", "dataset_id": "oig_leie_exclusions", "snapshot": "2025-05-31",
				"last_refreshed": "2025-06-08T13:30:00Z", "rows": 50, "rejected_rows": 0, "cadence": "irregular"},
			obj{"family": "nppes", "source": "CMS NPPES NPI Registry", "source_url": "https://download.cms.gov/nppes/NPI_Files.html",
				"dataset_id": "nppes", "snapshot": "2025-06-08",
				"last_refreshed": "2025-06-08T14:30:00Z", "rows": 2000, "rejected_rows": 3, "cadence": "monthly"},
		}},
		"meta": obj{
			"request_id":  "h-2",
			"api_version": "v1",
			"data_freshness": []any{
				obj{"source": "HHS OIG LEIE", "last_refreshed": "2025-06-08T13:30:00Z", "next_refresh_eta": nil, "cadence": "irregular"},
				obj{"source": "CMS NPPES NPI Registry", "last_refreshed": "2025-06-08T14:30:00Z", "next_refresh_eta": "2025-07-08T14:30:00Z", "cadence": "monthly"},
			},
			"methodology_url": base + "/docs/methodology",
			"limitations_url": base + "/docs/limitations",
		},
	})
	if !reflect.DeepEqual(body, want) {
		got, _ := json.MarshalIndent(body, "", "  ")
		exp, _ := json.MarshalIndent(want, "", "  ")
		t.Fatalf("envelope\n got %s\nwant %s", got, exp)
	}
}

func TestHealthStoreUnavailable(t *testing.T) {
	s := backends.Embedded(t)
	srv := serve(t, s)
	_ = s.Close() // every read now fails with store.ErrClosed
	status, _, body := get(t, srv.URL+"/v1/health", "h-3")
	if status != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", status)
	}
	data := body.(map[string]any)["data"].(map[string]any)
	if data["status"] != "unavailable" || len(data["sources"].([]any)) != 0 {
		t.Fatalf("data %v", data)
	}
}

func TestHealthMethods(t *testing.T) {
	srv := serve(t, backends.Embedded(t))
	resp, err := http.Head(srv.URL + "/v1/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Post(srv.URL+"/v1/health", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("POST: %d allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestMethodologyURL(t *testing.T) {
	if got := supply.New(nil, base+"/").MethodologyURL("nppes"); got != base+"/v1/methodology/nppes" {
		t.Fatalf("MethodologyURL = %q", got)
	}
}

// serveManifests makes ms the serving manifests the way an ingest leaves them: one document per
// family in the manifests collection of a generation, switched to.
func serveManifests(t *testing.T, s store.Store, ms []catalog.Manifest) {
	t.Helper()
	ctx := context.Background()
	gen, err := store.NewGeneration(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var docs []store.Document
	for _, m := range ms {
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, store.Document{ID: m.Family, Body: body})
	}
	if err := s.Put(ctx, gen, catalog.ManifestCollection, docs); err != nil {
		t.Fatal(err)
	}
	cur, err := store.Serving(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Switch(ctx, s, cur, map[string]string{catalog.ManifestCollection: gen}, "test"); err != nil {
		t.Fatal(err)
	}
}
