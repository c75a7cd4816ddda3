package webhook

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// The layering of docs/ARCHITECTURE.md, checked on the packages' real dependencies (go list
// -deps, test files excluded): the event side and the FHIR surface, which uses it, depend on no
// JSON API, and no surface depends on the ingest.
func TestLayering(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	for _, c := range []struct {
		pkgs      string // a go list pattern
		forbidden string // an import path, and everything under it
	}{
		{"providerdir/webhook", "providerdir/rest"},
		{"providerdir/webhook", "providerdir/internal/httpserver"},
		{"providerdir/fhir", "providerdir/rest"},
		{"providerdir/fhir", "providerdir/ingest"},
		{"providerdir/rest/...", "providerdir/ingest"},
		{"providerdir/web", "providerdir/ingest"},
	} {
		t.Run(c.pkgs+" without "+c.forbidden, func(t *testing.T) {
			for _, dep := range deps(t, c.pkgs) {
				if dep == c.forbidden || strings.HasPrefix(dep, c.forbidden+"/") {
					t.Errorf("%s depends on %s", c.pkgs, dep)
				}
			}
		})
	}
}

// deps lists the packages that those matching pattern import, directly or not, and themselves.
func deps(t *testing.T, pattern string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pattern).Output()
	if err != nil {
		var stderr []byte
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			stderr = exit.Stderr
		}
		t.Fatalf("go list -deps %s: %v\n%s", pattern, err, stderr)
	}
	list := strings.Fields(string(out))
	if len(list) == 0 {
		t.Fatalf("go list -deps %s listed nothing", pattern)
	}
	return list
}
