package synth

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"providerdir/source"
	"providerdir/source/qpp"
	refset "providerdir/source/reference"
	"providerdir/source/sam"
)

// readAll reads every record of a generated file with a source reader.
func readAll[T any](t *testing.T, open func(string, ...source.Option) (*source.Reader[T], error), path string) []T {
	t.Helper()
	r, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []T
	for {
		v, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
}

// TestSAMAndMIPSCounts checks the SAM extract and the MIPS score files against the manifest's
// counts, in the layouts of the base drop's day: the V2 extract, and a current and an older
// scores layout.
func TestSAMAndMIPSCounts(t *testing.T) {
	base, _, m, _ := drops(t)
	c := m.Counts
	if c.SAMMirrored == 0 || c.SAMWithNPI == 0 || c.SAMOther == 0 || c.MIPSRows == 0 || c.MIPSOlderRows == 0 {
		t.Fatalf("counts %+v", c)
	}
	samFile := m.FilesOf("sam")
	if len(samFile) != 1 || !strings.HasPrefix(samFile[0].Name, "SAM_Exclusions_Public_Extract_V2_25159") {
		t.Fatalf("sam files %+v", samFile)
	}
	excl := readAll(t, sam.Open, filepath.Join(base, samFile[0].Name))
	withNPI := 0
	for _, e := range excl {
		if e.NPI != "" {
			withNPI++
			if e.Agency != "HHS" {
				t.Errorf("a record of %s carries an NPI", e.Agency)
			}
		}
	}
	if int64(len(excl)) != c.SAMMirrored+c.SAMOther || int64(withNPI) != c.SAMWithNPI {
		t.Errorf("read %d records, %d with an NPI; counts %+v", len(excl), withNPI, c)
	}
	for _, tt := range []struct {
		name string
		rows int64
		cpb  bool
	}{{"ec_score_file_PY2023.csv", c.MIPSRows, true}, {"ec_score_file_PY2019.csv", c.MIPSOlderRows, false}} {
		scores := readAll(t, qpp.Open, filepath.Join(base, tt.name))
		if int64(len(scores)) != tt.rows {
			t.Errorf("%s: %d scores, want %d", tt.name, len(scores), tt.rows)
		}
		npis := map[string]bool{}
		for _, s := range scores {
			npis[s.NPI] = true
			if (s.FinalWithoutCPB != nil) != tt.cpb || s.Quality == nil || s.IA == nil {
				t.Fatalf("%s: %+v", tt.name, s)
			}
		}
		if tt.cpb && int64(len(npis)) != c.MIPSClinicians {
			t.Errorf("%s: %d clinicians, want %d", tt.name, len(npis), c.MIPSClinicians)
		}
	}
}

// TestSAMOlderLayout generates a drop dated before the V2 extract: its SAM file has the older
// name and layout, with DUNS for firms and no Creation_Date, and reads whole.
func TestSAMOlderLayout(t *testing.T) {
	dir := t.TempDir()
	m, err := Generate(context.Background(), Config{Providers: 3000, Seed: 5, Out: dir, Reference: refset.Embedded(),
		Snapshot: time.Date(2021, time.June, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	f := m.FilesOf("sam")
	if len(f) != 1 || f[0].Name != "SAM_Exclusions_Public_Extract_21152.CSV" || f[0].Columns != 28 {
		t.Fatalf("sam files %+v", f)
	}
	excl := readAll(t, sam.Open, filepath.Join(dir, f[0].Name))
	duns := 0
	for _, e := range excl {
		if e.UEI != "" || !e.CreationDate.IsZero() {
			t.Fatalf("V2 field in the older layout: %+v", e)
		}
		if e.DUNS != "" {
			duns++
		}
	}
	if int64(len(excl)) != m.Counts.SAMMirrored+m.Counts.SAMOther || duns == 0 {
		t.Errorf("%d records, %d with DUNS; counts %+v", len(excl), duns, m.Counts)
	}
	if len(m.FilesOf("qpp")) != 2 || m.FilesOf("qpp")[1].Name != "ec_score_file_PY2018.csv" {
		t.Errorf("qpp files %+v", m.FilesOf("qpp"))
	}
}

// TestMIPSIsHistory checks that the next snapshot keeps the score files byte for byte: they
// measure past years, which a later registry change does not rewrite.
func TestMIPSIsHistory(t *testing.T) {
	_, _, mb, me := drops(t)
	for _, f := range mb.FilesOf("qpp") {
		if g, ok := me.File(f.Name); !ok || g.SHA256 != f.SHA256 {
			t.Errorf("%s differs between snapshots", f.Name)
		}
	}
	if len(me.FilesOf("sam")) != 1 || me.FilesOf("sam")[0].Name == mb.FilesOf("sam")[0].Name {
		t.Errorf("the next snapshot's extract is not dated by it: %+v", me.FilesOf("sam"))
	}
}
