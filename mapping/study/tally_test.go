package study

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"providerdir/ident"
)

func TestTally(t *testing.T) {
	tl := NewTally()
	records := []struct {
		p       Provider
		matched bool
	}{
		{Provider{NPI: "1", Active: true, State: "CA", Codes: []string{"207RC0000X"}}, true},
		// the same code in two slots (two license states) counts once
		{Provider{NPI: "2", Active: true, State: "CA", Codes: []string{"207RC0000X", "207RC0000X"}}, true},
		// two dermatology codes: once for the specialty, once per code
		{Provider{NPI: "3", Active: true, State: "NY", Codes: []string{"207N00000X", "207ND0900X"}}, true},
		// neurology and psychiatry: once in each specialty
		{Provider{NPI: "4", Active: true, State: "DC", Codes: []string{"2084N0400X", "2084P0800X"}}, true},
		{Provider{NPI: "5", Active: false, State: "CA", Codes: []string{"207RC0000X"}}, true},
		{Provider{NPI: "6", Active: true, State: "PR", Codes: []string{"207RC0000X"}}, true},
		{Provider{NPI: "7", Active: true, State: "", Codes: []string{"207RC0000X"}}, true},
		{Provider{NPI: "8", Active: true, State: "CA", Codes: []string{"111N00000X"}}, false},
		{Provider{NPI: "9", Active: true, State: "CA", Codes: nil}, false},
		// organizations match but are not counted; a deactivated one is left out as deactivated
		{Provider{NPI: "10", Active: true, Organization: true, State: "CA", Codes: []string{"207RC0000X"}}, true},
		{Provider{NPI: "11", Active: true, Organization: true, State: "PR", Codes: []string{"207N00000X"}}, true},
		{Provider{NPI: "12", Active: false, Organization: true, State: "CA", Codes: []string{"207RC0000X"}}, true},
	}
	for _, r := range records {
		if got := tl.Add(r.p); got != r.matched {
			t.Errorf("Add(%s) = %v, want %v", r.p.NPI, got, r.matched)
		}
	}
	tests := []struct {
		name                                     string
		got                                      Counts
		states                                   map[string]int64
		deactivated, organizations, outsideThe51 int64
	}{
		{"cardiology", tl.Specialty("cardiology"), map[string]int64{"CA": 2}, 2, 1, 2},
		{"207RC0000X", tl.Code("207RC0000X"), map[string]int64{"CA": 2}, 2, 1, 2},
		{"dermatology", tl.Specialty("dermatology"), map[string]int64{"NY": 1}, 0, 1, 0},
		{"207N00000X", tl.Code("207N00000X"), map[string]int64{"NY": 1}, 0, 1, 0},
		{"207ND0900X", tl.Code("207ND0900X"), map[string]int64{"NY": 1}, 0, 0, 0},
		{"207NI0002X", tl.Code("207NI0002X"), map[string]int64{}, 0, 0, 0},
		{"neurology", tl.Specialty("neurology"), map[string]int64{"DC": 1}, 0, 0, 0},
		{"psychiatry", tl.Specialty("psychiatry"), map[string]int64{"DC": 1}, 0, 0, 0},
	}
	for _, tt := range tests {
		if len(tt.got.States) != len(tt.states) || tt.got.Deactivated != tt.deactivated || tt.got.Organizations != tt.organizations ||
			tt.got.OutsideThe51 != tt.outsideThe51 {
			t.Errorf("%s: %+v", tt.name, tt.got)
		}
		for s, n := range tt.states {
			if tt.got.States[s] != n {
				t.Errorf("%s: %s = %d, want %d", tt.name, s, tt.got.States[s], n)
			}
		}
	}
}

