package ingest

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLines(t *testing.T) {
	for _, tc := range []struct {
		terminal bool
		want     []string
	}{
		{false, []string{"ingest: npidata.csv  100 rows  2 rejected", "ingest: committing 2 collections (a, b) (at ", "ingest: 100 rows, 2 rejected in 1.5s"}},
		{true, []string{"\r\033[Kingest: npidata.csv  100 rows  2 rejected", "\r\033[Kingest: committing 2 collections (a, b) (at ", "\r\033[Kingest: 100 rows, 2 rejected in 1.5s"}},
	} {
		var out bytes.Buffer
		p := NewProgress(&out, tc.terminal, time.Nanosecond)
		p.Update("npidata.csv", 100, 2, 50, 100)
		p.Phase("committing 2 collections (a, b)")
		p.Done(100, 2, 1500*time.Millisecond)
		got := out.String()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("terminal=%v: output %q lacks %q", tc.terminal, got, w)
			}
		}
		if n := strings.Count(got, "\n"); n != 3 && !tc.terminal || tc.terminal && n != 2 {
			t.Errorf("terminal=%v: %d lines in %q", tc.terminal, n, got)
		}
	}
}

// An ingest shorter than the interval prints no status line, only its phases and total.
func TestProgressQuietAtFirst(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, false, time.Hour)
	p.Update("NST-EST2024-ALLDATA.csv", 0, 0, 0, 100)
	p.Done(0, 0, time.Millisecond)
	if got := out.String(); strings.Contains(got, "NST-EST2024") || strings.Count(got, "\n") != 1 {
		t.Fatalf("output %q", got)
	}
}

// A long phase's progress names the phase (again after a commit interrupted it), its units
// done, of how many when known, its rate since the phase began and an ETA when the total is
// known. Its first line comes one interval after the phase began.
func TestPhaseUpdateLines(t *testing.T) {
	const step = "building the fhir projection"
	for _, tc := range []struct {
		name        string
		after       time.Duration // since the phase began
		done, total int64
		want        string // "" for no line
	}{
		{"total known", 20 * time.Second, 2560, 10240, "ingest: building the fhir projection  2560 of 10240 providers  128 providers/s  25.0%  ETA 1m0s\n"},
		{"total unknown", 20 * time.Second, 2560, 0, "ingest: building the fhir projection  2560 providers  128 providers/s  -%  ETA -\n"},
		{"within the first interval", 4 * time.Second, 256, 10240, ""},
	} {
		var out bytes.Buffer
		at := time.Unix(0, 0)
		p := newLineProgress(&out, false, 5*time.Second, func() time.Time { return at })
		at = at.Add(time.Minute)
		p.Phase(step)
		p.Phase("committing supply_by_state")
		out.Reset()
		at = at.Add(tc.after)
		p.PhaseUpdate(step, tc.done, tc.total, "providers")
		if got := out.String(); got != tc.want {
			t.Errorf("%s: output %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestPhaseClock drives the clock with a fake time and CPU time: each step's time and CPU time
// run from its report to the next one, a commit's interruption gives the time after it back to
// the interrupted step, and a step reported twice is summed.
func TestPhaseClock(t *testing.T) {
	type event struct {
		at        int // seconds after the start
		cpu       int // CPU seconds the process has used by then
		phase     string
		interrupt string
		end       bool // ends the last interruption
	}
	s := time.Second
	for _, tc := range []struct {
		name        string
		events      []event
		end, endCPU int
		want        []PhaseTime
	}{
		{"planning only", nil, 3, 2, []PhaseTime{{"planning", 3 * s, 2 * s}}},
		{"sequential", []event{{at: 1, cpu: 1, phase: "load a"}, {at: 4, cpu: 7, phase: "load b"}}, 10, 10,
			[]PhaseTime{{"planning", s, s}, {"load a", 3 * s, 6 * s}, {"load b", 6 * s, 3 * s}}},
		{"commit inside a projection", []event{{at: 2, cpu: 2, phase: "fhir"}, {at: 3, cpu: 4, interrupt: "commit"}, {at: 7, cpu: 5, end: true}}, 20, 31,
			[]PhaseTime{{"planning", 2 * s, 2 * s}, {"fhir", 14 * s, 28 * s}, {"commit", 4 * s, s}}},
		{"a step twice", []event{{at: 1, cpu: 1, phase: "x"}, {at: 2, cpu: 3, phase: "y"}, {at: 4, cpu: 4, phase: "x"}}, 5, 6,
			[]PhaseTime{{"planning", s, s}, {"x", 2 * s, 4 * s}, {"y", 2 * s, s}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := clockReading{at: start}
			c := newPhaseClock(discardProgress{}, func() clockReading { return now }, "planning")
			var ends []func()
			for _, e := range tc.events {
				now = clockReading{at: start.Add(time.Duration(e.at) * s), cpu: time.Duration(e.cpu) * s}
				switch {
				case e.phase != "":
					c.Phase(e.phase)
				case e.interrupt != "":
					ends = append(ends, interruptions(c)(e.interrupt))
				case e.end:
					ends[len(ends)-1]()
					ends = ends[:len(ends)-1]
				}
			}
			got := c.phases(clockReading{at: start.Add(time.Duration(tc.end) * s), cpu: time.Duration(tc.endCPU) * s})
			if len(got) != len(tc.want) {
				t.Fatalf("phases %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("phase %d: %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestPhaseCores divides a step's CPU time by its time, and reports none for a step whose CPU
// time is unknown or that was too short to tell.
func TestPhaseCores(t *testing.T) {
	for _, tc := range []struct {
		p      PhaseTime
		want   float64
		wantOK bool
	}{
		{PhaseTime{"fhir", 4 * time.Second, 7 * time.Second}, 1.75, true},
		{PhaseTime{"commit", 2 * time.Second, time.Second}, 0.5, true},
		{PhaseTime{"one second", time.Second, time.Second}, 1, true},
		{PhaseTime{"no CPU time known", time.Second, 0}, 0, false},
		{PhaseTime{"a few milliseconds", 20 * time.Millisecond, 80 * time.Millisecond}, 0, false},
		{PhaseTime{"took no time", 0, time.Second}, 0, false},
	} {
		if got, ok := tc.p.Cores(); got != tc.want || ok != tc.wantOK {
			t.Errorf("%s: %v cores (%v), want %v (%v)", tc.p.Step, got, ok, tc.want, tc.wantOK)
		}
	}
}

// TestProcessCPU reads the process's CPU time before and after spinning: it must be reported on
// this platform and must grow.
func TestProcessCPU(t *testing.T) {
	before, ok := processCPU()
	if !ok {
		t.Skip("this platform reports no CPU time")
	}
	spin := time.Now()
	for n := 0; time.Since(spin) < 50*time.Millisecond; n++ {
		_ = n * n
	}
	after, _ := processCPU()
	if after <= before {
		t.Fatalf("CPU time %v after spinning, %v before", after, before)
	}
}
