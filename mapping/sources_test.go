package mapping

import (
	"slices"
	"testing"
	"time"

	"providerdir/source"
	"providerdir/source/qpp"
	"providerdir/source/sam"
	"providerdir/store"
	"providerdir/stored"
)

func hasKey(k stored.Keys, param, value string) bool {
	return slices.ContainsFunc(k, func(x store.Key) bool { return x.Param == param && x.Value == value })
}

func TestSAMExclusion(t *testing.T) {
	active := source.Date{Year: 2020, Month: time.March, Day: 12}
	tests := []struct {
		name     string
		in       sam.Exclusion
		id, term string
		line2    string
		person   bool
		keys     [][2]string
	}{
		{"individual, indefinite", sam.Exclusion{Classification: "Individual", First: "JANE", Last: "DOE", State: "TX", Agency: "HHS",
			Type: "Prohibition/Restriction", ActiveDate: active, Indefinite: true, SAMNumber: "S4M000001", NPI: "1234567893"},
			"S4M000001", stored.SAMIndefinite, "", true, [][2]string{{stored.KeyNPI, "1234567893"}}},
		{"firm, dated, no SAM number", sam.Exclusion{Classification: "Firm", Name: "ACME, LLC", Address1: "1 MAIN ST", Address2: "SUITE 4",
			Address3: " ", Address4: "FLOOR 2", Agency: "OPM", Type: "Ineligible (Proceedings Completed)", ActiveDate: active,
			TerminationDate: source.Date{Year: 2026, Month: time.November, Day: 1}},
			"", "2026-11-01", "SUITE 4 FLOOR 2", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, rec, keys := SAMExclusion(&tt.in)
			if tt.id != "" && id != tt.id || id == "" {
				t.Errorf("id %q, want %q", id, tt.id)
			}
			if rec.TerminationDate != tt.term || rec.Address.Line2 != tt.line2 || (rec.Name != nil) != tt.person || rec.ActiveDate != "2020-03-12" {
				t.Errorf("record %+v", rec)
			}
			for _, k := range tt.keys {
				if !hasKey(keys, k[0], k[1]) {
					t.Errorf("no key %s=%s in %v", k[0], k[1], keys)
				}
			}
		})
	}
}

func TestMIPSScore(t *testing.T) {
	q := 88.5
	s := qpp.Score{NPI: "1234567893", OrgPACID: "1234500001", Source: "group", Quality: &q, Final: 90}
	id23, rec, keys := MIPSScore(&s, 2023)
	if rec.PerformanceYear != 2023 || *rec.Quality != 88.5 || rec.PI != nil || rec.Final != 90 || !hasKey(keys, stored.KeyPerformanceYear, "2023") {
		t.Errorf("record %+v keys %v", rec, keys)
	}
	id0, rec0, keys0 := MIPSScore(&s, 0)
	if rec0.PerformanceYear != 0 || slices.ContainsFunc(keys0, func(k store.Key) bool { return k.Param == stored.KeyPerformanceYear }) {
		t.Errorf("a year invented: %+v %v", rec0, keys0)
	}
	s.Source = "individual"
	idInd, _, _ := MIPSScore(&s, 2023)
	if id23 == id0 || id23 == idInd {
		t.Errorf("ids do not tell year and source apart: %s %s %s", id23, id0, idInd)
	}
}
