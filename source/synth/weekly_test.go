package synth

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// weeklyOf writes the week of n changes after the shared base drop into a new directory, with
// the merged drop beside it.
func weeklyOf(t *testing.T, n int) (*WeeklyResult, string, string) {
	t.Helper()
	base, _, _, _ := drops(t)
	dir := t.TempDir()
	out, merged := filepath.Join(dir, "week"), filepath.Join(dir, "merged")
	res, err := GenerateWeekly(context.Background(), WeeklyConfig{From: base, Out: out, Changes: n, Merged: merged})
	if err != nil {
		t.Fatal(err)
	}
	return res, out, merged
}

// readCSV reads every record of a CSV file, header first.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// The weekly files are named by the week after the drop's snapshot, hold one row per changed
// or new NPI in the drop's layout with CRLF line ends and some rows unquoted, publish a
// deactivation as the NPI and its date alone, and come out byte for byte the same from the same
// drop.
func TestWeeklyFiles(t *testing.T) {
	res, out, _ := weeklyOf(t, 50)
	again, out2, _ := weeklyOf(t, 50)
	if res.First != "2025-06-09" || res.Last != "2025-06-15" || len(res.Files) != 4 {
		t.Fatalf("week %s to %s, files %v", res.First, res.Last, res.Files)
	}
	total := 0
	for _, k := range []string{WeeklyMoved, WeeklyTaxonomy, WeeklyRenamed, WeeklyDeactivated, WeeklyNew} {
		if len(res.Changes[k]) == 0 {
			t.Errorf("no change of kind %s", k)
		}
		total += len(res.Changes[k])
	}
	// A picked row that is already deactivated or deliberately bad has nothing to change.
	if total > 50 || total < 40 {
		t.Errorf("%d changes, want close to 50", total)
	}
	for i, f := range res.Files {
		if !strings.HasSuffix(f.Name, "_pfile_20250609-20250615.csv") || f.SHA256 != again.Files[i].SHA256 {
			t.Errorf("file %s (%s) differs from %s (%s) written from the same drop", f.Name, f.SHA256, again.Files[i].Name, again.Files[i].SHA256)
		}
		b, _ := os.ReadFile(filepath.Join(out, f.Name))
		b2, _ := os.ReadFile(filepath.Join(out2, f.Name))
		if !bytes.Equal(b, b2) || (f.Rows > 1 && (!bytes.Contains(b, []byte("\r\n")) || !bytes.Contains(b, []byte("\r\n1")) && !bytes.Contains(b, []byte("\r\n2")))) {
			t.Errorf("%s: not CRLF with unquoted rows, or not deterministic", f.Name)
		}
	}
	rows := readCSV(t, filepath.Join(out, res.Files[0].Name))
	header := rows[0]
	deact := slices.Index(header, "NPI Deactivation Date")
	if len(rows)-1 != total {
		t.Errorf("%d npidata rows for %d changes", len(rows)-1, total)
	}
	for _, r := range rows[1:] {
		if !slices.Contains(res.Changes[WeeklyDeactivated], r[0]) {
			continue
		}
		filled := 0
		for _, v := range r {
			if v != "" {
				filled++
			}
		}
		if filled != 2 || r[deact] != "06/15/2025" {
			t.Errorf("deactivated %s: %d fields filled, deactivation %q", r[0], filled, r[deact])
		}
	}
}

// The merged drop is the base drop with each changed NPI's rows replaced by the week's, new NPIs
// added, and every other family's files as they were.
func TestWeeklyMergedDrop(t *testing.T) {
	base, _, mb, _ := drops(t)
	res, out, merged := weeklyOf(t, 50)
	baseRows := readCSV(t, filepath.Join(base, fileOf(t, mb, "nppes", "npidata_pfile_")))
	mergedRows := readCSV(t, filepath.Join(merged, "npidata_pfile_20050523-20250615.csv"))
	weekRows := readCSV(t, filepath.Join(out, res.Files[0].Name))
	byNPI := func(rows [][]string) map[string][]string {
		m := map[string][]string{}
		for _, r := range rows[1:] {
			m[r[0]] = r
		}
		return m
	}
	b, m, w := byNPI(baseRows), byNPI(mergedRows), byNPI(weekRows)
	if len(m) != len(b)+len(res.Changes[WeeklyNew]) {
		t.Errorf("merged drop has %d NPIs, base %d, new %d", len(m), len(b), len(res.Changes[WeeklyNew]))
	}
	for npi, row := range m {
		want, changed := w[npi]
		if !changed {
			want = b[npi]
		}
		if !slices.Equal(row, want) {
			t.Errorf("merged row of %s is neither the week's nor the base's", npi)
		}
	}
	// Its manifest dates it at the week's end and names its files, so a next week can follow.
	mm, err := ReadManifest(merged)
	if err != nil || mm.Snapshot != res.Last || mm.SnapshotDates["nppes"] != res.Last || len(mm.Files) != len(mb.Files) {
		t.Fatalf("merged manifest %+v, %v", mm, err)
	}
	for _, f := range mm.Files {
		if _, err := os.Stat(filepath.Join(merged, f.Name)); err != nil {
			t.Error(err)
		}
	}
	for _, f := range mb.Files {
		if f.Family == "nppes" {
			continue
		}
		x, _ := os.ReadFile(filepath.Join(base, f.Name))
		y, err := os.ReadFile(filepath.Join(merged, f.Name))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs in the merged drop (%v)", f.Name, err)
		}
	}
}

func TestWeeklyConfigErrors(t *testing.T) {
	base, _, _, _ := drops(t)
	for _, c := range []WeeklyConfig{
		{From: base, Out: t.TempDir(), Changes: 0},
		{From: t.TempDir(), Out: t.TempDir(), Changes: 10},
	} {
		if _, err := GenerateWeekly(context.Background(), c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
