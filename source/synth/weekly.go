package synth

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"providerdir/ident"
)

// Weekly NPPES update files. NPPES publishes, besides the monthly full files, a weekly set of the
// records that changed in the week, in the same layout and named by the week's first and last
// day (npidata_pfile_20241104-20241110.csv). GenerateWeekly writes such a set for an existing
// drop: it picks the changed records among the drop's own rows, deterministically from the
// drop's seed, and writes each changed NPI's whole current state: its npidata row and all of
// its secondary practice location, other name and endpoint rows, which replace the ones the
// monthly file has for it. A deactivated NPI is published as NPPES does, with the NPI and the
// deactivation date only, and no rows in the other files.

// WeeklyConfig configures GenerateWeekly.
type WeeklyConfig struct {
	// From is the drop (with its manifest) the week follows.
	From string
	// Out receives the weekly files (created if missing).
	Out string
	// Changes is the number of changed records.
	Changes int
	// Merged, when set, receives the drop with the week applied: monthly NPPES files spanning to
	// the week's last day in which each changed NPI's rows are the weekly ones, every other
	// family's files as they are in From, and a manifest from which the next week can be
	// written. A full ingest of it is what a delta ingest of the week on top of From must serve.
	Merged string
}

// Kinds of weekly change, as WeeklyChanges lists them.
const (
	WeeklyMoved       = "moved"
	WeeklyTaxonomy    = "taxonomy_changed"
	WeeklyRenamed     = "renamed"
	WeeklyDeactivated = "deactivated"
	WeeklyNew         = "new"
)

// WeeklyResult says what GenerateWeekly wrote.
type WeeklyResult struct {
	Files []FileInfo
	// First and Last are the week's days (YYYY-MM-DD).
	First, Last string
	// Changes lists the changed NPIs by kind.
	Changes map[string][]string
}

// weeklyStream seeds the choice of changed rows; it differs from every stream the drop itself
// draws from.
const weeklyStream = 0x5eec

// nppesFileKinds are the four NPPES files in the order they are written, by name prefix.
var nppesFileKinds = []string{"npidata_pfile_", "pl_pfile_", "othername_pfile_", "endpoint_pfile_"}

// GenerateWeekly writes the weekly NPPES files for the drop in cfg.From.
func GenerateWeekly(ctx context.Context, cfg WeeklyConfig) (*WeeklyResult, error) {
	m, err := ReadManifest(cfg.From)
	if err != nil {
		return nil, err
	}
	if cfg.Changes < 1 {
		return nil, fmt.Errorf("synth: the number of weekly changes must be positive, got %d", cfg.Changes)
	}
	src := map[string]FileInfo{}
	for _, f := range m.FilesOf("nppes") {
		for _, k := range nppesFileKinds {
			if strings.HasPrefix(f.Name, k) {
				src[k] = f
			}
		}
	}
	main, ok := src[nppesFileKinds[0]]
	if !ok || main.Rows == 0 {
		return nil, fmt.Errorf("synth: %s holds no NPPES npidata file", cfg.From)
	}
	snap := dateOf(snapshotTime(m.Snapshot))
	wk := &week{seed: m.Seed, first: snap + 1, last: snap + 7, changes: map[string][]string{}, changed: map[string]string{}}
	wk.pickRows(main.Rows, min(int64(cfg.Changes), main.Rows))
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	res := &WeeklyResult{First: wk.first.time().Format("2006-01-02"), Last: wk.last.time().Format("2006-01-02"), Changes: wk.changes}
	span := wk.first.compact() + "-" + wk.last.compact()
	for i, k := range nppesFileKinds {
		f, ok := src[k]
		if !ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info, err := wk.writeWeekly(filepath.Join(cfg.From, f.Name), cfg.Out, k+span+".csv", i == 0)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, info)
	}
	if cfg.Merged != "" {
		if err := wk.writeMerged(ctx, m, cfg); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// week is the state of one weekly set being written.
type week struct {
	seed        uint64
	first, last date
	// rows are the npidata data rows (0-based) that change, with the kind of change.
	rows map[int64]string
	// changed maps each changed NPI to its kind; news maps a new NPI to the NPI whose rows it
	// copies; changes lists them by kind.
	changed map[string]string
	news    []newNPI
	changes map[string][]string
	// weekly holds the rows written to each weekly file, by file kind, for the merged drop.
	weekly map[string][][]string
	header map[string]string
}

type newNPI struct{ npi, template string }

// pickRows chooses n distinct rows out of total (Floyd's sampling) and a kind for each.
func (w *week) pickRows(total, n int64) {
	r := rand.New(rand.NewPCG(w.seed, weeklyStream))
	w.rows = make(map[int64]string, n)
	kinds := []string{WeeklyMoved, WeeklyMoved, WeeklyMoved, WeeklyTaxonomy, WeeklyTaxonomy, WeeklyRenamed, WeeklyRenamed, WeeklyDeactivated, WeeklyNew, WeeklyNew}
	for j := total - n; j < total; j++ {
		t := r.Int64N(j + 1)
		if _, taken := w.rows[t]; taken {
			t = j
		}
		w.rows[t] = kinds[r.IntN(len(kinds))]
	}
}

// csvReader opens a drop's CSV file for reading raw fields: rows of any width, quotes as found.
func csvReader(path string) (*csv.Reader, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("synth: %w", err)
	}
	cr := csv.NewReader(f)
	cr.FieldsPerRecord, cr.LazyQuotes = -1, true
	return cr, f, nil
}

