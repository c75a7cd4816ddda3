package fhir_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/mapping/fhirmap"
)

// TestInactiveOrganizationHasNoService checks Plan-Net's fixed HealthcareService.active = true
// over a snapshot in which facilities have terminated: each inactive Organization keeps its
// resource but has no HealthcareService (a read of the one the previous snapshot had is 410),
// no role names a service that is not served, and no served HealthcareService is inactive.
func TestInactiveOrganizationHasNoService(t *testing.T) {
	e := freshEnv(t, fhir.Config{SnapshotTTL: -1})
	_, next := drops(t)
	before := e.all(t)
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: e.st, Dir: next, Reference: e.ref}); err != nil {
		t.Fatal(err)
	}
	after := e.all(t)

	inactive := 0
	for id, org := range after["Organization"] {
		if org["active"] != false {
			continue
		}
		inactive++
		r := get(t, e.url("/HealthcareService/"+id))
		want := http.StatusNotFound
		if before["HealthcareService"][id] != nil {
			want = http.StatusGone
		}
		if r.status != want {
			t.Errorf("HealthcareService of inactive Organization/%s: %d, want %d", id, r.status, want)
		}
	}
	if inactive == 0 {
		t.Fatalf("the evolved drop has no inactive organization (%d facilities terminated)", len(nextManifest.Changes.FacilityTerminated))
	}

	if b := e.checkBundle(t, get(t, e.url("/HealthcareService", "active", "false", "_total", "accurate"))); b.Total == nil || *b.Total != 0 {
		t.Errorf("HealthcareService?active=false: total %v, want 0", b.Total)
	}
	// Every served HealthcareService passes the Plan-Net check (active true), page by page.
	got := e.searchAll(t, e.url("/HealthcareService", "_count", "200"))
	if len(got.matches) != len(after["HealthcareService"]) {
		t.Errorf("%d services served, %d stored", len(got.matches), len(after["HealthcareService"]))
	}
	for id, role := range after["PractitionerRole"] {
		for _, s := range list(role["healthcareService"]) {
			ref := text(s, "reference")
			if after["HealthcareService"][strings.TrimPrefix(ref, fhirmap.TypeHealthcareService+"/")] == nil {
				t.Errorf("PractitionerRole/%s names %s, which is not served", id, ref)
			}
		}
	}
}
