package csvscan

import (
	"encoding/csv"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkBareRead is the ceiling of an ingest: every CSV file of the drop directory named by
// CSV_CEILING_DIR split into records with nothing done with them, the cost no ingest of those
// files can go below. make bench reports an ingest's time beside it.
func BenchmarkBareRead(b *testing.B) {
	dir := os.Getenv("CSV_CEILING_DIR")
	if dir == "" {
		b.Skip("CSV_CEILING_DIR names no drop directory")
	}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".csv") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		b.Fatalf("no CSV files under %s: %v", dir, err)
	}
	var rows int64
	start := time.Now()
	for b.Loop() {
		rows = 0
		for _, path := range files {
			rows += readAll(b, path)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/read")
	b.ReportMetric(float64(rows), "rows")
}

// readAll counts the records of one file.
func readAll(b *testing.B, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, 1<<20)
	r.FieldsPerRecord = -1
	var n int64
	for {
		_, err := r.Read()
		var parseErr *csv.ParseError
		switch {
		case errors.Is(err, io.EOF):
			return n
		case errors.As(err, &parseErr):
			// a malformed record is one a real ingest reports and skips
		case err != nil:
			b.Fatal(err)
		default:
			n++
		}
	}
}
