package supply_test

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/testing/apiclient"
)

// The independent check: the by-state figures of two specialties (and one subspecialty filter)
// recomputed straight from the generated NPPES file and the Census file with encoding/csv and the
// written methodology, none of the project's readers or mapping code, and compared row by row
// with what the server answers.
//
// Its only inputs besides the two files are the state table below (Census name to USPS code, a
// public fact) and the generator's list of deliberately broken rows, which the service rejects
// by design and which are therefore no providers.

var uspsByName = map[string]string{
	"Alabama": "AL", "Alaska": "AK", "Arizona": "AZ", "Arkansas": "AR", "California": "CA", "Colorado": "CO",
	"Connecticut": "CT", "Delaware": "DE", "District of Columbia": "DC", "Florida": "FL", "Georgia": "GA",
	"Hawaii": "HI", "Idaho": "ID", "Illinois": "IL", "Indiana": "IN", "Iowa": "IA", "Kansas": "KS",
	"Kentucky": "KY", "Louisiana": "LA", "Maine": "ME", "Maryland": "MD", "Massachusetts": "MA",
	"Michigan": "MI", "Minnesota": "MN", "Mississippi": "MS", "Missouri": "MO", "Montana": "MT",
	"Nebraska": "NE", "Nevada": "NV", "New Hampshire": "NH", "New Jersey": "NJ", "New Mexico": "NM",
	"New York": "NY", "North Carolina": "NC", "North Dakota": "ND", "Ohio": "OH", "Oklahoma": "OK",
	"Oregon": "OR", "Pennsylvania": "PA", "Rhode Island": "RI", "South Carolina": "SC", "South Dakota": "SD",
	"Tennessee": "TN", "Texas": "TX", "Utah": "UT", "Vermont": "VT", "Virginia": "VA", "Washington": "WA",
	"West Virginia": "WV", "Wisconsin": "WI", "Wyoming": "WY",
}

// csvTable is a CSV file as header-indexed rows, with each row's physical line.
type csvTable struct {
	col   map[string]int
	rows  [][]string
	lines []int
}

func readCSV(t *testing.T, path string) csvTable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	tab := csvTable{col: map[string]int{}}
	for i, h := range header {
		tab.col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		line, _ := r.FieldPos(0)
		tab.rows = append(tab.rows, rec)
		tab.lines = append(tab.lines, line)
	}
	return tab
}

func (tab csvTable) get(row []string, name string) string {
	i, ok := tab.col[name]
	if !ok || i >= len(row) {
		return ""
	}
	return strings.TrimSpace(row[i])
}

// registryRow is what the recount reads of one NPPES row.
type registryRow struct {
	npi, state, city, lastUpdated, primary string
	active, individual                     bool
	codes                                  []string
}

