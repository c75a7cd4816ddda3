// Package externaltools finds the programs outside Go that some tests drive (Chromium, pdftotext,
// Node.js and the npm packages run with it). Where one is missing the test skips, saying how to
// install it; under CI=true it fails instead, so a machine that lacks a tool cannot pass a run
// by skipping the tests that need it.
package externaltools

import (
	"os"
	"os/exec"
	"testing"
)

// inCI reports whether the environment says CI=true, where a missing tool fails the test.
func inCI() bool { return os.Getenv("CI") == "true" }

// ciNote ends the failure of a missing tool under CI.
const ciNote = " (CI=true: every tool the tests drive must be installed)"

// Missing ends a test that needs a tool this machine lacks: it fails under CI=true and skips
// elsewhere. why names the tool and how to install it.
func Missing(t testing.TB, why string) {
	t.Helper()
	if inCI() {
		t.Fatal(why + ciNote)
	}
	t.Skip(why)
}

// Optional notes a missing tool a test goes on without, leaving out what the tool would check:
// it fails the test under CI=true and logs why elsewhere.
func Optional(t testing.TB, why string) {
	t.Helper()
	if inCI() {
		t.Error(why + ciNote)
		return
	}
	t.Log(why)
}

// LookPath is the path of the named program on PATH; when there is none the test ends as
// Missing says, with install as the way to get it.
func LookPath(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not on PATH: "+install)
	}
	return p
}
