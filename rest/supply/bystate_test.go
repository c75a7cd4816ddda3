package supply_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"providerdir/ident"
	"providerdir/mapping/study"
	"providerdir/rest/apikey"
	"providerdir/stored"
	"providerdir/testing/apiclient"
)

// A by-state answer: the 51 rows in state code order, every field a ProvenanceField naming its
// true source, and the meta of a study.
func TestByStateRowsAndProvenance(t *testing.T) {
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	r := e.get(t, "/v1/specialties/cardiology/by-state", apiclient.Bearer(key)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	rows := r.rows()
	var want []string
	for _, s := range ident.The51() {
		want = append(want, s.Code)
	}
	slices.Sort(want)
	var got []string
	var total int64
	for _, row := range rows {
		got = append(got, value(row, "state_code").(string))
		total += num(value(row, "active_providers"))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("states %v", got)
	}
	if total == 0 {
		t.Fatal("no cardiologist counted")
	}

	sources := map[string]string{
		"state_code": stored.Census.Source, "state_name": stored.Census.Source, "population_2024": stored.Census.Source,
		"active_providers": stored.NPPES.Source,
	}
	for _, row := range rows {
		for _, field := range study.RowFields {
			f := row[field].(map[string]any)
			src, _ := f["source"].(string)
			if want, ok := sources[field]; ok {
				if src != want {
					t.Errorf("%s: source %q, want %q", field, src, want)
				}
				if f["confidence_score"] != 1.0 {
					t.Errorf("%s: confidence %v", field, f["confidence_score"])
				}
			} else {
				if !strings.Contains(src, "cardiology-supply "+study.MethodologyVersion) ||
					!strings.Contains(src, "computed from nppes (snapshot ") || !strings.Contains(src, "and census_pep_v2024 (snapshot 2024-07-01)") {
					t.Errorf("%s: source %q", field, src)
				}
				if f["source_url"] != e.URL+"/v1/methodology/cardiology-supply" {
					t.Errorf("%s: source_url %v", field, f["source_url"])
				}
				if _, has := f["confidence_score"]; has {
					t.Errorf("%s: a computed figure carries a confidence score", field)
				}
			}
			if f["attribution_text"] == "" || f["limitations"] == "" {
				t.Errorf("%s: attribution %q limitations %q", field, f["attribution_text"], f["limitations"])
			}
		}
	}

	meta := r.meta()
	if meta["methodology_url"] != e.URL+"/v1/methodology/cardiology-supply" || meta["limitations_url"] != e.URL+"/docs/limitations" ||
		meta["documentation_url"] != e.URL+"/v1/openapi.json" {
		t.Errorf("meta links %v", meta)
	}
	if p := meta["pagination"].(map[string]any); num(p["total"]) != 51 || num(p["page"]) != 1 || num(p["per_page"]) != 51 {
		t.Errorf("pagination %v", p)
	}
	if _, has := meta["subspecialty_filter"]; has {
		t.Error("subspecialty_filter without a filter")
	}
	var families []string
	for _, f := range meta["data_freshness"].([]any) {
		families = append(families, f.(map[string]any)["source"].(string))
	}
	slices.Sort(families)
	wantFamilies := []string{stored.NUCC.Source, stored.NPPES.Source, stored.Census.Source}
	slices.Sort(wantFamilies)
	if !slices.Equal(families, wantFamilies) {
		t.Errorf("data_freshness sources %v, want %v", families, wantFamilies)
	}
}

// Rules 2-5 of docs/contracts/supply-api.md §4: recomputed rows, never underserved, the filter in
// meta.
func TestSubspecialtyFilter(t *testing.T) {
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	byState := func(slug, query string) response {
		t.Helper()
		r := e.get(t, "/v1/specialties/"+slug+"/by-state"+query, apiclient.Bearer(key)...)
		if r.Status != 200 {
			t.Fatalf("%s%s: %d %s", slug, query, r.Status, r.Raw)
		}
		return r
	}
	counts := func(r response) map[string]int64 {
		out := map[string]int64{}
		for _, row := range r.rows() {
			out[value(row, "state_code").(string)] = num(value(row, "active_providers"))
		}
		return out
	}
	tests := []struct {
		slug, code, query string
		displayName       string
		sameAsWhole       bool
	}{
		{"dermatology", "207ND0900X", "?subspecialty=207ND0900X", "Dermatopathology Physician", false},
		{"dermatology", "207N00000X", "?subspecialty=207N00000X", "Dermatology Physician", false},
		{"obgyn", "207VG0400X", "?subspecialty=207VG0400X", "Gynecology Physician", false},
		{"pediatrics", "2080P0204X", "?subspecialty=2080p0204x", "Pediatric Emergency Medicine (Pediatrics) Physician", false},
		{"cardiology", "207RC0000X", "?subspecialty=207RC0000X", "Cardiovascular Disease Physician", true},
		{"psychiatry", "2084P0800X", "?subspecialty=2084P0800X", "Psychiatry Physician", true},
	}
	for _, tt := range tests {
		t.Run(tt.slug+" "+tt.code, func(t *testing.T) {
			whole, filtered := byState(tt.slug, ""), byState(tt.slug, tt.query)
			wc, fc := counts(whole), counts(filtered)
			var matched int64
			for s, n := range fc {
				matched += n
				if n > wc[s] {
					t.Errorf("%s: %d filtered, %d in the whole study", s, n, wc[s])
				}
			}
			if tt.sameAsWhole != (fmt.Sprint(wc) == fmt.Sprint(fc)) {
				t.Errorf("filtered counts equal the whole study's: %v, want %v", !tt.sameAsWhole, tt.sameAsWhole)
			}
			for _, row := range filtered.rows() {
				if value(row, "underserved") != false {
					t.Errorf("%v: underserved under a filter", value(row, "state_code"))
				}
			}
			sf := filtered.meta()["subspecialty_filter"].(map[string]any)
			if sf["applied_code"] != tt.code || sf["display_name"] != tt.displayName || num(sf["matched_record_count"]) != matched {
				t.Errorf("subspecialty_filter %v, want %s %q %d", sf, tt.code, tt.displayName, matched)
			}
			if matched == 0 {
				t.Errorf("no provider holds %s in the demo snapshot", tt.code)
			}
		})
	}
}

// Rule 4: the error lists the supported codes of the specialty.
func TestInvalidSubspecialtyListsSupportedCodes(t *testing.T) {
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	for _, slug := range []string{"dermatology", "cardiology", "pediatrics"} {
		r := e.get(t, "/v1/specialties/"+slug+"/by-state?subspecialty=111N00000X", apiclient.Bearer(key)...)
		sp, _ := study.Lookup(slug)
		details := r.Body["error"].(map[string]any)["details"].(map[string]any)
		var got []string
		for _, c := range details["supported_codes"].([]any) {
			got = append(got, c.(string))
		}
		if r.Status != 400 || !slices.Equal(got, sp.Codes) {
			t.Errorf("%s: %d, supported codes %v", slug, r.Status, got)
		}
		if msg := r.Body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, sp.Codes[0]) {
			t.Errorf("%s: message %q does not list the codes", slug, msg)
		}
	}
}