// readRegistry reads the npidata_pfile of a drop, skipping the rows the generator lists as broken.
func readRegistry(t *testing.T, drop string) map[string]registryRow {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(drop, "npidata_pfile_*.csv"))
	var file string
	for _, f := range files {
		if !strings.HasSuffix(f, "_fileheader.csv") {
			file = f
		}
	}
	var man struct {
		BadRows []struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"bad_rows"`
	}
	raw, err := os.ReadFile(filepath.Join(drop, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Fatal(err)
	}
	bad := map[int]bool{}
	for _, b := range man.BadRows {
		if b.File == filepath.Base(file) {
			bad[b.Line] = true
		}
	}
	tab := readCSV(t, file)
	out := map[string]registryRow{}
	date := func(s string) time.Time {
		d, _ := time.Parse("01/02/2006", s)
		return d
	}
	for i, row := range tab.rows {
		if bad[tab.lines[i]] {
			continue
		}
		r := registryRow{npi: tab.get(row, "NPI"), state: tab.get(row, "Provider Business Practice Location Address State Name"),
			city: tab.get(row, "Provider Business Practice Location Address City Name")}
		if d := date(tab.get(row, "Last Update Date")); !d.IsZero() {
			r.lastUpdated = d.Format(time.DateOnly)
		}
		deact, react := date(tab.get(row, "NPI Deactivation Date")), date(tab.get(row, "NPI Reactivation Date"))
		r.active = deact.IsZero() || !react.IsZero() && !react.Before(deact)
		r.individual = tab.get(row, "Entity Type Code") == "1"
		for slot := 1; slot <= 15; slot++ {
			code := tab.get(row, "Healthcare Provider Taxonomy Code_"+strconv.Itoa(slot))
			if code == "" {
				continue
			}
			r.codes = append(r.codes, code)
			if tab.get(row, "Healthcare Provider Primary Taxonomy Switch_"+strconv.Itoa(slot)) == "Y" && r.primary == "" {
				r.primary = code
			}
		}
		if r.primary == "" && len(r.codes) > 0 {
			r.primary = r.codes[0]
		}
		out[r.npi] = r
	}
	return out
}

// expectedRow is one state's figures as the written methodology defines them.
type expectedRow struct {
	state       string
	count, pop  int64
	per100k     float64
	rank, quart int
	underserved bool
}

func recount(t *testing.T, registry map[string]registryRow, codes []string, filtered bool) map[string]expectedRow {
	t.Helper()
	census := readCSV(t, filepath.Join(referenceDir(t), "census", "NST-EST2024-ALLDATA.csv"))
	pops := map[string]int64{}
	for _, row := range census.rows {
		if census.get(row, "SUMLEV") != "040" {
			continue
		}
		code, ok := uspsByName[census.get(row, "NAME")]
		if !ok {
			continue // Puerto Rico
		}
		p, err := strconv.ParseInt(census.get(row, "POPESTIMATE2024"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		pops[code] = p
	}
	if len(pops) != 51 {
		t.Fatalf("%d states read from the Census file", len(pops))
	}
	counts := map[string]int64{}
	for _, r := range registry {
		if !r.active || !r.individual || pops[r.state] == 0 {
			continue
		}
		if slices.ContainsFunc(r.codes, func(c string) bool { return slices.Contains(codes, c) }) {
			counts[r.state]++
		}
	}
	var natCount, natPop int64
	for s, p := range pops {
		natCount += counts[s]
		natPop += p
	}
	density := func(s string) *big.Rat { return big.NewRat(counts[s], pops[s]) }
	// three quarters of the national density
	threshold := new(big.Rat).Mul(big.NewRat(natCount, natPop), big.NewRat(3, 4))
	out := map[string]expectedRow{}
	for s, p := range pops {
		higher, atLeast := 0, 0
		for o := range pops {
			switch density(o).Cmp(density(s)) {
			case 1:
				higher++
				atLeast++
			case 0:
				atLeast++
			}
		}
		out[s] = expectedRow{
			state: s, count: counts[s], pop: p,
			per100k:     math.Round(float64(counts[s])*100000/float64(p)*10000) / 10000,
			rank:        higher + 1,
			quart:       int(math.Ceil(4 * float64(atLeast) / 51)),
			underserved: !filtered && density(s).Cmp(threshold) < 0,
		}
	}
	return out
}

func TestIndependentRecount(t *testing.T) {
	e := demoEnv(t)
	_, drop, _ := demoSnapshot(t)
	key := e.Key(t, apikey.TierPilot)
	registry := readRegistry(t, drop)
	tests := []struct {
		slug, subspecialty string
		codes              []string
	}{
		{"cardiology", "", []string{"207RC0000X"}},
		{"dermatology", "", []string{"207N00000X", "207ND0900X", "207NI0002X", "207NP0225X", "207NS0135X"}},
		{"dermatology", "207NS0135X", []string{"207NS0135X"}},
	}
	for _, tt := range tests {
		t.Run(tt.slug+tt.subspecialty, func(t *testing.T) {
			want := recount(t, registry, tt.codes, tt.subspecialty != "")
			path := "/v1/specialties/" + tt.slug + "/by-state"
			if tt.subspecialty != "" {
				path += "?subspecialty=" + tt.subspecialty
			}
			r := e.get(t, path, apiclient.Bearer(key)...)
			if r.Status != 200 || len(r.rows()) != 51 {
				t.Fatalf("%d, %d rows", r.Status, len(r.rows()))
			}
			var total int64
			underserved := 0
			for _, row := range r.rows() {
				w := want[value(row, "state_code").(string)]
				got := expectedRow{
					state: value(row, "state_code").(string), count: num(value(row, "active_providers")),
					pop: num(value(row, "population_2024")), per100k: value(row, "per_100k").(float64),
					rank: int(num(value(row, "rank_density"))), quart: int(num(value(row, "quartile"))),
					underserved: value(row, "underserved").(bool),
				}
				if got != w {
					t.Errorf("served %+v\nrecount %+v", got, w)
				}
				total += w.count
				if w.underserved {
					underserved++
				}
			}
			t.Logf("%s%s: %d providers over the 51, %d states underserved", tt.slug, tt.subspecialty, total, underserved)
			if total == 0 {
				t.Error("nothing counted: the check would prove nothing")
			}
		})
	}
}