// writeWeekly writes one weekly file: for the npidata file (main) the changed rows, for the
// others the rows of the changed NPIs that are not deactivated.
func (w *week) writeWeekly(path, outDir, name string, main bool) (FileInfo, error) {
	cr, in, err := csvReader(path)
	if err != nil {
		return FileInfo{}, err
	}
	defer in.Close()
	header, err := cr.Read()
	if err != nil {
		return FileInfo{}, fmt.Errorf("synth: %s: %w", path, err)
	}
	// The weekly files end their lines with CRLF, unlike the monthly ones, and leave a share
	// of their rows unquoted: a reader must take both.
	out, err := createCSV(outDir, name, "nppes", quoteAll, true)
	if err != nil {
		return FileInfo{}, fmt.Errorf("synth: %w", err)
	}
	defer out.abort()
	if err := out.writeHeader(header, true); err != nil {
		return FileInfo{}, err
	}
	kind := name[:strings.Index(name, "_pfile_")+len("_pfile_")]
	if w.weekly == nil {
		w.weekly, w.header = map[string][][]string{}, map[string]string{}
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	var news [][]string // rows of new NPIs, written after the changed ones
	for n := int64(0); ; n++ {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return FileInfo{}, fmt.Errorf("synth: %s: %w", path, err)
		}
		if main {
			row, news, err = w.changeRow(n, row, col, news)
			if err != nil || row == nil {
				if err != nil {
					return FileInfo{}, err
				}
				continue
			}
			if err := w.emit(out, kind, row); err != nil {
				return FileInfo{}, err
			}
			continue
		}
		switch w.changed[row[0]] {
		case "", WeeklyDeactivated:
		default:
			if err := w.emit(out, kind, row); err != nil {
				return FileInfo{}, err
			}
		}
		for _, nw := range w.news {
			if nw.template == row[0] {
				news = append(news, append([]string{nw.npi}, row[1:]...))
			}
		}
	}
	for _, row := range news {
		if err := w.emit(out, kind, row); err != nil {
			return FileInfo{}, err
		}
	}
	return out.close()
}

