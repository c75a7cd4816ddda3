package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// --rejects lists every rejected row with its file, line, column and reason, on a dry run as on
// a load: exactly the rows the synthetic drop's manifest says it malformed.
func TestIngestRejectsReport(t *testing.T) {
	drop := filepath.Join(t.TempDir(), "drop")
	if _, err := synth.Generate(context.Background(), synth.Config{Providers: 200, Seed: 5, Out: drop, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	m, err := synth.ReadManifest(drop)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.BadRows) == 0 {
		t.Fatal("the drop has no malformed row")
	}
	want := map[string]bool{}
	for _, b := range m.BadRows {
		want[fmt.Sprintf("%s:%d", b.File, b.Line)] = true
	}
	for _, args := range [][]string{{"--dry-run"}, {}} {
		t.Run(strings.Join(append([]string{"args"}, args...), " "), func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "rejects.csv")
			store := "embedded:" + filepath.Join(t.TempDir(), "db")
			code, stdout, stderr := invoke(t, nil, append(append([]string{"ingest", "--store", store, "--rejects", report}, args...), drop)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			f, err := os.Open(report)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == 0 || !slices.Equal(rows[0], []string{"file", "line", "column", "reason", "value"}) {
				t.Fatalf("header %v", rows[:min(1, len(rows))])
			}
			got := map[string]bool{}
			for _, r := range rows[1:] {
				if r[0] == "" || r[3] == "" {
					t.Errorf("row without a file or a reason: %v", r)
				}
				if _, err := strconv.Atoi(r[1]); err != nil {
					t.Errorf("line %q: %v", r[1], err)
				}
				got[r[0]+":"+r[1]] = true
			}
			if len(rows)-1 != len(m.BadRows) || !maps.Equal(got, want) {
				t.Errorf("report lists %d rows %v, the manifest %d %v", len(rows)-1, got, len(m.BadRows), want)
			}
			if !slices.ContainsFunc(rows[1:], func(r []string) bool { return r[2] != "" }) {
				t.Error("no row names its column")
			}
			if !strings.Contains(stdout, fmt.Sprintf("%d rejected rows listed in %s", len(m.BadRows), report)) {
				t.Errorf("stdout does not point at the report:\n%s", stdout)
			}
		})
	}
}
