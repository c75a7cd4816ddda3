package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"providerdir/source/reference"
	"providerdir/source/synth"
)

// referenceCopy writes the built-in reference files into a new directory, as an operator's
// directory of newer releases would hold them.
func referenceCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "reference")
	if err := os.CopyFS(dir, reference.Embedded()); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGenerate(t *testing.T) {
	// No --reference: the files built into the binary.
	base := filepath.Join(t.TempDir(), "base")
	code, stdout, stderr := invoke(t, nil, "generate", "--providers", "300", "--seed", "5", "--out", base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "npidata_pfile_20050523-20250608.csv") || !strings.Contains(stdout, "seed 5, 300 providers, snapshot 2025-06-08, base drop") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "generate: providers 300/300") || !strings.Contains(stderr, "generate: facilities") {
		t.Errorf("no per-phase progress on stderr:\n%s", stderr)
	}
	m, err := synth.ReadManifest(base)
	if err != nil || m.Seed != 5 || m.Providers != 300 {
		t.Fatalf("manifest %+v, %v", m, err)
	}

	// The next snapshot takes seed and scale from the manifest; the reference from the environment.
	next := filepath.Join(t.TempDir(), "next")
	code, stdout, stderr = invoke(t, map[string]string{"PROVIDERD_REFERENCE": referenceCopy(t)}, "generate", "--evolve-from", base, "--out", next)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "generation 1 after 2025-06-08") {
		t.Errorf("stdout:\n%s", stdout)
	}
	me, err := synth.ReadManifest(next)
	if err != nil || me.Seed != 5 || me.Generation != 1 || me.Snapshot != "2025-07-08" {
		t.Fatalf("evolved manifest %+v, %v", me, err)
	}
	// The week after a drop, and the drop with it applied.
	week, merged := filepath.Join(t.TempDir(), "week"), filepath.Join(t.TempDir(), "merged")
	code, stdout, stderr = invoke(t, nil, "generate", "--weekly-from", base, "--out", week, "--changes", "30", "--merged", merged)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "npidata_pfile_20250609-20250615.csv") || !strings.Contains(stdout, "wrote the week 2025-06-09 to 2025-06-15") ||
		!strings.Contains(stdout, "wrote the drop with the week applied to "+merged) {
		t.Errorf("stdout:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(merged, "npidata_pfile_20050523-20250615.csv")); err != nil {
		t.Error(err)
	}
}

func TestGenerateUsage(t *testing.T) {
	dir, empty := t.TempDir(), t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no out", []string{"generate"}, 2, "--out is required"},
		{"positional", []string{"generate", "--out", dir, "extra"}, 2, `takes no arguments, got "extra"`},
		{"bad snapshot", []string{"generate", "--out", dir, "--snapshot", "June"}, 2, "not a YYYY-MM-DD date"},
		{"zero providers", []string{"generate", "--out", dir, "--providers", "0"}, 2, "--providers must be positive"},
		{"seed with evolve", []string{"generate", "--out", dir, "--evolve-from", dir, "--seed", "3"}, 2, "come from the earlier drop"},
		{"bad seed", []string{"generate", "--out", dir, "--seed", "-1"}, 2, "invalid value"},
		{"missing reference", []string{"generate", "--out", dir, "--providers", "100", "--reference", filepath.Join(dir, "absent")}, 2, "invalid --reference: reference directory"},
		{"reference without the files", []string{"generate", "--out", dir, "--providers", "100", "--reference", empty}, 1, "providerctl generate: synth: open census/NST-EST2024-ALLDATA.csv"},
		{"evolve from nothing", []string{"generate", "--out", filepath.Join(dir, "x"), "--evolve-from", dir}, 1, "manifest.json"},
		{"seed with weekly", []string{"generate", "--out", dir, "--weekly-from", dir, "--seed", "3"}, 2, "--seed does not go with --weekly-from"},
		{"changes without weekly", []string{"generate", "--out", dir, "--changes", "3"}, 2, "--changes and --merged go with --weekly-from"},
		{"no changes", []string{"generate", "--out", dir, "--weekly-from", dir, "--changes", "0"}, 2, "--changes must be positive"},
		{"weekly from nothing", []string{"generate", "--out", filepath.Join(dir, "w"), "--weekly-from", dir}, 1, "manifest.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := invoke(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line containing %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}

// TestGenerateReferenceChoice: PROVIDERD_REFERENCE replaces the built-in files, and --reference
// wins over it.
func TestGenerateReferenceChoice(t *testing.T) {
	empty, full := t.TempDir(), referenceCopy(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"the environment's directory is read", nil, 1, "synth: open census/NST-EST2024-ALLDATA.csv"},
		{"the flag wins over the environment", []string{"--reference", full}, 0, "seed 9, 100 providers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"generate", "--providers", "100", "--seed", "9", "--out", filepath.Join(t.TempDir(), "drop")}, tt.args...)
			code, stdout, stderr := invoke(t, map[string]string{"PROVIDERD_REFERENCE": empty}, args...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Fatalf("exit %d, want %d with %q\nstdout %s\nstderr %s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
}