// emit writes one weekly row, every fifth one unquoted, and keeps it for the merged drop.
func (w *week) emit(out *csvFile, kind string, row []string) error {
	w.weekly[kind] = append(w.weekly[kind], row)
	if len(w.weekly[kind])%5 == 0 {
		return out.writeBlock(formatRow(nil, row, quoteMinimal, out.eol), 1, nil)
	}
	return out.writeRow(row)
}

// changeRow applies the change chosen for data row n, if any: it returns the changed row (nil
// when the row does not change) and, for a new NPI, appends its row to news.
func (w *week) changeRow(n int64, row []string, col map[string]int, news [][]string) ([]string, [][]string, error) {
	kind, ok := w.rows[n]
	if !ok || len(row) != len(col) || ident.ValidateNPI(row[0]) != nil || w.changed[row[0]] != "" {
		return nil, news, nil
	}
	entity := row[col["Entity Type Code"]]
	if entity == "" {
		return nil, news, nil // already deactivated: nothing left to change
	}
	r := newRNG()
	r.reset(w.seed, weeklyStream, n)
	out := slices.Clone(row)
	set := func(name, v string) {
		if k, ok := col[name]; ok {
			out[k] = v
		}
	}
	set("Last Update Date", w.last.mdy())
	switch kind {
	case WeeklyMoved:
		st := pick(r, weeklyStates)
		if st == row[col["Provider Business Practice Location Address State Name"]] {
			st = weeklyStates[(slices.Index(weeklyStates, st)+1)%len(weeklyStates)]
		}
		set("Provider First Line Business Practice Location Address", fmt.Sprintf("%d %s ST", 100+r.IntN(9800), pick(r, familyStart)+pick(r, familyEnd)))
		set("Provider Second Line Business Practice Location Address", "")
		set("Provider Business Practice Location Address City Name", strings.ToUpper(pick(r, familyStart))+"VILLE")
		set("Provider Business Practice Location Address State Name", st)
		set("Provider Business Practice Location Address Postal Code", fmt.Sprintf("%05d%04d", 10000+r.IntN(89000), r.IntN(10000)))
	case WeeklyTaxonomy:
		code := pick(r, pick(r, Specialties).Codes)
		if code == row[col["Healthcare Provider Taxonomy Code_1"]] {
			code = Specialties[0].Codes[0]
		}
		set("Healthcare Provider Taxonomy Code_1", code)
	case WeeklyRenamed:
		if entity == "2" {
			set("Provider Organization Name (Legal Business Name)", row[col["Provider Organization Name (Legal Business Name)"]]+" HEALTH PARTNERS")
		} else {
			set("Provider Last Name (Legal Name)", pick(r, familyStart)+pick(r, familyEnd))
		}
	case WeeklyDeactivated:
		for k := range out {
			out[k] = ""
		}
		out[0] = row[0]
		set("NPI Deactivation Date", w.last.mdy())
	case WeeklyNew:
		npi, err := w.newNPI(n)
		if err != nil {
			return nil, news, err
		}
		nw := slices.Clone(out)
		nw[0] = npi
		if k, ok := col["Provider Enumeration Date"]; ok {
			nw[k] = w.last.mdy()
		}
		w.news = append(w.news, newNPI{npi: npi, template: row[0]})
		w.changed[npi] = WeeklyNew
		w.changes[WeeklyNew] = append(w.changes[WeeklyNew], npi)
		return nil, append(news, nw), nil
	}
	w.changed[row[0]] = kind
	w.changes[kind] = append(w.changes[kind], row[0])
	return out, news, nil
}

// newNPI returns the NPI of the new record made from data row n: its body is drawn from a band
// of the drop's NPI permutation that no record of the drop uses.
func (w *week) newNPI(n int64) (string, error) {
	const newBand = 14_000_000 // between the largest base scale and the phantom records
	p := newPermutation(w.seed, 21, 200_000_000)
	body := fmt.Sprintf("%09d", 100_000_000+p.at(uint64(newBand+n)))
	c, err := ident.NPICheckDigit(body)
	if err != nil {
		return "", err
	}
	return body + string(c), nil
}

