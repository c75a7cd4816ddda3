package ingest_test

import (
	"context"
	"path/filepath"
	"testing"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/source/sam"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/backends"
)

// TestIngestSAMAndQPP loads a drop and checks the SAM.gov and QPP families: dated by the extract's
// Julian date and by the scores' performance year, every good row stored, every bad row rejected,
// and the records found by NPI and year.
func TestIngestSAMAndQPP(t *testing.T) {
	drop := drops(t)
	base, man := drop.Base, drop.BaseManifest
	s := backends.Embedded(t)
	res, err := ingest.Run(context.Background(), ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()})
	if err != nil {
		t.Fatal(err)
	}
	c := man.Counts
	tests := []struct {
		family, snapshot, start, end string
		collection                   string
		docs                         int64
	}{
		{"sam", "2025-06-08", "2025-06-08", "2025-06-08", catalog.SAMExclusions, c.SAMMirrored + c.SAMOther},
		{"qpp", man.SnapshotDates["qpp"], "2023-01-01", "2023-12-31", catalog.MIPSScores, c.MIPSRows + c.MIPSOlderRows},
	}
	for _, tt := range tests {
		m := family(t, res, tt.family).Manifest
		if m.Snapshot != tt.snapshot || m.Coverage.Start != tt.start || m.Coverage.End != tt.end {
			t.Errorf("%s: snapshot %s, coverage %+v", tt.family, m.Snapshot, m.Coverage)
		}
		if m.Rejected != badRows(man, tt.family) || m.Rejected == 0 {
			t.Errorf("%s: rejected %d, the drop has %d bad rows", tt.family, m.Rejected, badRows(man, tt.family))
		}
		if got := count(t, s, tt.collection); got != tt.docs {
			t.Errorf("%s: %d documents, want %d", tt.collection, got, tt.docs)
		}
	}
	if got := count(t, s, catalog.MIPSScores, store.Condition{Param: stored.KeyPerformanceYear, Values: []string{"2019"}}); got != c.MIPSOlderRows {
		t.Errorf("%d scores of PY 2019, want %d", got, c.MIPSOlderRows)
	}
	r, err := sam.Open(filepath.Join(base, man.FilesOf("sam")[0].Name))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if c.SAMWithNPI == 0 {
		t.Fatalf("no SAM record with an NPI: %+v", c)
	}
	for found := int64(0); found < c.SAMWithNPI; {
		e, err := r.Next()
		if err != nil {
			t.Fatalf("fewer than %d SAM records with an NPI: %v", c.SAMWithNPI, err)
		}
		if e.NPI == "" {
			continue
		}
		found++
		if got := count(t, s, catalog.SAMExclusions, store.Condition{Param: stored.KeyNPI, Values: []string{e.NPI}}); got != 1 {
			t.Errorf("NPI %s: %d SAM documents, want 1", e.NPI, got)
		}
	}
}
