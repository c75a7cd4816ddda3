package supply_test

import (
	"reflect"
	"testing"

	"providerdir/rest/apikey"
	"providerdir/stored"
	"providerdir/testing/apiclient"
)

// A ProviderRecord holds the registry's values as the NPPES file publishes them, each with the
// registry's provenance.
func TestProviderRecord(t *testing.T) {
	e := demoEnv(t)
	f := demoFixtures(t)
	_, drop, _ := demoSnapshot(t)
	key := e.Key(t, apikey.TierPilot)
	registry := readRegistry(t, drop)

	// Several providers: the dermatologist and the first few other counted ones of the file.
	npis := []string{f.dermatologist}
	for npi, r := range registry {
		if len(npis) >= 6 {
			break
		}
		if r.active && r.individual && uspsByNameHas(r.state) && len(r.codes) > 0 && npi != f.dermatologist {
			if sp := specialtyOfCodes(r.primary, r.codes); sp != "" {
				npis = append(npis, npi)
			}
		}
	}
	for _, npi := range npis {
		r := e.get(t, "/v1/providers/"+npi, apiclient.Bearer(key)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", npi, r.Status, r.Raw)
		}
		want := registry[npi]
		d := r.data()
		var codes []string
		for _, c := range value(d, "taxonomy_codes").([]any) {
			codes = append(codes, c.(string))
		}
		got := []any{value(d, "npi"), value(d, "taxonomy_primary"), value(d, "state"), value(d, "city"), value(d, "last_updated_in_source"), codes,
			value(d, "specialty")}
		exp := []any{npi, want.primary, want.state, want.city, want.lastUpdated, want.codes, specialtyOfCodes(want.primary, want.codes)}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: served %v\nfile %v", npi, got, exp)
		}
		for field, v := range d {
			pf := v.(map[string]any)
			if pf["source"] != stored.NPPES.Source || pf["source_url"] != stored.NPPES.SourceURL || pf["confidence_score"] != 1.0 {
				t.Errorf("%s %s: provenance %v", npi, field, pf)
			}
		}
		if r.meta()["methodology_url"] != e.URL+"/v1/methodology/"+value(d, "specialty").(string)+"-supply" {
			t.Errorf("methodology_url %v", r.meta()["methodology_url"])
		}
	}
	if value(e.get(t, "/v1/providers/"+f.dermatologist, apiclient.Bearer(key)...).data(), "specialty") != "dermatology" {
		t.Error("a dermatopathologist is not reported under dermatology")
	}
}

func uspsByNameHas(code string) bool {
	for _, c := range uspsByName {
		if c == code {
			return true
		}
	}
	return false
}

// specialtyOfCodes is the written rule: the specialty of the primary code when registered, else
// the first specialty in slug order whose codes the list holds.
func specialtyOfCodes(primary string, codes []string) string {
	registered := []struct {
		slug  string
		codes []string
	}{
		{"cardiology", []string{"207RC0000X"}},
		{"dermatology", []string{"207N00000X", "207ND0900X", "207NI0002X", "207NP0225X", "207NS0135X"}},
		{"gastroenterology", []string{"207RG0100X"}},
		{"neurology", []string{"2084N0400X"}},
		{"obgyn", []string{"207V00000X", "207VX0000X", "207VG0400X"}},
		{"oncology", []string{"207RX0202X"}},
		{"ophthalmology", []string{"207W00000X"}},
		{"orthopedic", []string{"207X00000X"}},
		{"otolaryngology", []string{"207Y00000X"}},
		{"pediatrics", []string{"208000000X", "2080A0000X", "2080P0006X", "2080P0008X", "2080N0001X", "2080P0202X", "2080P0203X",
			"2080P0204X", "2080P0205X", "2080P0206X", "2080P0207X", "2080P0208X", "2080P0210X", "2080P0214X", "2080P0216X",
			"2080I0007X", "2080S0010X", "2080S0012X", "2080T0002X", "2080H0002X"}},
		{"psychiatry", []string{"2084P0800X"}},
		{"urology", []string{"208800000X"}},
	}
	holds := func(list []string, c string) bool {
		for _, x := range list {
			if x == c {
				return true
			}
		}
		return false
	}
	first := ""
	for _, s := range registered {
		for _, c := range codes {
			if holds(s.codes, c) {
				if holds(s.codes, primary) {
					return s.slug
				}
				if first == "" {
					first = s.slug
				}
			}
		}
	}
	return first
}