// weeklyStates are the states a moved practice goes to.
var weeklyStates = []string{"AL", "AZ", "CA", "CO", "FL", "GA", "IL", "MA", "MI", "MN", "NC", "NJ", "NY", "OH", "OR", "PA", "TX", "VA", "WA", "WI"}

// writeMerged writes cfg.Merged: the drop with the week applied, and its manifest, so that
// the week after can be written from it in turn. The manifest is the drop's dated at the week's
// last day; it lists no bad rows of the NPPES files, whose lines moved.
func (w *week) writeMerged(ctx context.Context, m *Manifest, cfg WeeklyConfig) error {
	if err := os.MkdirAll(cfg.Merged, 0o755); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	mm := *m
	mm.Files, mm.BadRows, mm.SnapshotDates = nil, nil, maps.Clone(m.SnapshotDates)
	mm.Snapshot, mm.PreviousSnapshot = w.last.time().Format(time.DateOnly), m.Snapshot
	mm.SnapshotDates["nppes"] = mm.Snapshot
	for _, b := range m.BadRows {
		if f, ok := m.File(b.File); ok && f.Family != "nppes" {
			mm.BadRows = append(mm.BadRows, b)
		}
	}
	for _, f := range m.Files {
		kind := ""
		for _, k := range nppesFileKinds {
			if strings.HasPrefix(f.Name, k) && f.Family == "nppes" {
				kind = k
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		src := filepath.Join(cfg.From, f.Name)
		if kind == "" {
			if err := copyFile(src, filepath.Join(cfg.Merged, f.Name)); err != nil {
				return err
			}
			mm.Files = append(mm.Files, f)
			continue
		}
		name := kind + nppesEpoch.compact() + "-" + w.last.compact() + ".csv"
		info, err := w.mergeFile(src, cfg.Merged, name, kind)
		if err != nil {
			return err
		}
		mm.Files = append(mm.Files, info)
	}
	b, err := json.MarshalIndent(&mm, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Merged, ManifestName), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

// mergeFile writes a monthly file in which the changed NPIs' rows are the weekly ones: each
// changed NPI's first row is replaced by its weekly rows, its other rows dropped, and the rows of
// new NPIs follow at the end.
func (w *week) mergeFile(src, outDir, name, kind string) (FileInfo, error) {
	cr, in, err := csvReader(src)
	if err != nil {
		return FileInfo{}, err
	}
	defer in.Close()
	header, err := cr.Read()
	if err != nil {
		return FileInfo{}, fmt.Errorf("synth: %s: %w", src, err)
	}
	out, err := createCSV(outDir, name, "nppes", quoteAll, false)
	if err != nil {
		return FileInfo{}, fmt.Errorf("synth: %w", err)
	}
	defer out.abort()
	if err := out.writeHeader(header, true); err != nil {
		return FileInfo{}, err
	}
	byNPI := map[string][][]string{}
	for _, row := range w.weekly[kind] {
		byNPI[row[0]] = append(byNPI[row[0]], row)
	}
	written := map[string]bool{}
	for {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return FileInfo{}, fmt.Errorf("synth: %s: %w", src, err)
		}
		if w.changed[row[0]] == "" {
			if err := out.writeRow(row); err != nil {
				return FileInfo{}, err
			}
			continue
		}
		if written[row[0]] {
			continue
		}
		written[row[0]] = true
		for _, r := range byNPI[row[0]] {
			if err := out.writeRow(r); err != nil {
				return FileInfo{}, err
			}
		}
	}
	for _, row := range w.weekly[kind] {
		if !written[row[0]] {
			if err := out.writeRow(row); err != nil {
				return FileInfo{}, err
			}
		}
	}
	return out.close()
}

// copyFile copies a drop's file, by a hard link when the file system allows one.
func copyFile(src, dst string) error {
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("synth: %w", err)
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("synth: %w", err)
	}
	return out.Close()
}
