package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// previousPage is a docs/BENCHMARKS.md that a run with the national ingests and MongoDB wrote.
const previousPage = `## Figures

| figure | value | date | machine |
|---|---|---|---|
| commit | 7a60ebe | 2026-11-28 | old box |
| whole national drop | 1021 s (17 min 01 s; target 8 min, 541 s over) | 2026-11-28 | old box |
| whole national drop | peak resident 1.76 GB (target 2 GB or less) | 2026-11-28 | old box |
| weekly NPPES delta | 5556 changed records on 1000000 providers: 12.0 s | 2026-11-28 | old box |
| national weekly NPPES delta | 50000 changed records on the national snapshot: 46.1 s | 2026-11-28 | old box |
| FHIR search on MongoDB | ours p50 24416 ms | 2026-11-28 | old box |

### Ingest phases

Where each ingest spent its time:

The ingest of 1000000 providers (2026-11-28, old box):

| phase | seconds |
| --- | ---: |
| planning | 0.0 |

The whole national drop (2026-11-28, old box):

| phase | seconds |
| --- | ---: |
| loading the nppes family | 146.3 |
| building the fhir projection | 515.4 |

The national NPPES ingest (2026-11-28, old box):

| phase | seconds |
| --- | ---: |
| loading the nppes family | 153.6 |

### Search quality
`

// ingestLog is the end of a providerctl ingest log: its phase table.
const ingestLog = `ingested
PHASE                         SECONDS  SHARE   CPU  CORES
planning                          0.5  10.0%   0.4   0.80
building the fhir projection      4.5  90.0%   8.1   1.80
`

// TestBenchPage: scripts/benchpage.sh writes a measurement the run made with today's date, and
// keeps a measurement the run was not asked for from the page it replaces, rows and phase table
// as they stand with their own dates; one never measured says it was not run.
func TestBenchPage(t *testing.T) {
	dir := t.TempDir()
	page, log := filepath.Join(dir, "BENCHMARKS.md"), filepath.Join(dir, "ingest.log")
	if err := os.WriteFile(page, []byte(previousPage), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, []byte(ingestLog), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := filepath.Abs("../../scripts/benchpage.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, call string
		previous   string // the previous page; "" for none
		want       string
	}{
		{"measured", `figure_or_kept "whole national drop" "990 s; peak resident 1.70 GB" "BENCH_NATIONAL unset"`, page,
			"| whole national drop | 990 s | 2026-12-07 | new box |\n| whole national drop | peak resident 1.70 GB | 2026-12-07 | new box |\n"},
		{"not asked for: the previous rows with their dates", `figure_or_kept "whole national drop" "" "BENCH_NATIONAL unset"`, page,
			"| whole national drop | 1021 s (17 min 01 s; target 8 min, 541 s over) | 2026-11-28 | old box |\n| whole national drop | peak resident 1.76 GB (target 2 GB or less) | 2026-11-28 | old box |\n"},
		{"a name that ends another's keeps only its own", `figure_or_kept "weekly NPPES delta" "" "none"`, page,
			"| weekly NPPES delta | 5556 changed records on 1000000 providers: 12.0 s | 2026-11-28 | old box |\n"},
		{"the national weekly delta not asked for", `figure_or_kept "national weekly NPPES delta" "" "BENCH_NATIONAL unset"`, page,
			"| national weekly NPPES delta | 50000 changed records on the national snapshot: 46.1 s | 2026-11-28 | old box |\n"},
		{"MongoDB not asked for", `figure_or_kept "FHIR search on MongoDB" "" "BENCH_MONGO=0"`, page,
			"| FHIR search on MongoDB | ours p50 24416 ms | 2026-11-28 | old box |\n"},
		{"never measured", `figure_or_kept "national NPPES ingest" "" "BENCH_NATIONAL unset"`, page,
			"| national NPPES ingest | not run (BENCH_NATIONAL unset) | 2026-12-07 | new box |\n"},
		{"no previous page", `figure_or_kept "whole national drop" "" "BENCH_NATIONAL unset"`, "",
			"| whole national drop | not run (BENCH_NATIONAL unset) | 2026-12-07 | new box |\n"},
		{"phases measured", `phase_section "The whole national drop" "` + log + `" 2.0`, page,
			"\nThe whole national drop (2026-12-07, new box):\n\n| phase | seconds | share | CPU seconds | cores busy | phase / bare CSV read |\n| --- | ---: | ---: | ---: | ---: | ---: |\n| planning | 0.5 | 10.0% | 0.4 | 0.80 | 0.2 |\n| building the fhir projection | 4.5 | 90.0% | 8.1 | 1.80 | 2.2 |\n"},
		{"phases not asked for: the previous section", `phase_section "The whole national drop"`, page,
			"\nThe whole national drop (2026-11-28, old box):\n\n| phase | seconds |\n| --- | ---: |\n| loading the nppes family | 146.3 |\n| building the fhir projection | 515.4 |\n"},
		{"the last section ends at its table", `phase_section "The national NPPES ingest"`, page,
			"\nThe national NPPES ingest (2026-11-28, old box):\n\n| phase | seconds |\n| --- | ---: |\n| loading the nppes family | 153.6 |\n"},
		{"phases never measured", `phase_section "The whole national drop"`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := "set -euo pipefail; source " + lib + "; bench_date=2026-12-07 bench_machine='new box' previous=" + tc.previous + "; " + tc.call
			out, err := exec.Command("bash", "-c", script).CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if string(out) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
		})
	}
}
