package supply_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/testing/apiclient"
)

// Every path of docs/contracts/supply-api.md §4 built here, with every status and error code of
// section 7 it can answer, against a running server on the demo snapshot with real keys. Each
// response is also checked against the interface description (client_test.go).
func TestEndpointStatusesAndErrorCodes(t *testing.T) {
	e := demoEnv(t)
	f := demoFixtures(t)
	ctx := context.Background()
	pilot := e.Key(t, apikey.TierPilot)
	revoked := e.Key(t, apikey.TierPilot)
	if _, _, err := e.Gate.Keys().Revoke(ctx, revoked); err != nil {
		t.Fatal(err)
	}
	expired := e.Key(t, apikey.TierPilot, apikey.CreateOptions{ExpiresAt: e.clock.Now().Add(time.Minute)})
	e.clock.Advance(2 * time.Minute)
	resolverKey := e.Key(t, apikey.TierStarter) // a key of the other API
	unknownKey := "pdsupply_" + strings.Repeat("A", 43)

	type auth int
	const (
		anonymous auth = iota
		keyed
	)
	tests := []struct {
		name   string
		path   string
		auth   auth
		status int
		code   string
	}{
		{"health, public", "/v1/health", anonymous, 200, ""},
		{"health with a key", "/v1/health", keyed, 200, ""},
		{"openapi, public", "/v1/openapi.json", anonymous, 200, ""},

		{"specialties", "/v1/specialties", keyed, 200, ""},
		{"specialties without a key", "/v1/specialties", anonymous, 401, "missing_api_key"},

		{"by-state", "/v1/specialties/cardiology/by-state", keyed, 200, ""},
		{"by-state filtered", "/v1/specialties/dermatology/by-state?subspecialty=207ND0900X", keyed, 200, ""},
		{"by-state parent of a single-code specialty", "/v1/specialties/oncology/by-state?subspecialty=207RX0202X", keyed, 200, ""},
		{"by-state code of another specialty", "/v1/specialties/cardiology/by-state?subspecialty=207ND0900X", keyed, 400, "invalid_subspecialty"},
		{"by-state unregistered code", "/v1/specialties/pediatrics/by-state?subspecialty=2080P0201X", keyed, 400, "invalid_subspecialty"},
		{"by-state empty code", "/v1/specialties/dermatology/by-state?subspecialty=", keyed, 400, "invalid_subspecialty"},
		{"by-state unknown specialty", "/v1/specialties/chiropractor/by-state", keyed, 404, "specialty_not_found"},
		{"by-state without a key", "/v1/specialties/cardiology/by-state", anonymous, 401, "missing_api_key"},

		{"by-county", "/v1/specialties/cardiology/by-county?state=CA&county_fips=06037", keyed, 200, ""},
		{"by-county filtered", "/v1/specialties/obgyn/by-county?state=TX&county_fips=48201&subspecialty=207VG0400X", keyed, 200, ""},
		{"by-county lower-case state", "/v1/specialties/cardiology/by-county?state=ny&county_fips=36061", keyed, 200, ""},
		{"by-county without state", "/v1/specialties/cardiology/by-county?county_fips=06037", keyed, 400, "missing_state"},
		{"by-county without anything", "/v1/specialties/cardiology/by-county", keyed, 400, "missing_state"},
		{"by-county without FIPS", "/v1/specialties/cardiology/by-county?state=CA", keyed, 400, "missing_county_fips"},
		{"by-county FIPS of another state", "/v1/specialties/cardiology/by-county?state=TX&county_fips=06037", keyed, 400, "state_county_mismatch"},
		{"by-county unknown FIPS", "/v1/specialties/cardiology/by-county?state=CA&county_fips=06999", keyed, 404, "county_not_found"},
		{"by-county malformed FIPS", "/v1/specialties/cardiology/by-county?state=CA&county_fips=6037", keyed, 404, "county_not_found"},
		{"by-county bad subspecialty", "/v1/specialties/dermatology/by-county?state=CA&county_fips=06037&subspecialty=207RC0000X", keyed, 400, "invalid_subspecialty"},
		{"by-county unknown specialty", "/v1/specialties/dentistry/by-county?state=CA&county_fips=06037", keyed, 404, "specialty_not_found"},

		{"coverage", "/v1/states/CA/coverage", keyed, 200, ""},
		{"coverage of DC", "/v1/states/dc/coverage", keyed, 200, ""},
		{"coverage of a territory", "/v1/states/PR/coverage", keyed, 404, "state_not_found"},
		{"coverage of an unknown code", "/v1/states/ZZ/coverage", keyed, 404, "state_not_found"},
		{"coverage of a state name", "/v1/states/California/coverage", keyed, 404, "state_not_found"},

		{"provider", "/v1/providers/" + f.dermatologist, keyed, 200, ""},
		{"provider, short NPI", "/v1/providers/123456789", keyed, 400, "invalid_npi"},
		{"provider, letters", "/v1/providers/12345678AB", keyed, 400, "invalid_npi"},
		{"provider, bad check digit", "/v1/providers/1234567890", keyed, 404, "provider_not_found"},
		{"provider in no specialty", "/v1/providers/" + f.notStudied, keyed, 404, "provider_not_found"},
		{"provider deactivated", "/v1/providers/" + f.deactivated, keyed, 404, "provider_not_found"},
		{"provider not in the registry", "/v1/providers/" + f.absent, keyed, 404, "provider_not_found"},

		{"npi, anonymous", "/v1/npi/" + f.dermatologist, anonymous, 200, ""},
		{"npi, keyed", "/v1/npi/" + f.dermatologist, keyed, 200, ""},
		{"npi, malformed", "/v1/npi/12345", anonymous, 400, "invalid_npi"},
		{"npi, eleven digits", "/v1/npi/123456789012", keyed, 400, "invalid_npi"},
		{"npi, bad check digit", "/v1/npi/1234567890", anonymous, 404, "not_found"},
		{"npi, not in the registry", "/v1/npi/" + f.absent, anonymous, 404, "not_found"},

		{"methodology of a study", "/v1/methodology/cardiology-supply", keyed, 200, ""},
		{"methodology of a source dataset", "/v1/methodology/nppes", keyed, 200, ""},
		{"methodology of a dataset never loaded", "/v1/methodology/cms_care_compare_asc", keyed, 200, ""},
		{"methodology unknown", "/v1/methodology/cardiology", keyed, 404, "methodology_not_found"},
		{"methodology without a key", "/v1/methodology/cardiology-supply", anonymous, 401, "missing_api_key"},

		{"unknown path asks for a key", "/v1/nowhere", anonymous, 401, "missing_api_key"},
		{"unknown path", "/v1/nowhere", keyed, 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h []string
			if tt.auth == keyed {
				h = apiclient.Bearer(pilot)
			}
			r := e.get(t, tt.path, h...)
			if r.Status != tt.status || r.ErrorCode() != tt.code {
				t.Fatalf("GET %s: %d %q, want %d %q\n%.400s", tt.path, r.Status, r.ErrorCode(), tt.status, tt.code, r.Raw)
			}
			checkEnvelope(t, r)
		})
	}

	// Keys that do not admit: unknown, revoked, expired, and a key of the resolver API. On the
	// optional-key endpoint too: a key that is sent must be valid.
	for _, k := range []struct{ name, key string }{{"unknown", unknownKey}, {"revoked", revoked}, {"expired", expired}, {"resolver key", resolverKey}} {
		for _, path := range []string{"/v1/specialties", "/v1/npi/" + f.dermatologist} {
			t.Run("invalid key "+k.name+" "+path, func(t *testing.T) {
				r := e.get(t, path, apiclient.Bearer(k.key)...)
				if r.Status != 401 || r.ErrorCode() != "invalid_api_key" {
					t.Fatalf("%d %q", r.Status, r.ErrorCode())
				}
			})
		}
	}
}

