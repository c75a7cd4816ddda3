package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"providerdir/match/queryset"
)

// The resolver scenarios read the first labelled query's NPI and search for its text, and, given
// a ZIP code, search near it, with the keys in turn, metered.
func TestResolverScenarios(t *testing.T) {
	qs := []queryset.Query{{Q: "J. Ashford", State: "CA", Taxonomy: "207R00000X", NPI: "1234567893"}}
	if scs, err := resolverScenarios([]string{"k1"}, qs, ""); err != nil || len(scs) != 3 {
		t.Fatalf("without a ZIP: %d scenarios, %v", len(scs), err)
	}
	scs, err := resolverScenarios([]string{"k1", "k2"}, qs, "75090")
	if err != nil || len(scs) != 4 {
		t.Fatalf("%d scenarios, %v", len(scs), err)
	}
	if near := scs[3]; near.name != nearScenario || near.method != "GET" || near.path != "/resolver/v1/search?limit=20&near=75090&radius=25" {
		t.Errorf("near scenario %q %s %s", near.name, near.method, near.path)
	}
	var batch struct{ NPIs []string }
	if b := scs[2]; b.method != "POST" || b.path != "/resolver/v1/batch/npi" || json.Unmarshal([]byte(b.body(0)), &batch) != nil ||
		len(batch.NPIs) != 1000 || batch.NPIs[999] != "1234567893" || !slices.Equal(b.rates, batchRates) {
		t.Errorf("batch scenario %s %s, %d NPIs, rates %v", b.method, b.path, len(batch.NPIs), b.rates)
	}
	if scs[0].path != "/resolver/v1/npi/1234567893" || !strings.HasPrefix(scs[1].path, "/resolver/v1/search?") ||
		!strings.Contains(scs[1].path, "q=J.+Ashford") || !strings.Contains(scs[1].path, "state=CA") {
		t.Errorf("paths %q %q", scs[0].path, scs[1].path)
	}
	for _, sc := range scs {
		if !sc.metered || sc.header(0).Get("X-Service-Key") != "k1" || sc.header(1).Get("X-Service-Key") != "k2" {
			t.Errorf("%s: metered %v, keys %q %q", sc.name, sc.metered, sc.header(0).Get("X-Service-Key"), sc.header(1).Get("X-Service-Key"))
		}
	}
	if _, err := resolverScenarios([]string{"k"}, nil, ""); err == nil {
		t.Error("an empty query set gave scenarios")
	}
	keys := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keys, []byte("k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"--service-key-file", keys}, nil); err == nil || !strings.Contains(err.Error(), "go together") {
		t.Errorf("--service-key-file without --queries: %v", err)
	}
	if err := run([]string{"--near-zip", "75090"}, nil); err == nil || !strings.Contains(err.Error(), "--near-zip goes with") {
		t.Errorf("--near-zip without --queries: %v", err)
	}
}

// The line under the table sets the near search's p99 against the name search's at each rate
// both ran at, and says whether each is within twice it.
func TestNearAgainstName(t *testing.T) {
	lat := func(d time.Duration) rounds { return rounds{{latencies: []time.Duration{d}, elapsed: time.Second}} }
	r := func(name string, rate int, p99 time.Duration) row {
		return row{scenario: name, rate: rate, server: lat(p99), ceiling: lat(time.Millisecond)}
	}
	for _, tc := range []struct {
		name string
		rows []row
		want string
	}{
		{"met", []row{r(nameScenario, 500, 4*time.Millisecond), r(nameScenario, 1000, 5*time.Millisecond),
			r(nearScenario, 500, 6*time.Millisecond), r(nearScenario, 1000, 10*time.Millisecond)},
			"p99 over p99 in the same run: 1.50 at 500 req/s, 2.00 at 1000 req/s (target 2 or less: met at every rate)."},
		{"short at one rate", []row{r(nameScenario, 500, 4*time.Millisecond), r(nearScenario, 500, 9*time.Millisecond), r(nearScenario, 2000, time.Millisecond)},
			": 2.25 at 500 req/s (target 2 or less: short at 500 req/s)."},
		{"no near scenario", []row{r(nameScenario, 500, time.Millisecond)}, ""},
		{"no name search", []row{r(nearScenario, 500, time.Millisecond)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := nearAgainstName(tc.rows)
			if tc.want == "" && got != "" || !strings.HasSuffix(got, tc.want) {
				t.Errorf("got %q, want it to end %q", got, tc.want)
			}
		})
	}
}

// The export scenario streams the by-state scenario's specialty as ndjson, with its keys, at its
// own rates.
func TestExportScenario(t *testing.T) {
	byState := get("supply by-state", "/v1/specialties/cardiology/by-state")
	byState.header = func(i int) http.Header { return http.Header{"Authorization": {fmt.Sprint("Bearer k", i)}} }
	sc := exportScenario(byState, []string{"k0", "k1"})
	if sc.path != "/v1/exports/cardiology-supply/llm-ready?format=ndjson" || !sc.metered || !slices.Equal(sc.rates, exportRates) ||
		sc.header(1).Get("Authorization") != "Bearer k1" {
		t.Errorf("export scenario %s, metered %v, rates %v, %q", sc.path, sc.metered, sc.rates, sc.header(1).Get("Authorization"))
	}
}
