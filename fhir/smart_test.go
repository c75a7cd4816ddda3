package fhir_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/fhir"
	"providerdir/httpserver"
	"providerdir/ingest"
	"providerdir/smart"
	"providerdir/store/embedded"
)

// TestWithSMART wires the surface the way providerd does, behind SMART's real Protect, in public
// read mode: requests without a token read as Grant{Public: true}; a bad token is SMART's 401; the
// CapabilityStatement and discovery are open.
func TestWithSMART(t *testing.T) {
	base, _ := drops(t)
	st, err := embedded.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: st, Dir: base, Reference: referenceDir(t)}); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewUnstartedServer(nil)
	serviceBase := "http://" + srv.Listener.Addr().String()
	auth, err := smart.New(smart.Config{Store: st, BaseURL: serviceBase, PublicRead: true, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer auth.Close()
	fsrv := fhir.New(fhir.Config{Store: st, BaseURL: serviceBase + "/fhir", PublicRead: true, Log: quiet})
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
	defer srv.Close()

	tests := []struct {
		path, auth string
		status     int
	}{
		{"/fhir/metadata", "", 200},
		{"/fhir/.well-known/smart-configuration", "", 200},
		{"/fhir/Practitioner?_count=2", "", 200},
		{"/fhir/PractitionerRole?_count=2&_include=PractitionerRole:practitioner", "", 200},
		{"/fhir/Practitioner?_count=2", "Bearer not-a-token", 401},
		{"/fhir/Practitioner/1000000000", "", 404},
		{"/fhir/Patient/1", "", 404},
	}
	for _, tt := range tests {
		r := get(t, srv.URL+tt.path, "Authorization", tt.auth)
		if r.status != tt.status {
			t.Errorf("%s: %d, want %d: %.200s", tt.path, r.status, tt.status, r.body)
		}
		if tt.status != 200 {
			decodeOutcome(t, r)
		}
	}
}
