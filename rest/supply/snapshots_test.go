package supply_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"providerdir/ingest"
	"providerdir/rest/apikey"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/testing/apiclient"
	"providerdir/testing/backends"
)

// Rule 3: a registered code that no provider holds gives zero rows. The drop is rewritten so
// that nobody holds 2080H0002X (Pediatric Hospice and Palliative Medicine). by-county answers
// with the state's row, whose count is then zero: its figures are the state's, as always.
func TestRegisteredCodeWithoutProviders(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := synth.Generate(ctx, synth.Config{Providers: 200, Seed: 11, Out: dir, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "npidata_pfile_*.csv"))
	for _, f := range files {
		if strings.HasSuffix(f, "_fileheader.csv") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, bytes.ReplaceAll(b, []byte(`"2080H0002X"`), []byte(`"363L00000X"`)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := backends.Embedded(t)
	if _, err := ingest.Run(ctx, ingest.Options{Store: st, Dir: dir, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, st)
	key := e.Key(t, apikey.TierPilot)
	r := e.get(t, "/v1/specialties/pediatrics/by-state?subspecialty=2080H0002X", apiclient.Bearer(key)...)
	if r.Status != 200 || len(r.rows()) != 0 {
		t.Fatalf("%d, %d rows: %.300s", r.Status, len(r.rows()), r.Raw)
	}
	sf := r.meta()["subspecialty_filter"].(map[string]any)
	if sf["applied_code"] != "2080H0002X" || num(sf["matched_record_count"]) != 0 {
		t.Errorf("subspecialty_filter %v", sf)
	}
	if pg := r.meta()["pagination"].(map[string]any); num(pg["total"]) != 0 {
		t.Errorf("pagination %v", pg)
	}
	c := e.get(t, "/v1/specialties/pediatrics/by-county?state=OH&county_fips=39049&subspecialty=2080H0002X", apiclient.Bearer(key)...)
	if c.Status != 200 || num(value(c.data()["state_level_supply"].(map[string]any), "active_providers")) != 0 {
		t.Errorf("by-county: %d %.300s", c.Status, c.Raw)
	}
}

// Before any ingest the API says there is nothing, in the contract's codes, not with a 500.
func TestEmptyStore(t *testing.T) {
	e := newEnv(t, backends.Embedded(t))
	key := e.Key(t, apikey.TierPilot)
	tests := []struct {
		path   string
		status int
		code   string
	}{
		{"/v1/specialties", 200, ""},
		{"/v1/specialties/cardiology/by-state", 404, "specialty_not_found"},
		{"/v1/specialties/cardiology/by-county?state=CA&county_fips=06037", 404, "specialty_not_found"},
		{"/v1/states/CA/coverage", 404, "state_not_found"},
		{"/v1/providers/1234567893", 404, "provider_not_found"},
		{"/v1/npi/1234567893", 404, "not_found"},
		{"/v1/methodology/cardiology-supply", 200, ""},
		{"/v1/methodology/nppes", 200, ""},
	}
	for _, tt := range tests {
		r := e.get(t, tt.path, apiclient.Bearer(key)...)
		if r.Status != tt.status || r.ErrorCode() != tt.code {
			t.Errorf("%s: %d %q, want %d %q", tt.path, r.Status, r.ErrorCode(), tt.status, tt.code)
		}
	}
	if r := e.get(t, "/v1/specialties", apiclient.Bearer(key)...); len(r.rows()) != 0 {
		t.Errorf("specialties %s", r.Raw)
	}
	if d := e.get(t, "/v1/methodology/nppes", apiclient.Bearer(key)...).data(); d["loaded"] != false || d["snapshot"] != nil {
		t.Errorf("methodology of an unloaded dataset %v", d)
	}
}

// 500 internal_error is what a client gets when the store fails; it quotes the request id.
func TestInternalError(t *testing.T) {
	st := backends.Embedded(t)
	e := newEnv(t, st)
	key := e.Key(t, apikey.TierPilot)
	_ = st.Close()
	for _, path := range []string{"/v1/specialties/cardiology/by-state", "/v1/npi/1234567893"} {
		r := e.get(t, path, apiclient.Bearer(key)...)
		msg, _ := r.Body["error"].(map[string]any)["message"].(string)
		if r.Status != 500 || r.ErrorCode() != "internal_error" || !strings.Contains(msg, r.Header.Get("X-Request-ID")) {
			t.Errorf("%s: %d %q %q", path, r.Status, r.ErrorCode(), msg)
		}
	}
}
