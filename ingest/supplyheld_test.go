package ingest

import (
	"testing"

	"providerdir/mapping/study"
	"providerdir/stored"
)

// A repeated NPI counts as its last record, as the store keeps it.
func TestHeldRegistryLastRecordWins(t *testing.T) {
	rec := func(npi, state string, active bool, codes ...string) *stored.RegistryRecord {
		r := &stored.RegistryRecord{NPI: npi, Active: active, EntityType: "individual"}
		r.PracticeAddress.State = state
		for _, c := range codes {
			r.Taxonomies = append(r.Taxonomies, stored.RegistryTaxonomy{Code: c})
		}
		return r
	}
	const cardiology = "207RC0000X"
	tests := []struct {
		name    string
		records []*stored.RegistryRecord
		want    map[string]int64 // cardiology providers by state
		deact   int64
	}{
		{"one record", []*stored.RegistryRecord{rec("1234567893", "VT", true, cardiology)}, map[string]int64{"VT": 1}, 0},
		{"repeated, moved", []*stored.RegistryRecord{rec("1234567893", "VT", true, cardiology), rec("1234567893", "NH", true, cardiology)}, map[string]int64{"NH": 1}, 0},
		{"repeated, code dropped", []*stored.RegistryRecord{rec("1234567893", "VT", true, cardiology), rec("1234567893", "VT", true, "390200000X")}, map[string]int64{}, 0},
		{"repeated, deactivated", []*stored.RegistryRecord{rec("1234567893", "VT", true, cardiology), rec("1234567893", "VT", false, cardiology)}, map[string]int64{}, 1},
		{"code listed twice", []*stored.RegistryRecord{rec("1234567893", "VT", true, cardiology, cardiology)}, map[string]int64{"VT": 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeldRegistry(stored.Provenance{})
			for _, r := range tt.records {
				h.add(r)
			}
			tally := study.NewTally()
			h.tally(tally)
			got := tally.Code(cardiology)
			for st, n := range got.States {
				if n != tt.want[st] {
					t.Errorf("%s: %d, want %d", st, n, tt.want[st])
				}
			}
			if got.Total() != int64(len(tt.want)) || got.Deactivated != tt.deact {
				t.Errorf("total %d deactivated %d, want %d and %d", got.Total(), got.Deactivated, len(tt.want), tt.deact)
			}
		})
	}
}
