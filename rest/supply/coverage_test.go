package supply_test

import (
	"reflect"
	"slices"
	"testing"

	"providerdir/mapping/study"
	"providerdir/rest/apikey"
	"providerdir/testing/apiclient"
)

// The coverage of a state is each specialty's row of that state, as by-state serves it.
func TestStateCoverage(t *testing.T) {
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	for _, state := range []string{"CA", "WY", "DC"} {
		r := e.get(t, "/v1/states/"+state+"/coverage", apiclient.Bearer(key)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", state, r.Status, r.Raw)
		}
		d := r.data()
		if value(d, "state_code") != state || d["methodology_version"] != study.MethodologyVersion {
			t.Errorf("%s: %v %v", state, value(d, "state_code"), d["methodology_version"])
		}
		var slugs, underserved []string
		for _, v := range d["specialties"].([]any) {
			sp := v.(map[string]any)
			slug := sp["slug"].(string)
			slugs = append(slugs, slug)
			if sp["study_url"] != e.URL+"/v1/specialties/"+slug+"/by-state" {
				t.Errorf("study_url %v", sp["study_url"])
			}
			var want map[string]any
			for _, row := range e.get(t, "/v1/specialties/"+slug+"/by-state", apiclient.Bearer(key)...).rows() {
				if value(row, "state_code") == state {
					want = row
				}
			}
			if !reflect.DeepEqual(sp["supply"], want) {
				t.Errorf("%s %s: coverage row differs from by-state", state, slug)
			}
			if value(want, "underserved") == true {
				underserved = append(underserved, slug)
			}
		}
		var all []string
		for _, sp := range study.Specialties() {
			all = append(all, sp.Slug)
		}
		if !slices.Equal(slugs, all) {
			t.Errorf("%s: specialties %v", state, slugs)
		}
		sum := d["summary"].(map[string]any)
		var got []string
		for _, s := range sum["underserved_specialties"].([]any) {
			got = append(got, s.(string))
		}
		if num(sum["specialties"]) != 12 || !slices.Equal(got, underserved) {
			t.Errorf("%s: summary %v, underserved %v", state, sum, underserved)
		}
	}
}
