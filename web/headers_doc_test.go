package web

import (
	"os"
	"strings"
	"testing"

	"providerdir/internal/httpserver"
)

// TestOperationsStatesEachSurfacesPolicy holds docs/OPERATIONS.md to the security headers the
// surfaces send: the service's policy for the APIs, FHIR and the documents, the pages' own
// policy and X-Frame-Options for the HTML pages.
func TestOperationsStatesEachSurfacesPolicy(t *testing.T) {
	b, err := os.ReadFile("../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	ops := string(b)
	for _, want := range []string{
		"`" + httpserver.ContentSecurityPolicy + "`",
		"`" + ContentSecurityPolicy + "`",
		"`X-Frame-Options: DENY`",
		"`Referrer-Policy: " + httpserver.ReferrerPolicy + "`",
		"`Strict-Transport-Security: " + httpserver.StrictTransportSecurity + "`",
	} {
		if !strings.Contains(ops, want) {
			t.Errorf("docs/OPERATIONS.md does not state %s", want)
		}
	}
}
