// Package readercheck holds what the readers' tests share: reading a test file while checking the
// Report's invariants, comparing records and row errors with the expected ones, fuzzing a reader
// from its test files, building benchmark input, and the bare encoding/csv benchmark every
// reader's throughput is compared with. The real reference files are source/reference's.
package readercheck

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"providerdir/source"
	"providerdir/source/reference"
)

// Drain reads r to the end, failing the test on a file-level error, and checks that the
// report's counts add up.
func Drain[T any](tb testing.TB, r *source.Reader[T]) ([]T, *source.Report) {
	tb.Helper()
	var out []T
	for {
		v, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatalf("Next: %v", err)
		}
		out = append(out, v)
	}
	rep := r.Report()
	CheckReport(tb, rep)
	if rep.Records != int64(len(out)) {
		tb.Errorf("report counts %d records, reader returned %d", rep.Records, len(out))
	}
	return out, rep
}

// CheckReport fails unless the report's counts are consistent.
func CheckReport(tb testing.TB, rep *source.Report) {
	tb.Helper()
	var byReason int64
	for _, n := range rep.Reasons {
		byReason += n
	}
	switch {
	case rep.Records < 0 || rep.Rejected < 0 || rep.Skipped() < 0:
		tb.Errorf("negative counts: %s", rep)
	case byReason != rep.Rejected:
		tb.Errorf("reasons sum to %d, rejected %d", byReason, rep.Rejected)
	case int64(len(rep.Errors)) > rep.Rejected:
		tb.Errorf("%d errors kept for %d rejected rows", len(rep.Errors), rep.Rejected)
	}
	for _, e := range rep.Errors {
		if e.File == "" || e.Line < 1 || e.Reason == "" {
			tb.Errorf("incomplete row error %+v", e)
		}
	}
}

// OpenFunc is the shape of every reader package's Open: it reads the file at path.
type OpenFunc[T any] func(path string, opts ...source.Option) (*source.Reader[T], error)

// Open opens testdata/name with open; the reader is closed when the test ends.
func Open[T any](tb testing.TB, open OpenFunc[T], name string) *source.Reader[T] {
	tb.Helper()
	r, err := open(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

// DrainFile reads testdata/name with open to the end, as Drain does.
func DrainFile[T any](tb testing.TB, open OpenFunc[T], name string) ([]T, *source.Report) {
	tb.Helper()
	return Drain(tb, Open(tb, open, name))
}

// Equal fails unless got holds exactly want's elements in order; what names an element in the
// messages.
func Equal[T comparable](tb testing.TB, what string, got, want []T) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("%d %ss, want %d: %+v", len(got), what, len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			tb.Errorf("%s %d:\n got %+v\nwant %+v", what, i, got[i], want[i])
		}
	}
}

// RowErrors fails unless the report kept exactly the row errors want, in order.
func RowErrors(tb testing.TB, rep *source.Report, want []source.RowError) {
	tb.Helper()
	Equal(tb, "row error", rep.Errors, want)
}

// Refused fails unless err is an error whose message contains want, as a reader's refusal of a
// file must say what is wrong.
func Refused(tb testing.TB, err error, want string) {
	tb.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		tb.Errorf("got error %v, want one containing %q", err, want)
	}
}

// Missing fails unless opening a file that does not exist with open fails with an error
// satisfying errors.Is(err, fs.ErrNotExist).
func Missing[T any](tb testing.TB, open OpenFunc[T]) {
	tb.Helper()
	if _, err := open(filepath.Join("testdata", "none.csv")); !errors.Is(err, fs.ErrNotExist) {
		tb.Errorf("missing file: %v", err)
	}
}

// Fuzz reads data with newReader and fails on anything but a clean end or a file-level error;
// row problems must be counted, never panic. It returns the records read.
func Fuzz[T any](t *testing.T, data []byte, newReader source.NewFunc[T]) []T {
	t.Helper()
	r, err := newReader(bytes.NewReader(data), "fuzz.csv")
	if err != nil {
		return nil
	}
	var out []T
	for {
		v, err := r.Next()
		if err != nil {
			break
		}
		out = append(out, v)
	}
	rep := r.Report()
	CheckReport(t, rep)
	if rep.Records != int64(len(out)) {
		t.Errorf("report counts %d records, reader returned %d", rep.Records, len(out))
	}
	return out
}

// Seed adds every file under testdata whose name matches pattern to the fuzz corpus.
func Seed(f *testing.F, pattern string) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seed files match testdata/%s", pattern)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzFiles fuzzes newReader from the testdata files matching pattern: besides what Fuzz
// checks, the reader must return no record that invalid reports, one it should have rejected.
func FuzzFiles[T any](f *testing.F, pattern string, newReader source.NewFunc[T], invalid func(T) bool) {
	f.Helper()
	Seed(f, pattern)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range Fuzz(t, data, newReader) {
			if invalid(v) {
				t.Fatalf("accepted %+v", v)
			}
		}
	})
}

// Repeat builds benchmark input of at least size bytes: header once, then rows over and over.
func Repeat(header string, rows []string, size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	b.WriteString(header)
	for b.Len() < size {
		for _, r := range rows {
			b.WriteString(r)
		}
	}
	return b.Bytes()
}

// RepeatFile builds benchmark input of at least size bytes from testdata/name: its header line
// once, then its first rows records over and over. The file's lines are taken to end as its
// header line does (CRLF or LF), so a line break inside a quoted field stays in its record.
func RepeatFile(tb testing.TB, name string, rows, size int) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	eol := []byte("\n")
	if header, _, _ := bytes.Cut(raw, eol); bytes.HasSuffix(header, []byte("\r")) {
		eol = []byte("\r\n")
	}
	lines := bytes.SplitAfter(raw, eol)
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // what follows the last line break
	}
	if len(lines) <= rows {
		tb.Fatalf("testdata/%s has fewer than %d records", name, rows)
	}
	records := make([]string, rows)
	for i := range records {
		records[i] = string(lines[1+i])
	}
	return Repeat(string(lines[0]), records, size)
}

// Reference returns the bytes of a reference file as built into the binary.
func Reference(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := fs.ReadFile(reference.Embedded(), name)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchRead measures a reader over data in MB/s (b.SetBytes), for comparison with BenchBareCSV
// over the same bytes.
func BenchRead[T any](b *testing.B, data []byte, newReader source.NewFunc[T]) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := newReader(bytes.NewReader(data), "bench.csv")
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
		if r.Report().Rejected != 0 {
			b.Fatalf("benchmark input rejected: %v", r.Report())
		}
	}
}

// BenchBareCSV measures the floor: encoding/csv with ReuseRecord reading the same bytes and
// doing nothing with the fields.
func BenchBareCSV(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := csv.NewReader(bytes.NewReader(data))
		c.ReuseRecord = true
		for {
			if _, err := c.Read(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}