// checkEnvelope checks what every JSON response of the API shares: data and meta, or error and
// meta, with the request id the server sent as X-Request-ID.
func checkEnvelope(t *testing.T, r response) {
	t.Helper()
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") == false {
		t.Fatalf("Content-Type %q", r.Header.Get("Content-Type"))
	}
	if _, isDoc := r.Body["openapi"]; isDoc {
		return
	}
	meta := r.meta()
	if meta["request_id"] != r.Header.Get("X-Request-ID") || meta["api_version"] != "v1" {
		t.Errorf("meta %v, X-Request-ID %q", meta, r.Header.Get("X-Request-ID"))
	}
	_, hasData := r.Body["data"]
	_, hasError := r.Body["error"]
	if hasData == hasError || (r.Status >= 400) != hasError {
		t.Errorf("status %d with data %v and error %v", r.Status, hasData, hasError)
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Window"} {
		if r.Header.Get(h) == "" && r.Status != http.StatusInternalServerError {
			t.Errorf("no %s", h)
		}
	}
}

// An error repeats at most a bounded part of the value it refuses, whatever the value's size.
func TestErrorsEchoBoundedValues(t *testing.T) {
	e := demoEnv(t)
	h := apiclient.Bearer(e.Key(t, apikey.TierPilot))
	long := strings.Repeat("9", 6000)
	for _, path := range []string{
		"/v1/providers/" + long,
		"/v1/specialties/" + strings.Repeat("x", 6000) + "/by-state",
		"/v1/specialties/cardiology/by-state?subspecialty=" + strings.Repeat("é", 2000),
		"/v1/specialties/cardiology/by-county?state=CA&county_fips=" + long,
		"/v1/states/" + strings.Repeat("Z", 6000) + "/coverage",
		"/v1/methodology/" + strings.Repeat("m", 6000),
	} {
		r := e.get(t, path, h...)
		if r.Status < 400 || len(r.Raw) > 2000 {
			t.Errorf("GET %.60s…: %d with a body of %d bytes:\n%.300s", path, r.Status, len(r.Raw), r.Raw)
		}
	}
}

