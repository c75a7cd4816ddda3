package supply_test

import (
	"slices"
	"testing"

	"providerdir/mapping"
	"providerdir/rest/apikey"
)

var sourceKeys = []string{"nppes", "oig_leie", "pecos", "qpp_mips", "open_payments", "sam_gov"}

// GET /v1/npi/{npi}: anonymous or keyed, cacheable only anonymous, one block per source with
// the 14-key provenance, data null where there is no record or no ingest.
func TestEntityResolution(t *testing.T) {
	e := demoEnv(t)
	f := demoFixtures(t)
	key := e.key(t, apikey.TierPilot)
	tests := []struct {
		name          string
		npi           string
		headers       []string
		authenticated bool
		cache         string
		present       []string // blocks with data
	}{
		{"anonymous", f.dermatologist, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes"}},
		{"keyed", f.dermatologist, bearer(key), true, "private, no-store", []string{"nppes"}},
		{"excluded", f.excluded, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes", "oig_leie"}},
		{"enrolled", f.enrolled, bearer(key), true, "private, no-store", []string{"nppes", "pecos"}},
		{"paid", f.paid, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes", "open_payments"}},
		{"deactivated", f.deactivated, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, "/v1/npi/"+tt.npi, tt.headers...)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.raw)
			}
			if r.header.Get("Cache-Control") != tt.cache || r.header.Get("Vary") != "Authorization" {
				t.Errorf("Cache-Control %q Vary %q", r.header.Get("Cache-Control"), r.header.Get("Vary"))
			}
			d := r.data()
			if d["npi"] != tt.npi || d["authenticated"] != tt.authenticated {
				t.Errorf("npi %v authenticated %v", d["npi"], d["authenticated"])
			}
			sources := d["sources"].(map[string]any)
			for _, k := range sourceKeys {
				block := sources[k].(map[string]any)
				prov := block["provenance"].(map[string]any)
				var keys []string
				for pk := range prov {
					keys = append(keys, pk)
				}
				slices.Sort(keys)
				want := slices.Clone(mapping.ProvenanceKeys)
				slices.Sort(want)
				if !slices.Equal(keys, want) {
					t.Errorf("%s: provenance keys %v", k, keys)
				}
				avail := prov["_data_availability"].([]any)
				hasData := block["data"] != nil
				switch {
				case k == "qpp_mips" || k == "sam_gov":
					if hasData || avail[0] != "not_ingested" || prov["_snapshot"] != nil || prov["_last_checked"] != nil {
						t.Errorf("%s: a source never ingested: %v", k, block)
					}
				case slices.Contains(tt.present, k):
					if !hasData || avail[0] != "present" || prov["_snapshot"] == nil {
						t.Errorf("%s: want data: %v", k, block)
					}
				default:
					// On the demo snapshot every other source is ingested and searched.
					if hasData && k != "pecos" && k != "open_payments" && k != "oig_leie" {
						t.Errorf("%s: unexpected data", k)
					}
					if !hasData && (avail[0] != "absent" || prov["_snapshot"] == nil || prov["_confidence"] != 1.0) {
						t.Errorf("%s: an absent record: %v", k, prov)
					}
				}
				if prov["_doi"] != nil || prov["_slsa_provenance_url"] != nil {
					t.Errorf("%s: _doi or _slsa_provenance_url invented: %v", k, prov)
				}
			}
			nppes := sources["nppes"].(map[string]any)
			if nppes["data"].(map[string]any)["npi"] != tt.npi || nppes["provenance"].(map[string]any)["_dataset_id"] != "nppes" {
				t.Errorf("nppes block %v", nppes)
			}
		})
	}
	// The excluded provider's block says so, with the list's provenance.
	ex := e.get(t, "/v1/npi/"+f.excluded).data()["sources"].(map[string]any)["oig_leie"].(map[string]any)
	if ex["data"].(map[string]any)["excluded"] != true || ex["provenance"].(map[string]any)["_dataset_id"] != mapping.LEIE.ID {
		t.Errorf("oig_leie block %v", ex)
	}
	// Errors are cacheable the same way: the answer is the same for everyone.
	for _, h := range [][]string{nil, bearer(key)} {
		r := e.get(t, "/v1/npi/"+f.absent, h...)
		want := "public, max-age=60, stale-while-revalidate=86400"
		if h != nil {
			want = "private, no-store"
		}
		if r.status != 404 || r.header.Get("Cache-Control") != want {
			t.Errorf("404: %d Cache-Control %q", r.status, r.header.Get("Cache-Control"))
		}
	}
}
