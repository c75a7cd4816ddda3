package census

import (
	"errors"
	"io/fs"
	"os"
	"testing"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/source/reference"
	"providerdir/testing/readercheck"
)

func TestRealStates(t *testing.T) {
	states, err := LoadStates(reference.Embedded(), StatesFile)
	if err != nil {
		t.Fatal(err)
	}
	the51 := The51(states)
	var sum int64
	for _, s := range the51 {
		sum += s.Population
	}
	if len(states) != 52 || len(the51) != 51 || sum != 340_110_988 {
		t.Errorf("%d states, %d in the 51, summing to %d; want 52, 51, 340110988", len(states), len(the51), sum)
	}
	// ident's compiled-in state names and FIPS codes agree with the Census.
	for _, s := range states {
		st, ok := ident.LookupState(s.Code)
		if !ok || st.FIPS != s.FIPS || st.Name != s.Name || st.InThe51() != s.InThe51 {
			t.Errorf("census %+v, ident %+v", s, st)
		}
	}
	if got := the51[4]; got.Code != "CA" || got.Name != "California" || got.Population != 39_431_263 {
		t.Errorf("California: %+v", got)
	}
}

func TestRealCounties(t *testing.T) {
	r, err := source.OpenFS(reference.Embedded(), CountiesFile, NewCountyReader)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	counties, rep := readercheck.Drain(t, r)
	if len(counties) != 3144 || rep.Rejected != 0 || rep.Skipped() != 51 {
		t.Fatalf("report %s", rep)
	}
	if rep.Encoding != "ISO-8859-1" {
		t.Errorf("encoding %s", rep.Encoding)
	}
	byFIPS := map[string]County{}
	states := map[string]bool{}
	for _, c := range counties {
		byFIPS[c.FIPS] = c
		states[c.StateCode] = true
	}
	if len(byFIPS) != 3144 || len(states) != 51 {
		t.Errorf("%d distinct FIPS, %d states", len(byFIPS), len(states))
	}
	for fips, name := range map[string]string{
		"35013": "Doña Ana County", "09110": "Capitol Planning Region", "02063": "Chugach Census Area",
		"02066": "Copper River Census Area", "11001": "District of Columbia", "01001": "Autauga County",
	} {
		if c := byFIPS[fips]; c.Name != name {
			t.Errorf("%s: %+v, want %s", fips, c, name)
		}
	}
	if c := byFIPS["01001"]; c.StateCode != "AL" || c.StateName != "Alabama" || c.Population != 61_464 {
		t.Errorf("Autauga: %+v", c)
	}
}

func TestStatesEdgeCases(t *testing.T) {
	got, rep := readercheck.DrainFile(t, OpenStates, "states_edge.csv")
	want := []State{
		{FIPS: "01", Code: "AL", Name: "Alabama", Region: "3", Division: "6", Population: 100, InThe51: true},
		{FIPS: "72", Code: "PR", Name: "Puerto Rico", Region: "X", Division: "X", Population: 5},
		{FIPS: "06", Code: "CA", Name: "California", Region: "4", Division: "9", Population: 200, InThe51: true},
	}
	readercheck.Equal(t, "row", got, want)
	wantErr := []source.RowError{
		{File: "states_edge.csv", Line: 5, Column: "STATE", Reason: "unknown state FIPS code", Value: "03"},
		{File: "states_edge.csv", Line: 6, Column: "POPESTIMATE2024", Reason: "bad number", Value: "abc"},
		{File: "states_edge.csv", Line: 7, Reason: "wrong column count", Value: "5 columns, header has 7"},
	}
	if rep.Skipped() != 1 {
		t.Errorf("report %s", rep)
	}
	readercheck.RowErrors(t, rep, wantErr)
	_, err := LoadStates(os.DirFS("testdata"), "states_edge.csv")
	readercheck.Refused(t, err, "3 rows rejected, first: states_edge.csv:5")
}

func TestCountiesEdgeCases(t *testing.T) {
	got, rep := readercheck.DrainFile(t, OpenCounties, "counties_edge.csv")
	if len(got) != 2 || got[0].Name != "Doña Ana County" || got[1].FIPS != "09110" || got[1].StateCode != "CT" {
		t.Errorf("got %+v", got)
	}
	reasons := []string{"invalid county FIPS code", "missing value", "missing value"}
	if len(rep.Errors) != len(reasons) {
		t.Fatalf("errors %+v", rep.Errors)
	}
	lines := []int{4, 6, 7}
	for i, want := range reasons {
		if rep.Errors[i].Reason != want || rep.Errors[i].Line != lines[i] {
			t.Errorf("error %d: %+v", i, rep.Errors[i])
		}
	}
}

func TestMisheaded(t *testing.T) {
	ref := reference.Embedded()
	_, err := source.OpenFS(ref, CountiesFile, NewStateReader)
	readercheck.Refused(t, err, `header does not match Census NST-EST2024-ALLDATA: missing "NAME"`)
	_, err = source.OpenFS(ref, StatesFile, NewCountyReader)
	readercheck.Refused(t, err, `missing "COUNTY", "STNAME", "CTYNAME"`)
	if _, err := LoadCounties(os.DirFS(t.TempDir()), "nope.csv"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func FuzzStates(f *testing.F) {
	readercheck.FuzzFiles(f, "states_*.csv", NewStateReader, func(s State) bool {
		_, ok := ident.StateByFIPS(s.FIPS)
		return !ok || s.Code == ""
	})
}

func FuzzCounties(f *testing.F) {
	readercheck.FuzzFiles(f, "counties_*.csv", NewCountyReader, func(c County) bool {
		return ident.ValidateCountyFIPS(c.FIPS) != nil
	})
}

func benchData(b *testing.B) []byte { return readercheck.Reference(b, CountiesFile) }

func BenchmarkCounties(b *testing.B) {
	readercheck.BenchRead(b, benchData(b), NewCountyReader)
}

func BenchmarkCountiesBareCSV(b *testing.B) { readercheck.BenchBareCSV(b, benchData(b)) }
