package supply_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/rest/apikey"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/apiclient"
	"providerdir/testing/backends"
)

var sourceKeys = []string{"nppes", "oig_leie", "pecos", "qpp_mips", "open_payments", "sam_gov"}

// GET /v1/npi/{npi}: anonymous or keyed, cacheable only anonymous, one block per source with
// the 14-key provenance, data null where there is no record or no ingest.
func TestEntityResolution(t *testing.T) {
	e := demoEnv(t)
	f := demoFixtures(t)
	key := e.Key(t, apikey.TierPilot)
	tests := []struct {
		name          string
		npi           string
		headers       []string
		authenticated bool
		cache         string
		present       []string // blocks with data
	}{
		{"anonymous", f.dermatologist, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes"}},
		{"keyed", f.dermatologist, apiclient.Bearer(key), true, "private, no-store", []string{"nppes"}},
		{"excluded", f.excluded, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes", "oig_leie"}},
		{"enrolled", f.enrolled, apiclient.Bearer(key), true, "private, no-store", []string{"nppes", "pecos"}},
		{"paid", f.paid, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes", "open_payments"}},
		{"deactivated", f.deactivated, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes"}},
		{"on SAM.gov", f.samExcluded, nil, false, "public, max-age=60, stale-while-revalidate=86400", []string{"nppes", "sam_gov"}},
		{"MIPS-scored", f.scored, apiclient.Bearer(key), true, "private, no-store", []string{"nppes", "qpp_mips"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, "/v1/npi/"+tt.npi, tt.headers...)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if r.Header.Get("Cache-Control") != tt.cache || r.Header.Get("Vary") != "Authorization" {
				t.Errorf("Cache-Control %q Vary %q", r.Header.Get("Cache-Control"), r.Header.Get("Vary"))
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
				want := slices.Clone(stored.ProvenanceKeys)
				slices.Sort(want)
				if !slices.Equal(keys, want) {
					t.Errorf("%s: provenance keys %v", k, keys)
				}
				avail := prov["_data_availability"].([]any)
				hasData := block["data"] != nil
				switch {
				case slices.Contains(tt.present, k):
					if !hasData || avail[0] != "present" || prov["_snapshot"] == nil {
						t.Errorf("%s: want data: %v", k, block)
					}
				default:
					// On the demo snapshot every source is ingested and searched; a provider
					// chosen for one source may have records in others.
					if hasData && k == "nppes" {
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
	if ex["data"].(map[string]any)["excluded"] != true || ex["provenance"].(map[string]any)["_dataset_id"] != stored.LEIE.ID {
		t.Errorf("oig_leie block %v", ex)
	}
	// The SAM.gov block lists the extract's records of the NPI; the QPP block the scores, latest
	// performance year first, with that year's provenance.
	sg := e.get(t, "/v1/npi/"+f.samExcluded).data()["sources"].(map[string]any)["sam_gov"].(map[string]any)
	sd := sg["data"].(map[string]any)
	if sd["excluded"] != true || sd["exclusions"].([]any)[0].(map[string]any)["npi"] != f.samExcluded ||
		sg["provenance"].(map[string]any)["_dataset_id"] != stored.SAMExclusions.ID {
		t.Errorf("sam_gov block %v", sg)
	}
	qp := e.get(t, "/v1/npi/"+f.scored).data()["sources"].(map[string]any)["qpp_mips"].(map[string]any)
	qd, qprov := qp["data"].(map[string]any), qp["provenance"].(map[string]any)
	years := qd["performance_years"].([]any)
	first := qd["scores"].([]any)[0].(map[string]any)
	if len(years) == 0 || first["npi"] != f.scored || first["performance_year"] != years[0] || first["final_score"] == nil ||
		qprov["_dataset_id"] != stored.QPPMIPS.ID || qprov["_coverage_period_start"] != fmt.Sprintf("%v-01-01", years[0]) {
		t.Errorf("qpp_mips block %v", qp)
	}
	// Errors are cacheable the same way: the answer is the same for everyone.
	for _, h := range [][]string{nil, apiclient.Bearer(key)} {
		r := e.get(t, "/v1/npi/"+f.absent, h...)
		want := "public, max-age=60, stale-while-revalidate=86400"
		if h != nil {
			want = "private, no-store"
		}
		if r.Status != 404 || r.Header.Get("Cache-Control") != want {
			t.Errorf("404: %d Cache-Control %q", r.Status, r.Header.Get("Cache-Control"))
		}
	}
}

// A source family the serving snapshot holds no file of answers with data null and the
// provenance of what is known without a snapshot: source, landing page, dataset, methodology,
// license and build, null for the snapshot's facts, never a made-up date or confidence.
func TestEntityResolutionFamilyNotLoaded(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	m, err := synth.Generate(ctx, synth.Config{Providers: 200, Seed: 3, Out: dir, Reference: reference.Embedded()})
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range []string{"sam", "qpp"} {
		for _, f := range m.FilesOf(fam) {
			if err := os.Remove(filepath.Join(dir, f.Name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	st := backends.Embedded(t)
	if _, err := ingest.Run(ctx, ingest.Options{Store: st, Dir: dir, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, st)
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	page, err := st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders), Limit: 1})
	if err != nil || len(page.Docs) != 1 {
		t.Fatalf("no registry record: %v", err)
	}
	sources := e.get(t, "/v1/npi/"+page.Docs[0].ID).data()["sources"].(map[string]any)
	for k, d := range map[string]stored.Dataset{"sam_gov": stored.SAMExclusions, "qpp_mips": stored.QPPMIPS} {
		block := sources[k].(map[string]any)
		prov := block["provenance"].(map[string]any)
		if block["data"] != nil || prov["_data_availability"].([]any)[0] != "not_ingested" {
			t.Errorf("%s: %v", k, block)
		}
		known := map[string]any{"_source": d.Source, "_source_url": d.SourceURL, "_dataset_id": d.ID, "_methodology": d.Methodology, "_license": d.License}
		for pk, want := range known {
			if prov[pk] != want {
				t.Errorf("%s: %s = %v, want %v", k, pk, prov[pk], want)
			}
		}
		for _, pk := range []string{"_snapshot", "_last_checked", "_confidence", "_coverage_period_start", "_coverage_period_end", "_doi", "_slsa_provenance_url"} {
			if prov[pk] != nil {
				t.Errorf("%s: %s = %v, want null", k, pk, prov[pk])
			}
		}
	}
	if sources["oig_leie"].(map[string]any)["provenance"].(map[string]any)["_snapshot"] == nil {
		t.Error("an ingested family answered without its snapshot")
	}
}
