package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestFreshCheckout: providerctl built from the module generates and ingests a drop in an empty
// directory with nothing beside it: no --reference, no PROVIDERD_ environment. The reference
// families come from the files built into the binary.
func TestFreshCheckout(t *testing.T) {
	bin := builtProviderctl(t)

	work := t.TempDir()
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROVIDERD_") {
			environ = append(environ, kv)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = work, environ
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("providerctl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("generate", "--providers", "200", "--seed", "3", "--out", "drop")
	out := run("ingest", "--store", "embedded:db", "drop")
	for _, want := range []string{"census", "2024-07-01", "nucc", "2025-07-01", "nppes", "serving generation"} {
		if !strings.Contains(out, want) {
			t.Errorf("ingest output lacks %q:\n%s", want, out)
		}
	}
	fields := func(out, family string) []string {
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == family {
				return f
			}
		}
		return nil
	}
	// FAMILY SNAPSHOT ROWS REJECTED ADDED CHANGED REMOVED STATE
	if f := fields(out, "census"); len(f) != 8 || f[1] != "2024-07-01" || f[2] != "3261" || f[7] != "loaded" {
		t.Errorf("census line %q", f)
	}
	if f := fields(out, "nucc"); len(f) != 8 || f[1] != "2025-07-01" || f[2] != "883" || f[7] != "loaded" {
		t.Errorf("nucc line %q", f)
	}
	again := run("ingest", "--store", "embedded:db", "drop")
	for _, family := range []string{"census", "nucc"} {
		if f := fields(again, family); len(f) != 8 || f[7] != "unchanged" {
			t.Errorf("second ingest, %s line %q", family, f)
		}
	}
	if !strings.Contains(again, "nothing changed") {
		t.Errorf("a second ingest of the same files changed something:\n%s", again)
	}
}
