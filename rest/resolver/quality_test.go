package resolver_test

import (
	"math"
	"testing"

	"providerdir/catalog"
	"providerdir/rest/apikey"
	"providerdir/rest/resolver"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/demostore"
)

// qualityRows reads every Care Compare row of the demo snapshot, by type.
func qualityRows(t *testing.T, st store.Store) map[string][]stored.QualityRecord {
	out := map[string][]stored.QualityRecord{}
	for _, r := range storedRecords[stored.QualityRecord](t, st, catalog.Quality) {
		out[r.Type] = append(out[r.Type], r)
	}
	return out
}

// GET /quality/{type}/{id} for each of the six types: the row's star and period, each measure's
// value (null where suppressed) and the national average recomputed here from every row of the
// type; and every error the path answers.
func TestQuality(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	rows := qualityRows(t, d.Store)
	suppressedSeen := false
	for _, qt := range stored.QualityTypes {
		list := rows[qt.Slug]
		if len(list) == 0 {
			t.Fatalf("the demo snapshot has no %s row", qt.Slug)
		}
		sums, counts := map[string]float64{}, map[string]int{}
		for _, row := range list {
			for _, m := range row.Measures {
				if m.Value != nil {
					sums[m.ID] += *m.Value
					counts[m.ID]++
				}
			}
		}
		row := list[0]
		r := e.get(t, "/resolver/v1/quality/"+qt.Slug+"/"+row.CCN, key)
		if r.Status != 200 {
			t.Fatalf("%s %s: %d %s", qt.Slug, row.CCN, r.Status, r.Raw)
		}
		provenanceKeys(t, qt.Slug, r.Body)
		rateLimitHeaders(t, qt.Slug, r)
		period, _ := r.Body["measurement_period"].(string)
		if r.Body["type"] != qt.Slug || r.Body["ccn"] != row.CCN || period != row.MeasurementPeriod {
			t.Errorf("%s: %v", qt.Slug, r.Body)
		}
		if row.OverallStar == nil && r.Body["overall_star"] != nil ||
			row.OverallStar != nil && r.Body["overall_star"] != math.Round(*row.OverallStar) {
			t.Errorf("%s: overall_star %v, row has %v", qt.Slug, r.Body["overall_star"], row.OverallStar)
		}
		measures := r.Body["measures"].([]any)
		if len(measures) != len(row.Measures) {
			t.Fatalf("%s: %d measures, row has %d", qt.Slug, len(measures), len(row.Measures))
		}
		for i, m := range measures {
			got := m.(map[string]any)
			want := row.Measures[i]
			if want.Value == nil {
				suppressedSeen = true
				if v, present := got["value"]; !present || v != nil {
					t.Errorf("%s %s: suppressed value served as %v", qt.Slug, want.ID, v)
				}
			} else if got["value"] != *want.Value {
				t.Errorf("%s %s: value %v, want %v", qt.Slug, want.ID, got["value"], *want.Value)
			}
			if n := counts[want.ID]; n > 0 {
				avg := math.Round(sums[want.ID]/float64(n)*1e4) / 1e4
				if got["national_avg"] != avg {
					t.Errorf("%s %s: national_avg %v, want %v over %d facilities", qt.Slug, want.ID, got["national_avg"], avg, n)
				}
			}
		}
	}
	if !suppressedSeen {
		t.Log("no suppressed measure among the rows looked at")
	}
	hospital := rows["hospital"][0].CCN
	for _, tt := range []struct {
		name, path, key string
		status          int
		code            string
	}{
		{"unknown type", "/resolver/v1/quality/clinic/" + hospital, key, 400, resolver.CodeInvalidType},
		{"malformed CCN", "/resolver/v1/quality/hospital/12345", key, 400, resolver.CodeInvalidCCN},
		{"unknown state code", "/resolver/v1/quality/hospital/ZZ0001", key, 400, resolver.CodeInvalidCCN},
		{"malformed CCN letters", "/resolver/v1/quality/hospital/zz!!00", key, 400, resolver.CodeInvalidCCN},
		{"no row of the type", "/resolver/v1/quality/asc/" + hospital, key, 404, "not_found"},
		{"no key", "/resolver/v1/quality/hospital/" + hospital, "", 401, "invalid_key"},
	} {
		r := e.get(t, tt.path, tt.key)
		if r.Status != tt.status || r.ErrorCode() != tt.code {
			t.Errorf("%s: %d %q, want %d %q: %s", tt.name, r.Status, r.ErrorCode(), tt.status, tt.code, r.Raw)
		}
		rateLimitHeaders(t, tt.name, r)
	}
}
