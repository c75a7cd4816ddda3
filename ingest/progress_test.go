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
