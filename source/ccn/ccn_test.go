package ccn

import (
	"testing"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/source/reference"
	"providerdir/testing/readercheck"
)

func TestRealTable(t *testing.T) {
	codes, err := Load(reference.Embedded(), File)
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != 138 {
		t.Fatalf("%d codes, want 138", len(codes))
	}
	// The table ident compiles in is exactly the published one.
	compiled := ident.CCNStateCodes()
	if len(compiled) != len(codes) {
		t.Errorf("ident has %d codes, the file %d", len(compiled), len(codes))
	}
	for _, c := range codes {
		if compiled[c.Code] != c.Abbr {
			t.Errorf("code %s: file says %s, ident %q", c.Code, c.Abbr, compiled[c.Code])
		}
		// Every code that names a state or territory names one ident knows.
		if c.Abbr != "CN" && c.Abbr != "MX" && c.Abbr != "FC" {
			if _, ok := ident.LookupState(c.Abbr); !ok {
				t.Errorf("code %s: %s is not a known state", c.Code, c.Abbr)
			}
		}
	}
	if codes[5] != (StateCode{"05", "CA", "California"}) {
		t.Errorf("row 5: %+v", codes[5])
	}
}

func TestEdgeCases(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, "ccn_edge.csv")
	if len(got) != 2 || got[0].Code != "05" || got[1].Code != "A0" {
		t.Errorf("got %+v", got)
	}
	if len(rep.Errors) != 2 || rep.Errors[0].Line != 4 || rep.Errors[0].Column != "ccn_state_code" ||
		rep.Errors[1].Line != 5 || rep.Errors[1].Reason != "wrong column count" {
		t.Errorf("errors %+v", rep.Errors)
	}
	_, err := source.OpenFS(reference.Embedded(), "nucc/nucc_taxonomy_251.csv", NewReader)
	readercheck.Refused(t, err, `missing "ccn_state_code", "state_abbr", "state_name"`)
}

func FuzzReader(f *testing.F) {
	readercheck.FuzzFiles(f, "*.csv", NewReader, func(c StateCode) bool {
		return len(c.Code) != 2 || len(c.Abbr) != 2
	})
}
