package main

import (
	"bytes"
	"testing"
	"time"

	"providerdir/ingest"
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
