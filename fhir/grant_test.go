package fhir_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/fhir"
	"providerdir/store"
	"providerdir/testing/backends"
)

// readOnly is a grant of another issuer than SMART: it allows reads of the types it lists and no
// search, and is never sandboxed.
type readOnly map[string]bool

func (g readOnly) Allows(resourceType string, i catalog.Interaction) bool {
	return i == catalog.Read && g[resourceType]
}

func (readOnly) Sandboxed() bool { return false }

type grantKey struct{}

// The surface asks only the Grant interface, through Config.GrantFrom: a grant of any issuer is
// obeyed, a request without one is 401, and a server configured without GrantFrom admits no
// request but /metadata.
func TestGrantFrom(t *testing.T) {
	st := backends.Embedded(t)
	// One stored practitioner, so that a read of another is a plain 404.
	ctx := context.Background()
	practitioners := catalog.FHIRCollection("Practitioner")
	if err := st.Put(ctx, "g1", practitioners, []store.Document{{ID: "1003000126", Body: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Switch(ctx, st, snap, map[string]string{practitioners: "g1"}, "test"); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	fromContext := func(ctx context.Context) (fhir.Grant, bool) {
		g, ok := ctx.Value(grantKey{}).(readOnly)
		return g, ok
	}
	serve := func(grantFrom func(context.Context) (fhir.Grant, bool)) *httptest.Server {
		r := mux.NewRouter()
		sub := r.PathPrefix("/fhir").Subrouter()
		sub.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Test-Grant") == "practitioners" {
					r = r.WithContext(context.WithValue(r.Context(), grantKey{}, readOnly{"Practitioner": true}))
				}
				next.ServeHTTP(w, r)
			})
		})
		fhir.New(fhir.Config{Store: st, BaseURL: "http://directory.example/fhir", GrantFrom: grantFrom, Log: quiet}).Routes(sub)
		srv := httptest.NewServer(r)
		t.Cleanup(srv.Close)
		return srv
	}
	configured, unconfigured := serve(fromContext), serve(nil)

	tests := []struct {
		name      string
		srv       *httptest.Server
		path      string
		grant     string
		status    int
		challenge string // what the WWW-Authenticate header must hold
	}{
		{"read allowed", configured, "/fhir/Practitioner/1234567893", "practitioners", http.StatusNotFound, ""},
		{"search not allowed", configured, "/fhir/Practitioner?name=x", "practitioners", http.StatusForbidden, `scope="system/Practitioner.s"`},
		{"read of another type", configured, "/fhir/Organization/1234567893", "practitioners", http.StatusForbidden, `scope="system/Organization.r"`},
		{"no grant", configured, "/fhir/Practitioner/1234567893", "", http.StatusUnauthorized, `Bearer realm="fhir"`},
		{"no GrantFrom", unconfigured, "/fhir/Practitioner/1234567893", "practitioners", http.StatusUnauthorized, `Bearer realm="fhir"`},
		{"no GrantFrom, metadata", unconfigured, "/fhir/metadata", "", http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := get(t, tt.srv.URL+tt.path, "X-Test-Grant", tt.grant)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, tt.status, r.body)
			}
			if got := r.header.Get("WWW-Authenticate"); !strings.Contains(got, tt.challenge) || (tt.challenge == "") != (got == "") {
				t.Errorf("WWW-Authenticate %q, want %q", got, tt.challenge)
			}
		})
	}
}

// Before any ingest a read is 404 and a search an empty Bundle, not a store error.
func TestNothingIngested(t *testing.T) {
	st := backends.Embedded(t)
	all := func(context.Context) (fhir.Grant, bool) { return readAll{}, true }
	r := mux.NewRouter()
	fhir.New(fhir.Config{Store: st, BaseURL: "http://directory.example/fhir", GrantFrom: all,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Routes(r.PathPrefix("/fhir").Subrouter())
	srv := httptest.NewServer(r)
	defer srv.Close()
	for path, want := range map[string]int{"/fhir/Practitioner/1234567893": 404, "/fhir/Practitioner?name=x": 200, "/fhir/Endpoint/1.2": 404} {
		if got := get(t, srv.URL+path); got.status != want {
			t.Errorf("%s: %d, want %d: %.200s", path, got.status, want, got.body)
		}
	}
}

// readAll is a grant of every read and search.
type readAll struct{}

func (readAll) Allows(string, catalog.Interaction) bool { return true }
func (readAll) Sandboxed() bool                         { return false }
