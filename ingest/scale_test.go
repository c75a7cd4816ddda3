package ingest_test

import (
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store/embedded"
)

// TestIngestAtScale measures a national-size ingest: it generates PROVIDERDIR_INGEST_SCALE
// providers (9000000 for the national registry) and loads them with the built-in reference
// files into a fresh embedded store, as providerctl ingest does, reporting rows/s, the ratio to
// a bare encoding/csv read of the same NPPES file, and peak resident memory. It is a
// measurement, not a unit test, so it runs only when asked:
//
//	PROVIDERDIR_INGEST_SCALE=9000000 go test -run TestIngestAtScale -v -timeout 2h ./ingest/
//
// PROVIDERDIR_SCALE_DIR keeps the generated drop and store there instead of a temp dir.
func TestIngestAtScale(t *testing.T) {
	scale, _ := strconv.ParseInt(os.Getenv("PROVIDERDIR_INGEST_SCALE"), 10, 64)
	if scale <= 0 {
		t.Skip("set PROVIDERDIR_INGEST_SCALE to run the scale measurement")
	}
	root := os.Getenv("PROVIDERDIR_SCALE_DIR")
	if root == "" {
		root = t.TempDir()
	}
	drop, db := filepath.Join(root, "drop"), filepath.Join(root, "db")
	ctx := context.Background()
	if _, err := os.Stat(filepath.Join(drop, synth.ManifestName)); err != nil {
		start := time.Now()
		if _, err := synth.Generate(ctx, synth.Config{Providers: scale, Seed: 1, Out: drop, Reference: reference.Embedded()}); err != nil {
			t.Fatal(err)
		}
		t.Logf("generated %d providers in %s", scale, time.Since(start).Round(time.Second))
	}
	npidata, err := filepath.Glob(filepath.Join(drop, "npidata_pfile_*.csv"))
	if err != nil || len(npidata) != 1 {
		t.Fatalf("npidata file: %v %v", npidata, err)
	}
	csvRate := bareCSVRate(t, npidata[0])

	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(ingest.MemoryLimit) // as providerctl ingest runs
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(ingest.GCPercent)
	}
	os.RemoveAll(db)
	s, err := embedded.Open(db, embedded.WithCacheSize(ingest.StoreCacheSize)) // as providerctl ingest opens it
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	res, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: drop, Reference: reference.Embedded(), Progress: ingest.NewProgress(os.Stderr, false, 10*time.Second),
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	var nppesRows int64
	for _, f := range res.Families {
		if f.Manifest.Family == "nppes" {
			nppesRows = f.Manifest.Rows
		}
	}
	rate := float64(res.Rows) / elapsed.Seconds()
	t.Logf("ingested %d rows (%d NPPES) in %s: %.0f rows/s end to end", res.Rows, nppesRows, elapsed.Round(time.Second), rate)
	t.Logf("bare encoding/csv read of the NPPES file: %.0f rows/s; ingest/csv ratio %.3f", csvRate, rate/csvRate)
	t.Logf("peak resident memory: %s", peakRSS())
}

// bareCSVRate reads a file with encoding/csv and nothing else: the ceiling of any ingest.
func bareCSVRate(t *testing.T, path string) float64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	r.FieldsPerRecord = -1 // the drop's deliberately bad rows must not stop the ceiling read
	start := time.Now()
	var rows int64
	for {
		_, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows++
	}
	return float64(rows) / time.Since(start).Seconds()
}

// peakRSS reads the process's high-water resident set size from /proc (Linux).
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "unknown"
}
