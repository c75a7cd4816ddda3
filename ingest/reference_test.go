package ingest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/testing/backends"
)

// referenceCopy writes the built-in reference files into a directory, every file stamped with a
// modification time far from its snapshot date, and returns the directory.
func referenceCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "reference")
	if err := os.CopyFS(dir, reference.Embedded()); err != nil {
		t.Fatal(err)
	}
	stamp := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(path, stamp, stamp)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReferenceSet: the reference families load from the built-in files and from a directory
// holding the same files alike: the same snapshot dates (from the file names, never the
// modification time), the same checksums, so a re-ingest from either skips both families.
func TestReferenceSet(t *testing.T) {
	dir := referenceCopy(t)
	sets := map[string]fs.FS{"built-in": reference.Embedded(), "directory": os.DirFS(dir)}
	want := map[string]struct {
		snapshot string
		files    []string
		rows     int64
	}{
		"census": {"2024-07-01", []string{"census/NST-EST2024-ALLDATA.csv", "census/co-est2024-alldata.csv"}, 66 + 3195},
		"nucc":   {"2025-07-01", []string{"nucc/nucc_taxonomy_251.csv"}, 883},
	}
	for first, firstSet := range sets {
		for second, secondSet := range sets {
			t.Run(first+" then "+second, func(t *testing.T) {
				s := backends.Embedded(t)
				ctx := context.Background()
				res, err := ingest.Run(ctx, ingest.Options{Store: s, Reference: firstSet})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Switched || len(res.Families) != len(want) {
					t.Fatalf("first ingest: %+v", res)
				}
				for _, fr := range res.Families {
					w, ok := want[fr.Manifest.Family]
					if !ok {
						t.Fatalf("unexpected family %s", fr.Manifest.Family)
					}
					m := fr.Manifest
					if m.Snapshot != w.snapshot || m.Coverage.Start != w.snapshot || m.Rows != w.rows || m.Rejected != 0 {
						t.Errorf("%s: snapshot %s, coverage %+v, %d rows, %d rejected; want %s, %d rows",
							m.Family, m.Snapshot, m.Coverage, m.Rows, m.Rejected, w.snapshot, w.rows)
					}
					if len(m.Files) != len(w.files) {
						t.Fatalf("%s files %+v", m.Family, m.Files)
					}
					for i, f := range m.Files {
						b, err := fs.ReadFile(reference.Embedded(), w.files[i])
						if err != nil {
							t.Fatal(err)
						}
						sum := sha256.Sum256(b)
						if f.Name != filepath.Base(w.files[i]) || f.SHA256 != hex.EncodeToString(sum[:]) || f.Bytes != int64(len(b)) {
							t.Errorf("%s: file %+v, want %s of %d bytes, sha256 %x", m.Family, f, w.files[i], len(b), sum)
						}
					}
				}

				var log bytes.Buffer
				again, err := ingest.Run(ctx, ingest.Options{Store: s, Reference: secondSet,
					Log: slog.New(slog.NewTextHandler(&log, nil))})
				if err != nil {
					t.Fatal(err)
				}
				if again.Switched || len(again.Families) != len(want) {
					t.Fatalf("second ingest switched: %+v", again)
				}
				for _, fr := range again.Families {
					if !fr.Unchanged {
						t.Errorf("%s reloaded though its files are the same", fr.Manifest.Family)
					}
				}
				if n := strings.Count(log.String(), "family unchanged, skipped"); n != len(want) {
					t.Errorf("%d families logged as skipped:\n%s", n, log.String())
				}
			})
		}
	}
}

// TestReferenceOverride: a directory of newer releases replaces the built-in files: a newer NUCC
// code set is loaded and dated by its own name, the unchanged census skipped.
func TestReferenceOverride(t *testing.T) {
	dir := referenceCopy(t)
	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "nucc", "nucc_taxonomy_251.csv")
	b, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	newer := append(b, []byte("261QZ0000X,Ambulatory Health Care Facilities,Clinic/Center,Test,,,Test Clinic,Non-Individual\n")...)
	if err := os.WriteFile(filepath.Join(dir, "nucc", "nucc_taxonomy_260.csv"), newer, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(old); err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Run(ctx, ingest.Options{Store: s, Reference: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	census, nucc := family(t, res, "census"), family(t, res, "nucc")
	if !census.Unchanged || nucc.Unchanged || nucc.Manifest.Snapshot != "2026-01-01" || nucc.Manifest.Rows != 884 {
		t.Errorf("census unchanged %v; nucc unchanged %v, snapshot %s, %d rows", census.Unchanged,
			nucc.Unchanged, nucc.Manifest.Snapshot, nucc.Manifest.Rows)
	}
	if got := count(t, s, catalog.NUCCTaxonomy); got != 884 {
		t.Errorf("%d taxonomy codes served, want 884", got)
	}
}

// TestDropOfNothing: a drop directory holding no family's files still loads the reference files,
// and says that the drop held nothing.
func TestDropOfNothing(t *testing.T) {
	s := backends.Embedded(t)
	var log bytes.Buffer
	res, err := ingest.Run(context.Background(), ingest.Options{Store: s, Dir: t.TempDir(), Reference: reference.Embedded(),
		Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil || !res.Switched || len(res.Families) != 2 {
		t.Fatalf("%+v, %v", res, err)
	}
	if !strings.Contains(log.String(), "no source files of any known family in the drop") {
		t.Errorf("no warning of the empty drop:\n%s", log.String())
	}
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: s, Dir: t.TempDir()}); !errors.Is(err, ingest.ErrNoSourceFiles) {
		t.Errorf("an empty drop without reference files: %v, want ErrNoSourceFiles", err)
	}
}
