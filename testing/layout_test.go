// Package layout_test keeps the test harnesses in one place: a package that imports "testing"
// outside its test files gives tests something, so it lives under testing/. That no package
// outside testing/ imports a harness except from its tests is a rule of docs/ARCHITECTURE.md.
package layout_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const harnesses = "providerdir/testing/"

func TestHarnessesLiveUnderTesting(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "providerdir/...").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 20 {
		t.Fatalf("go list listed %d packages", len(lines))
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		if strings.HasPrefix(pkg, harnesses) {
			continue
		}
		if slices.Contains(imports, "testing") {
			t.Errorf("%s imports testing outside its tests: a test harness belongs under testing/", pkg)
		}
	}
}
