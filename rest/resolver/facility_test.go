package resolver_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/rest/apikey"
	"providerdir/rest/resolver"
	"providerdir/stored"
	"providerdir/testing/demostore"
)

// facilityFields are the fields of the contract's facility record, each present on every
// record (null where no source states it).
var facilityFields = []string{"ccn", "facility_name", "facility_type", "ownership_type", "address", "overall_star"}

// GET /ccn/{ccn} for one facility of each provider category of the certification file, rated
// and unrated ones and ones Care Compare does not list: every field of the contract present,
// facility_type from Care Compare or else the category's label, ownership_type and overall_star
// from Care Compare or null. An ambulatory surgical center answers under the ten-character
// number /quality/asc takes.
func TestCCNRecordWhole(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	quality := map[string]stored.QualityRecord{}
	for _, q := range storedRecords[stored.QualityRecord](t, d.Store, catalog.Quality) {
		quality[q.CCN] = q
	}
	// One facility per category, and per category one with a Care Compare row without a star
	// and one without a row, where the snapshot has them.
	type pick struct {
		category string
		row      string // "rated", "unrated", "none"
	}
	picked := map[pick]stored.FacilityRecord{}
	for _, f := range storedRecords[stored.FacilityRecord](t, d.Store, catalog.Facilities) {
		q, listed := quality[f.CCN]
		row := "none"
		switch {
		case listed && q.OverallStar != nil:
			row = "rated"
		case listed:
			row = "unrated"
		}
		if _, ok := picked[pick{f.CategoryCode, row}]; !ok {
			picked[pick{f.CategoryCode, row}] = f
		}
	}
	categories := map[string]bool{}
	for p := range picked {
		categories[p.category] = true
	}
	if len(categories) < 6 {
		t.Fatalf("the demo snapshot has facilities of %d categories, want the six Care Compare types'", len(categories))
	}
	sawASC := false
	for p, f := range picked {
		t.Run(p.category+"/"+p.row+"/"+f.CCN, func(t *testing.T) {
			r := e.get(t, "/resolver/v1/ccn/"+f.CCN, key)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			for _, k := range facilityFields {
				if _, ok := r.Body[k]; !ok {
					t.Errorf("%s absent: %s", k, r.Raw)
				}
			}
			provenanceKeys(t, "facility", r.Body)
			addr, _ := r.Body["address"].(map[string]any)
			for _, k := range []string{"city", "state"} {
				if _, ok := addr[k]; !ok {
					t.Errorf("address.%s absent: %s", k, r.Raw)
				}
			}
			q, listed := quality[f.CCN]
			wantType, wantOwner, wantStar := any(stored.FacilityCategory(f.CategoryCode)), any(nil), any(nil)
			if listed {
				if q.FacilityType != "" {
					wantType = q.FacilityType
				}
				if q.Ownership != "" {
					wantOwner = q.Ownership
				}
				if q.OverallStar != nil {
					wantStar = math.Round(*q.OverallStar)
				}
			}
			if wantType == "" {
				wantType = nil
			}
			if r.Body["facility_type"] != wantType || r.Body["ownership_type"] != wantOwner || r.Body["overall_star"] != wantStar {
				t.Errorf("facility_type %v ownership_type %v overall_star %v, want %v %v %v", r.Body["facility_type"],
					r.Body["ownership_type"], r.Body["overall_star"], wantType, wantOwner, wantStar)
			}
			if len(f.CCN) == 10 && listed {
				sawASC = true
				if qr := e.get(t, "/resolver/v1/quality/asc/"+f.CCN, key); qr.Status != 200 {
					t.Errorf("/quality/asc/%s: %d, while /ccn answers", f.CCN, qr.Status)
				}
			}
		})
	}
	if !sawASC {
		t.Error("no ambulatory surgical center with a Care Compare row was looked at")
	}
	// /ccn and /quality refuse the same ids, with the same code.
	for _, id := range []string{"05000", "0500011", "05a001", "0Z0001", "05C00012", "05Q0001234"} {
		c, q := e.get(t, "/resolver/v1/ccn/"+id, key), e.get(t, "/resolver/v1/quality/asc/"+id, key)
		if c.Status != 400 || c.ErrorCode() != resolver.CodeInvalidCCN || q.Status != 400 || q.ErrorCode() != resolver.CodeInvalidCCN {
			t.Errorf("%s: /ccn %d %q, /quality %d %q; want both 400 invalid_ccn", id, c.Status, c.ErrorCode(), q.Status, q.ErrorCode())
		}
	}
}

