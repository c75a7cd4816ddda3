package mapping

import (
	"encoding/json"
	"testing"

	"providerdir/source"
	"providerdir/source/census"
	"providerdir/source/nppes"
	"providerdir/stored"
)

// TestStoredValuesMatchSources holds the values package stored names for readers to the
// strings the source readers produce, which mapping writes.
func TestStoredValuesMatchSources(t *testing.T) {
	for _, c := range []struct{ name, stored, source string }{
		{"individual", stored.EntityIndividual, nppes.EntityIndividual.String()},
		{"organization", stored.EntityOrganization, nppes.EntityOrganization.String()},
		{"unknown entity", stored.EntityUnknown, nppes.EntityType(0).String()},
		{"affiliated", stored.AffiliatedYes, source.Yes.String()},
	} {
		if c.stored != c.source {
			t.Errorf("%s: stored %q, source reader %q", c.name, c.stored, c.source)
		}
	}
}

// TestCensusRecordsKeepTheRowShape checks that a Census row is stored in the JSON shape of the
// reader's own type, which documents written before the stored types existed have.
func TestCensusRecordsKeepTheRowShape(t *testing.T) {
	s := census.State{FIPS: "06", Code: "CA", Name: "California", Region: "4", Division: "9", Population: 39431263, InThe51: true}
	c := census.County{FIPS: "35013", StateFIPS: "35", StateCode: "NM", StateName: "New Mexico", Name: "Doña Ana County", Population: 227958}
	sr, sk := CensusState(&s)
	cr, ck := CensusCounty(&c)
	for _, p := range []struct {
		name     string
		row, rec any
		keys     stored.Keys
		wantKeys int
	}{
		{"state", s, sr, sk, 2},
		{"county", c, cr, ck, 6}, // state, fips, the whole name and its three words
	} {
		row, _ := json.Marshal(p.row)
		rec, _ := json.Marshal(p.rec)
		if string(row) != string(rec) {
			t.Errorf("%s: stored %s, row %s", p.name, rec, row)
		}
		if len(p.keys) != p.wantKeys {
			t.Errorf("%s: keys %v", p.name, p.keys)
		}
	}
}