// Ten digits that fail the check digit are well formed (not invalid_npi) but can belong to no
// provider: 404 with a hint that says why.
func TestCheckDigitIsAHintOnA404(t *testing.T) {
	e := demoEnv(t)
	h := apiclient.Bearer(e.Key(t, apikey.TierPilot))
	for _, tt := range []struct{ path, code string }{
		{"/v1/npi/1234567890", "not_found"},
		{"/v1/providers/1234567890", "provider_not_found"},
	} {
		r := e.get(t, tt.path, h...)
		details, _ := r.Body["error"].(map[string]any)["details"].(map[string]any)
		if r.Status != 404 || r.ErrorCode() != tt.code || details["hint"] != "check_digit" || details["npi"] != "1234567890" {
			t.Errorf("GET %s: %d %s\n%s", tt.path, r.Status, r.ErrorCode(), r.Raw)
		}
	}
}

// HEAD works wherever GET does, with GET's status and headers and no body; a method a path does
// not route is 405 with Allow, before any key is asked for, in the JSON envelope.
func TestMethods(t *testing.T) {
	e := demoEnv(t)
	f := demoFixtures(t)
	h := apiclient.Bearer(e.Key(t, apikey.TierPilot))
	for _, path := range []string{"/v1/health", "/v1/openapi.json", "/v1/specialties", "/v1/specialties/cardiology/by-state",
		"/v1/specialties/cardiology/by-county?state=CA&county_fips=06037", "/v1/states/CA/coverage", "/v1/providers/" + f.dermatologist,
		"/v1/npi/" + f.dermatologist, "/v1/methodology/cardiology-supply"} {
		get, head := e.do(t, "GET", path, h...), e.do(t, "HEAD", path, h...)
		if head.Status != get.Status || get.Status != 200 || len(head.Raw) != 0 || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q with %d bytes; GET %d", path, head.Status, head.Header.Get("Content-Type"), len(head.Raw), get.Status)
		}
	}
	for _, tt := range []struct {
		method, path string
		headers      []string
	}{
		{"POST", "/v1/health", nil},
		{"DELETE", "/v1/openapi.json", nil},
		{"POST", "/v1/specialties", nil},
		{"PUT", "/v1/npi/" + f.dermatologist, nil},
		{"POST", "/v1/specialties", h},
	} {
		r := e.do(t, tt.method, tt.path, tt.headers...)
		if r.Status != 405 || r.ErrorCode() != "method_not_allowed" || r.Header.Get("Allow") != "GET, HEAD" || r.Header.Get("X-RateLimit-Limit") == "" {
			t.Errorf("%s %s: %d %q, Allow %q, X-RateLimit-Limit %q", tt.method, tt.path, r.Status, r.ErrorCode(), r.Header.Get("Allow"), r.Header.Get("X-RateLimit-Limit"))
		}
		checkEnvelope(t, r)
	}
}
