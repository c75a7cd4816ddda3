package supply_test

import (
	"reflect"
	"strings"
	"testing"

	"providerdir/rest/apikey"
	"providerdir/testing/apiclient"
)

// Rule 6: by-county carries the state's row as state_level_supply, the county in
// meta.geo_scope_note, and under a filter the state's slice of it.
func TestByCounty(t *testing.T) {
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	tests := []struct {
		slug, state, fips, subspecialty string
		countyName                      string
	}{
		{"cardiology", "CA", "06037", "", "Los Angeles County"},
		{"dermatology", "NM", "35013", "", "Doña Ana County"},
		{"dermatology", "NY", "36061", "207ND0900X", "New York County"},
		{"pediatrics", "CT", "09110", "208000000X", "Capitol Planning Region"},
		{"psychiatry", "DC", "11001", "", "District of Columbia"},
	}
	for _, tt := range tests {
		t.Run(tt.slug+" "+tt.fips, func(t *testing.T) {
			q := ""
			if tt.subspecialty != "" {
				q = "?subspecialty=" + tt.subspecialty
			}
			sep := "?"
			if q != "" {
				sep = "&"
			}
			c := e.get(t, "/v1/specialties/"+tt.slug+"/by-county"+q+sep+"state="+tt.state+"&county_fips="+tt.fips, apiclient.Bearer(key)...)
			s := e.get(t, "/v1/specialties/"+tt.slug+"/by-state"+q, apiclient.Bearer(key)...)
			if c.Status != 200 || s.Status != 200 {
				t.Fatalf("by-county %d, by-state %d: %.300s", c.Status, s.Status, c.Raw)
			}
			var stateRow map[string]any
			for _, row := range s.rows() {
				if value(row, "state_code") == tt.state {
					stateRow = row
				}
			}
			got := c.data()["state_level_supply"].(map[string]any)
			if !reflect.DeepEqual(got, stateRow) {
				t.Errorf("state_level_supply %v\nby-state row %v", got, stateRow)
			}
			county := c.data()["county"].(map[string]any)
			if value(county, "fips") != tt.fips || value(county, "name") != tt.countyName || value(county, "state_code") != tt.state {
				t.Errorf("county %v", county)
			}
			note, _ := c.meta()["geo_scope_note"].(string)
			if !strings.Contains(note, tt.countyName) || !strings.Contains(note, tt.fips) || !strings.Contains(note, "("+tt.state+")") {
				t.Errorf("geo_scope_note %q", note)
			}
			sf, filtered := c.meta()["subspecialty_filter"].(map[string]any)
			if filtered != (tt.subspecialty != "") {
				t.Fatalf("subspecialty_filter %v", c.meta()["subspecialty_filter"])
			}
			if filtered && (sf["applied_code"] != tt.subspecialty || num(sf["matched_record_count"]) != num(value(got, "active_providers"))) {
				t.Errorf("subspecialty_filter %v: want the state's count %v", sf, value(got, "active_providers"))
			}
			if c.meta()["methodology_url"] != e.URL+"/v1/methodology/"+tt.slug+"-supply" {
				t.Errorf("methodology_url %v", c.meta()["methodology_url"])
			}
		})
	}
}

// state_county_mismatch says where the county is.
func TestStateCountyMismatchDetails(t *testing.T) {
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	r := e.get(t, "/v1/specialties/cardiology/by-county?state=NV&county_fips=06037", apiclient.Bearer(key)...)
	d := r.Body["error"].(map[string]any)["details"].(map[string]any)
	if r.Status != 400 || d["county_state"] != "CA" || d["state"] != "NV" || d["county_fips"] != "06037" {
		t.Fatalf("%d %v", r.Status, r.Body)
	}
}
