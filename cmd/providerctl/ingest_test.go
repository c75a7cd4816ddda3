package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/source/synth"
)

// TestPrintPhases writes each phase's seconds, share, CPU seconds and cores busy in aligned
// columns, with a dash where the platform reported no CPU time or the phase was too short for
// its cores busy to mean anything.
func TestPrintPhases(t *testing.T) {
	res := ingest.Result{Elapsed: 10 * time.Second, Phases: []ingest.PhaseTime{
		{Step: "loading the nppes family", Elapsed: 4 * time.Second, CPU: 7 * time.Second},
		{Step: "building the fhir projection", Elapsed: 6 * time.Second, CPU: 6 * time.Second},
		{Step: "planning", Elapsed: 0},
		{Step: "committing sandbox_npis", Elapsed: 30 * time.Millisecond, CPU: 90 * time.Millisecond},
	}}
	var out bytes.Buffer
	printPhases(&out, res)
	want := "" +
		"PHASE                         SECONDS  SHARE  CPU  CORES\n" +
		"loading the nppes family      4.0      40.0%  7.0  1.75\n" +
		"building the fhir projection  6.0      60.0%  6.0  1.00\n" +
		"planning                      0.0      0.0%   -    -\n" +
		"committing sandbox_npis       0.0      0.3%   0.1  -\n"
	if got := out.String(); got != want {
		t.Errorf("printPhases wrote\n%s\nwant\n%s", got, want)
	}
}

// A synthetic drop's deliberately malformed rows are said once to be skipped and counted, not
// warned of file by file (--verbose still does); rows rejected beyond those are warned of.
func TestIngestSyntheticDropRejects(t *testing.T) {
	drop := filepath.Join(t.TempDir(), "drop")
	if _, err := synth.Generate(context.Background(), synth.Config{Providers: 200, Seed: 3, Out: drop, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	m, err := synth.ReadManifest(drop)
	if err != nil {
		t.Fatal(err)
	}
	bad := len(m.BadRows)
	// A drop with one more malformed row than its manifest lists: a short row in the LEIE file.
	extra := filepath.Join(t.TempDir(), "extra")
	if err := os.CopyFS(extra, os.DirFS(drop)); err != nil {
		t.Fatal(err)
	}
	leie := m.FilesOf("leie")[0].Name
	f, err := os.OpenFile(filepath.Join(extra, leie), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("ONLY,TWO\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	summary := fmt.Sprintf("ingest: this synthetic drop carries %d deliberately malformed rows", bad)
	tests := []struct {
		name     string
		args     []string
		warnings int // "warning: rows rejected" lines
		says     string
	}{
		{"the demo drop", []string{drop}, 0, summary},
		{"--verbose", []string{"--verbose", drop}, len(m.Files) - cleanFiles(m), ""},
		{"a row rejected beyond the manifest's", []string{extra}, len(m.Files) - cleanFiles(m),
			fmt.Sprintf("ingest: warning: this synthetic drop's manifest.json lists %d deliberately malformed rows in the files loaded; %d rows were rejected", bad, bad+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := "embedded:" + filepath.Join(t.TempDir(), "db")
			code, stdout, stderr := invoke(t, nil, append([]string{"ingest", "--store", store}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if n := strings.Count(stderr, "warning: rows rejected"); n != tt.warnings {
				t.Errorf("%d rows-rejected warnings, want %d:\n%s", n, tt.warnings, stderr)
			}
			if tt.says != "" && strings.Count(stderr, tt.says) != 1 {
				t.Errorf("stderr does not say once %q:\n%s", tt.says, stderr)
			}
			if tt.says == "" && strings.Contains(stderr, "synthetic drop") {
				t.Errorf("--verbose also summarised:\n%s", stderr)
			}
			if !strings.Contains(stdout, "serving generation") {
				t.Errorf("no serving generation:\n%s", stdout)
			}
		})
	}
}

// cleanFiles counts the files of a drop with no malformed row.
func cleanFiles(m *synth.Manifest) int {
	n := 0
	for _, f := range m.Files {
		if len(m.BadRowsOf(f.Name)) == 0 {
			n++
		}
	}
	return n
}
