package conformance

import (
	"context"
	"os"
	"strings"
	"testing"

	"providerdir/testing/externaltools"
)

// The external validator reads what the run was served and fails the check on a resource R4
// refuses. It runs where PROVIDERDIR_FHIR_JS names a directory where `npm install fhir` ran.
func TestFHIRJSValidator(t *testing.T) {
	dir := os.Getenv("PROVIDERDIR_FHIR_JS")
	if dir == "" {
		externaltools.Missing(t, "PROVIDERDIR_FHIR_JS names no directory where `npm install fhir` ran (make fhirjs installs it)")
	}
	tests := []struct {
		name      string
		resources []string
		want      string // "" passes
	}{
		{"valid", []string{`{"resourceType":"Practitioner","id":"1","name":[{"family":"Ng"}],"gender":"female"}`}, ""},
		{"a code outside its value set", []string{
			`{"resourceType":"Practitioner","id":"1","name":[{"family":"Ng"}]}`,
			`{"resourceType":"Practitioner","id":"2","gender":"bogus"}`,
		}, "2 resources checked, 1 errors: Practitioner/2 Practitioner.gender"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(Options{FHIRValidator: dir})
			for _, r := range tt.resources {
				e.collect([]byte(r))
			}
			err := checkFHIRJS(context.Background(), e)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("failed: %v", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error starting %q", err, tt.want)
			}
		})
	}
}

// A Bundle's entries are collected one by one, and a resource served twice is validated once.
func TestCollect(t *testing.T) {
	e := newEnv(Options{})
	e.collect([]byte(`{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Location","id":"a"}},{"resource":{"resourceType":"Location","id":"b"}}]}`))
	e.collect([]byte(`{"resourceType":"Location","id":"a"}`))
	e.collect([]byte(`not json`))
	if len(e.resources) != 2 {
		t.Fatalf("collected %d resources, want 2: %s", len(e.resources), e.resources)
	}
}