func TestBuildStudies(t *testing.T) {
	tl := NewTally()
	tl.Add(Provider{NPI: "1", Active: true, State: "CA", Codes: []string{"207ND0900X"}})
	states := []Row{{StateCode: "CA", StateName: "California", Population: 1000000}, {StateCode: "NY", StateName: "New York", Population: 1000000}}
	studies := Build(tl, Inputs{States: states, Names: map[string]string{"207N00000X": "Dermatology Physician"}})
	// 12 whole studies plus one per registered code
	want := 12
	for _, s := range Specialties() {
		want += len(s.Codes)
	}
	if len(studies) != want {
		t.Fatalf("%d studies, want %d", len(studies), want)
	}
	var ids []string
	for _, s := range studies {
		code := ""
		if s.Filter != nil {
			code = s.Filter.Code
		}
		ids = append(ids, ID(s.Specialty, code))
		if s.MethodologyVersion != MethodologyVersion || s.Dataset != s.Specialty+"-supply" || len(s.Rows) != 2 {
			t.Errorf("%s: %+v", ID(s.Specialty, code), s)
		}
	}
	if !slices.Contains(ids, "dermatology") || !slices.Contains(ids, "dermatology.207ND0900X") || !slices.Contains(ids, "cardiology.207RC0000X") {
		t.Fatalf("ids %v", ids)
	}
	for _, s := range studies {
		if s.Specialty != "dermatology" {
			continue
		}
		if s.DisplayName != "Dermatology Physician" {
			t.Errorf("display name %q", s.DisplayName)
		}
		ca, _ := s.Row("CA")
		switch {
		case s.Filter == nil, s.Filter.Code == "207ND0900X":
			if ca.ActiveProviders != 1 || s.National.ActiveProviders != 1 {
				t.Errorf("%v: CA %+v", s.Filter, ca)
			}
		default:
			if ca.ActiveProviders != 0 {
				t.Errorf("%v: CA %+v", s.Filter, ca)
			}
			// a code without a NUCC name shows the code itself
			if s.Filter.Code == "207NI0002X" && s.Filter.DisplayName != "207NI0002X" {
				t.Errorf("display name %q", s.Filter.DisplayName)
			}
		}
		if ny, _ := s.Row("NY"); s.Filter == nil && !ny.Underserved {
			t.Errorf("NY with no dermatologist is not underserved: %+v", ny)
		}
	}
}

// Counts.Add files a provider as Tally does: into its state when counted, else under the reason
// it was left out, deactivation first.
func TestCountsAdd(t *testing.T) {
	c := NewCounts()
	for _, p := range []Provider{
		{NPI: "1", Active: true, State: "TX"},
		{NPI: "2", Active: true, State: "TX"},
		{NPI: "3", Active: true, State: "DC"},
		{NPI: "4", Active: false, Organization: true, State: "TX"},
		{NPI: "5", Active: true, Organization: true, State: "TX"},
		{NPI: "6", Active: true, State: "PR"},
		{NPI: "7", Active: true, State: ""},
	} {
		c.Add(p)
	}
	if c.States["TX"] != 2 || c.States["DC"] != 1 || len(c.States) != 2 || c.Deactivated != 1 || c.Organizations != 1 || c.OutsideThe51 != 2 {
		t.Errorf("counts %+v", c)
	}
}

// The studies built from a tally give that tally back (TallyOf), and a tally taken back from
// studies, with changed records removed as they were and added as they are, builds the studies
// of the changed registry.
func TestTallyOfAndRemove(t *testing.T) {
	var states []Row
	for _, s := range ident.States() {
		if s.InThe51() {
			states = append(states, Row{StateCode: s.Code, StateName: s.Name, Population: 100000})
		}
	}
	before := []Provider{
		{NPI: "1", Active: true, State: "CA", Codes: []string{"207RC0000X"}},
		{NPI: "2", Active: true, State: "NY", Codes: []string{"207N00000X", "207ND0900X"}},
		{NPI: "3", Active: true, State: "TX", Codes: []string{"207RC0000X", "207RC0000X"}},
		{NPI: "4", Active: true, Organization: true, State: "CA", Codes: []string{"207RC0000X"}},
		{NPI: "5", Active: true, State: "PR", Codes: []string{"2084P0800X"}},
		{NPI: "6", Active: true, State: "WA", Codes: []string{"2084P0800X"}},
	}
	changes := []struct{ old, new *Provider }{
		{&before[0], &Provider{NPI: "1", Active: true, State: "OR", Codes: []string{"207RC0000X"}}},               // moved
		{&before[1], &Provider{NPI: "2", Active: true, State: "NY", Codes: []string{"207N00000X", "2084P0800X"}}}, // taxonomy
		{&before[2], &Provider{NPI: "3"}}, // deactivated
		{nil, &Provider{NPI: "7", Active: true, State: "CA", Codes: []string{"207RC0000X"}}},        // new
		{&before[4], &Provider{NPI: "5", Active: true, State: "PR", Codes: []string{"111N00000X"}}}, // no longer matches
	}
	after := map[string]Provider{}
	for _, p := range before {
		after[p.NPI] = p
	}
	for _, c := range changes {
		after[c.new.NPI] = *c.new
	}
	build := func(ps []Provider) []Study {
		tl := NewTally()
		for _, p := range ps {
			tl.Add(p)
		}
		return Build(tl, Inputs{States: states})
	}
	if got, want := Build(TallyOf(build(before)), Inputs{States: states}), build(before); !reflect.DeepEqual(got, want) {
		t.Fatal("the studies of TallyOf(studies) are not the studies")
	}
	tl := TallyOf(build(before))
	for _, c := range changes {
		if c.old != nil {
			tl.Remove(*c.old)
		}
		tl.Add(*c.new)
	}
	if got, want := Build(tl, Inputs{States: states}), build(slices.Collect(maps.Values(after))); !reflect.DeepEqual(got, want) {
		t.Errorf("updated studies differ from those of the changed registry:\n%+v\n%+v", got, want)
	}
}
