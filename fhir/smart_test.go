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

	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/internal/httpserver"
	"providerdir/smart"
	"providerdir/source/reference"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/liveserver"
)

// smartEnv is the surface wired the way providerd wires it, behind SMART's real Protect and token
// endpoint, over the base drop ingested into a store of its own.
type smartEnv struct {
	st   store.Store
	url  string // the service's base URL; FHIR is under /fhir
	fhir *fhir.Server
}

func newSMARTEnv(t testing.TB, publicRead bool) *smartEnv {
	t.Helper()
	return newSMARTEnvWith(t, publicRead, nil)
}

// newSMARTEnvWith is newSMARTEnv with the FHIR configuration changed by edit (when not nil).
func newSMARTEnvWith(t testing.TB, publicRead bool, edit func(*fhir.Config)) *smartEnv {
	t.Helper()
	base, _ := drops(t)
	st := backends.Embedded(t)
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: st, Dir: base, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewUnstartedServer(nil)
	serviceBase := "http://" + srv.Listener.Addr().String()
	auth, err := smart.New(smart.Config{Store: st, BaseURL: serviceBase, PublicRead: publicRead, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { auth.Close() })
	cfg := fhir.Config{Store: st, BaseURL: serviceBase + "/fhir", PublicRead: publicRead, GrantFrom: smartGrant, Log: quiet}
	if edit != nil {
		edit(&cfg)
	}
	fsrv := fhir.New(cfg)
	h, err := httpserver.New(httpserver.Options{Logger: quiet, Surfaces: []httpserver.Surface{
		{Name: "fhir", Prefix: "/fhir", Error: fhir.Error, Routes: func(r *mux.Router) {
			auth.Routes(r)
			r.Use(auth.Protect)
			fsrv.Routes(r)
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(srv.Close)
	return &smartEnv{st: st, url: srv.URL, fhir: fsrv}
}

// token registers a client allowed scopes, with a fresh ES384 key, and returns the
// "Authorization" header value of an access token it gets from the token endpoint for them.
func (e *smartEnv) token(t testing.TB, scopes ...string) string {
	t.Helper()
	_, auth := e.client(t, scopes...)
	return auth
}

// client is token that also returns the client's id, for a test that changes the client.
func (e *smartEnv) client(t testing.TB, scopes ...string) (id, auth string) {
	t.Helper()
	c := liveserver.AddSMARTClient(t, e.st, "narrowed "+strings.Join(scopes, " "), scopes...)
	tr, err := smart.RequestToken(context.Background(), http.DefaultClient, e.url+"/fhir/token", c.ID, c.Key, strings.Join(scopes, " "))
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, "Bearer " + tr.AccessToken
}

// TestWithSMART wires the surface the way providerd does, behind SMART's real Protect, in public
// read mode: requests without a token read as Grant{Public: true}; a bad token is SMART's 401; the
// CapabilityStatement and discovery are open.
func TestWithSMART(t *testing.T) {
	e := newSMARTEnv(t, true)
	tests := []struct {
		path, auth string
		status     int
	}{
		{"/fhir/metadata", "", 200},
		{"/fhir/.well-known/smart-configuration", "", 200},
		{"/fhir/Practitioner?_count=2", "", 200},
		{"/fhir/PractitionerRole?_count=2&_include=PractitionerRole:practitioner", "", 200},
		{"/fhir/Practitioner?_count=2&_has:PractitionerRole:practitioner:active=true", "", 200},
		{"/fhir/Practitioner?_count=2", "Bearer not-a-token", 401},
		{"/fhir/Practitioner/1000000000", "", 404},
		{"/fhir/Patient/1", "", 404},
	}
	for _, tt := range tests {
		r := get(t, e.url+tt.path, "Authorization", tt.auth)
		if r.status != tt.status {
			t.Errorf("%s: %d, want %d: %.200s", tt.path, r.status, tt.status, r.body)
		}
		if tt.status != 200 {
			decodeOutcome(t, r)
		}
	}
}
