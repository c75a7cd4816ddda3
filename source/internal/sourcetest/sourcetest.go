// Package sourcetest holds what the readers' tests share: draining a reader while checking the
// Report's invariants, building benchmark input, and the bare encoding/csv benchmark every
// reader's throughput is compared with. The real reference files are source/reference's.
package sourcetest

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"testing"

	"providerdir/source"
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

// Fuzz reads data with open and fails on anything but a clean end or a file-level error; row
// problems must be counted, never panic. It returns the records read.
func Fuzz[T any](t *testing.T, data []byte, open func(io.Reader) (*source.Reader[T], error)) []T {
	t.Helper()
	r, err := open(bytes.NewReader(data))
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

// BenchRead measures a reader over data in MB/s (b.SetBytes), for comparison with BenchBareCSV
// over the same bytes.
func BenchRead[T any](b *testing.B, data []byte, open func(io.Reader) (*source.Reader[T], error)) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := open(bytes.NewReader(data))
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