// filePeriods reads, from the drop's own files, the measurement period each file states for
// each CCN, as "<start>/<end>" ("" for a row stating none): the period columns of the
// general-information files and, for hospices, the CAHPS survey file's Date column. It is the
// test's own reading of the files, with no code of the service.
func filePeriods(t *testing.T, drop string) map[string]map[string]string {
	t.Helper()
	day := func(s string) (time.Time, bool) {
		s = strings.TrimSpace(s)
		for _, layout := range []string{"01/02/2006", "2006-01-02"} {
			if d, err := time.Parse(layout, s); err == nil {
				return d, true
			}
		}
		return time.Time{}, false
	}
	format := func(a, b string) string {
		start, ok1 := day(a)
		end, ok2 := day(b)
		if !ok1 || !ok2 {
			return ""
		}
		return start.Format("2006-01-02") + "/" + end.Format("2006-01-02")
	}
	ranged := func(s string) string {
		if len(s) >= 21 { // MM/DD/YYYY, a dash with or without spaces, MM/DD/YYYY
			return format(s[:10], s[len(s)-10:])
		}
		if y, err := strconv.Atoi(s); err == nil {
			return format("01/01/"+strconv.Itoa(y), "12/31/"+strconv.Itoa(y))
		}
		return ""
	}
	files := []struct {
		typ, prefix, ccn string
		period           func(col func(string) string) string
	}{
		{"hospital", "Hospital_General_Information", "Facility ID", func(c func(string) string) string { return format(c("Start Date"), c("End Date")) }},
		{"nursing-home", "NH_ProviderInfo_", "CMS Certification Number (CCN)", func(c func(string) string) string {
			return format(c("Measure Start Date"), c("Measure End Date"))
		}},
		{"home-health", "HH_Provider_", "CMS Certification Number (CCN)", func(c func(string) string) string { return ranged(c("Measure Date Range")) }},
		{"dialysis", "DFC_FACILITY", "CMS Certification Number (CCN)", func(c func(string) string) string { return ranged(c("Five Star Date")) }},
		{"asc", "ASC_Facility", "Facility ID", func(c func(string) string) string { return ranged(c("Year")) }},
		{"hospice", "Provider_CAHPS_Hospice_Survey_Data_", "CMS Certification Number (CCN)", func(c func(string) string) string { return ranged(c("Date")) }},
	}
	out := map[string]map[string]string{}
	for _, f := range files {
		matches, _ := filepath.Glob(filepath.Join(drop, "*", f.prefix+"*.csv"))
		more, _ := filepath.Glob(filepath.Join(drop, f.prefix+"*.csv"))
		matches = append(matches, more...)
		if len(matches) != 1 {
			t.Fatalf("%s: %d files %v", f.prefix, len(matches), matches)
		}
		rows := readCSV(t, matches[0])
		index := map[string]int{}
		for i, h := range rows[0] {
			index[strings.TrimPrefix(h, "\ufeff")] = i
		}
		out[f.typ] = map[string]string{}
		for _, row := range rows[1:] {
			col := func(name string) string {
				if i, ok := index[name]; ok && i < len(row) {
					return row[i]
				}
				return ""
			}
			out[f.typ][col(f.ccn)] = f.period(col)
		}
	}
	return out
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	r.FieldsPerRecord, r.LazyQuotes = -1, true
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

var isoPeriod = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}/\d{4}-\d{2}-\d{2}$`)

// GET /quality/{type}/{id} of every row of the six types: measurement_period is the period the
// drop's file states for the facility, "<start date>/<end date>", and null, never absent, where
// the row states none.
func TestQualityMeasurementPeriod(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	want := filePeriods(t, d.Drop)
	stated, unstated := map[string]int{}, map[string]int{}
	for typ, rows := range qualityRows(t, d.Store) {
		for _, row := range rows {
			r := e.get(t, "/resolver/v1/quality/"+typ+"/"+row.CCN, key)
			if r.Status != 200 {
				t.Fatalf("%s %s: %d %s", typ, row.CCN, r.Status, r.Raw)
			}
			got, present := r.Body["measurement_period"]
			if !present {
				t.Fatalf("%s %s: measurement_period absent: %s", typ, row.CCN, r.Raw)
			}
			w := want[typ][row.CCN]
			switch {
			case w == "" && got != nil:
				t.Errorf("%s %s: measurement_period %v where the file states none", typ, row.CCN, got)
			case w != "" && got != w:
				t.Errorf("%s %s: measurement_period %v, the file states %s", typ, row.CCN, got, w)
			case w != "" && !isoPeriod.MatchString(w):
				t.Fatalf("%s %s: the test read %q", typ, row.CCN, w)
			case w == "":
				unstated[typ]++
			default:
				stated[typ]++
			}
		}
	}
	for _, qt := range stored.QualityTypes {
		if stated[qt.Slug] == 0 {
			t.Errorf("%s: no row with a stated period", qt.Slug)
		}
	}
	t.Logf("rows with a stated period %v, without %v", stated, unstated)
}

// GET /quality/hospice/{ccn} of every hospice: the measures are the CAHPS survey file's rows of
// the hospice other than the summary star, each the row's score (or its star on a star row),
// null where suppressed, in file order.
func TestQualityHospiceMeasures(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	matches, _ := filepath.Glob(filepath.Join(d.Drop, "*", "Provider_CAHPS_Hospice_Survey_Data_*.csv"))
	more, _ := filepath.Glob(filepath.Join(d.Drop, "Provider_CAHPS_Hospice_Survey_Data_*.csv"))
	matches = append(matches, more...)
	if len(matches) != 1 {
		t.Fatalf("CAHPS files %v", matches)
	}
	rows := readCSV(t, matches[0])
	index := map[string]int{}
	for i, h := range rows[0] {
		index[strings.TrimPrefix(h, "\ufeff")] = i
	}
	type measure struct {
		id    string
		value any
	}
	survey := map[string][]measure{}
	for _, row := range rows[1:] {
		code := row[index["Measure Code"]]
		if strings.Contains(code, "SUMMARY_STAR") {
			continue
		}
		var v any
		for _, c := range []string{"Score", "Star Rating"} {
			if n, err := strconv.ParseFloat(row[index[c]], 64); err == nil {
				v = n
				break
			}
		}
		ccn := row[index["CMS Certification Number (CCN)"]]
		survey[ccn] = append(survey[ccn], measure{code, v})
	}
	scored := 0
	for _, h := range qualityRows(t, d.Store)["hospice"] {
		r := e.get(t, "/resolver/v1/quality/hospice/"+h.CCN, key)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", h.CCN, r.Status, r.Raw)
		}
		got, _ := r.Body["measures"].([]any)
		want := survey[h.CCN]
		if len(got) != len(want) {
			t.Errorf("%s: %d measures, the survey file has %d: %s", h.CCN, len(got), len(want), r.Raw)
			continue
		}
		for i, m := range got {
			gm, _ := m.(map[string]any)
			if gm["id"] != want[i].id || gm["value"] != want[i].value {
				t.Errorf("%s measure %d: %v, the survey file has %v", h.CCN, i, gm, want[i])
			}
			if want[i].value != nil {
				scored++
			}
		}
	}
	if scored == 0 {
		t.Error("no hospice measure with a score was served")
	}
}
