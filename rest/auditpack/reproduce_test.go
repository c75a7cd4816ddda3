package auditpack_test

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/rest/auditpack"
	"providerdir/source/reference"
	"providerdir/testing/demostore"
)

// table is the rows of one file being followed through the steps, by column name.
type table struct {
	file   string
	header map[string]int
	rows   [][]string
}

func (t *table) get(row []string, col string) (string, error) {
	i, ok := t.header[col]
	if !ok {
		return "", fmt.Errorf("%s has no column %q", t.file, col)
	}
	return strings.TrimSpace(row[i]), nil
}

// openFile finds a file by its published name in the drop or in the reference files.
func openFile(drop string, name string) (io.ReadCloser, error) {
	var found string
	_ = filepath.WalkDir(drop, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			found = p
		}
		return nil
	})
	if found != "" {
		return os.Open(found)
	}
	ref := reference.Embedded()
	var refPath string
	_ = fs.WalkDir(ref, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Base(p) == name {
			refPath = p
		}
		return nil
	})
	if refPath == "" {
		return nil, fmt.Errorf("no file %s in the drop or the reference files", name)
	}
	return ref.Open(refPath)
}

// read loads a file's rows, leaving out the rows the ingest rejects (the drop's manifest lists
// them by file and physical line).
func read(drop, name string, rejected map[int64]bool) (*table, error) {
	f, err := openFile(drop, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	head, err := r.Read()
	if err != nil {
		return nil, err
	}
	t := &table{file: name, header: map[string]int{}}
	for i, h := range head {
		t.header[strings.TrimPrefix(strings.TrimSpace(h), "\ufeff")] = i
	}
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		if line, _ := r.FieldPos(0); rejected[int64(line)] || len(row) != len(head) {
			continue
		}
		t.rows = append(t.rows, row)
	}
}

func mdy(s string) (time.Time, error) { return time.Parse("01/02/2006", s) }

// keep applies a keep step's filter.
func (t *table) keep(f *auditpack.Filter) error {
	var out [][]string
	for _, row := range t.rows {
		var vals []string
		for _, c := range f.Columns {
			v, err := t.get(row, c)
			if err != nil {
				return err
			}
			vals = append(vals, v)
		}
		var ok bool
		switch f.Rule {
		case auditpack.RuleIn:
			ok = slices.ContainsFunc(vals, func(v string) bool { return slices.Contains(f.Values, v) })
		case auditpack.RuleNotIn:
			ok = !slices.ContainsFunc(vals, func(v string) bool { return slices.Contains(f.Values, v) })
		case auditpack.RuleActiveNPI:
			if vals[0] == "" {
				ok = true
			} else if vals[1] != "" {
				deact, err1 := mdy(vals[0])
				react, err2 := mdy(vals[1])
				ok = err1 == nil && err2 == nil && !react.Before(deact)
			}
		default:
			return fmt.Errorf("unknown rule %q", f.Rule)
		}
		if ok {
			out = append(out, row)
		}
	}
	t.rows = out
	return nil
}

// follow executes a pack's steps over the public files and returns, per group value (a state
// code for counts, a state name for populations), each output.
func follow(t *testing.T, p auditpack.Pack, drop string, rejected func(string) map[int64]bool) map[string]map[string]float64 {
	t.Helper()
	out := map[string]map[string]float64{}
	set := func(output, group string, v float64) {
		if out[output] == nil {
			out[output] = map[string]float64{}
		}
		out[output][group] = v
	}
	var cur *table
	for _, s := range p.Reproducibility.Steps {
		var err error
		switch s.Op {
		case auditpack.OpRead:
			cur, err = read(drop, s.File, rejected(s.File))
		case auditpack.OpKeep:
			err = cur.keep(s.Keep)
		case auditpack.OpCountDistinct:
			seen := map[string]map[string]bool{}
			for _, row := range cur.rows {
				g, e1 := cur.get(row, s.GroupBy)
				v, e2 := cur.get(row, s.Column)
				if err = errors.Join(e1, e2); err != nil {
					break
				}
				if seen[g] == nil {
					seen[g] = map[string]bool{}
				}
				seen[g][v] = true
			}
			for g, vs := range seen {
				set(s.Output, g, float64(len(vs)))
			}
		case auditpack.OpValue:
			for _, row := range cur.rows {
				g, e1 := cur.get(row, s.GroupBy)
				v, e2 := cur.get(row, s.Column)
				if err = errors.Join(e1, e2); err != nil {
					break
				}
				n, perr := strconv.ParseFloat(v, 64)
				if perr != nil {
					err = perr
					break
				}
				set(s.Output, g, n)
			}
		case auditpack.OpCompute:
			// The one formula the packs state: the test implements it from its text.
			if s.Formula != "round_half_away_from_zero(count * 100000 / population_2024, 4)" || s.Output != "per_100k" {
				t.Fatalf("step %d: formula %q", s.Step, s.Formula)
			}
		case auditpack.OpNote:
		default:
			t.Fatalf("step %d: unknown op %q", s.Step, s.Op)
		}
		if err != nil {
			t.Fatalf("step %d (%s): %v", s.Step, s.Op, err)
		}
	}
	return out
}

// Following each pack's reproducibility steps over the drop's public files, with code of the
// test's own, gives the served figures: every state's count, population and per_100k.
func TestStepsReproduceTheFigures(t *testing.T) {
	e := demo(t)
	d := demostore.Open(t)
	rejected := func(file string) map[int64]bool {
		out := map[int64]bool{}
		for _, b := range d.Manifest.BadRowsOf(file) {
			out[b.Line] = true
		}
		return out
	}
	for _, slug := range auditpack.Slugs() {
		t.Run(slug, func(t *testing.T) {
			p := decodePack(t, e.Get(t, "/api/audit-pack/"+slug+"/json", "").Raw)
			got := follow(t, p, d.Drop, rejected)
			counted := 0.0
			for _, s := range p.Figures.States {
				count := got["count"][s.StateCode]
				pop := got["population_2024"][s.StateName]
				per := math.Round(count*100000/pop*1e4) / 1e4
				if int64(count) != s.Count || int64(pop) != s.Population || per != s.Per100k {
					t.Errorf("%s: steps give count %v population %v per_100k %v; served %d %d %v",
						s.StateCode, count, pop, per, s.Count, s.Population, s.Per100k)
				}
				counted += count
			}
			if int64(counted) != p.Figures.National.Count || counted == 0 {
				t.Errorf("steps count %v over the 51, served %d", counted, p.Figures.National.Count)
			}
		})
	}
}
