package reference_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"providerdir/source/ccn"
	"providerdir/source/census"
	"providerdir/source/nppes"
	"providerdir/source/nucc"
	"providerdir/source/reference"
	"providerdir/source/zcta"
)

// The built-in files are byte for byte the ones SOURCES.md lists, and every path the readers
// name is among them.
func TestBuiltInFilesAreThePublishedOnes(t *testing.T) {
	doc, err := fs.ReadFile(reference.Embedded(), "SOURCES.md")
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^([0-9a-f]{64})  (\S+)$`).FindAllStringSubmatch(string(doc), -1) {
		sums[m[2]] = m[1]
	}
	for _, name := range []string{census.StatesFile, census.CountiesFile, nucc.File, ccn.File, nppes.HeaderFile, zcta.File} {
		if _, ok := sums[name]; !ok {
			t.Errorf("SOURCES.md lists no checksum for %s", name)
		}
	}
	var seen int
	err = fs.WalkDir(reference.Embedded(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "SOURCES.md" {
			return err
		}
		seen++
		b, err := fs.ReadFile(reference.Embedded(), name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != sums[name] {
			t.Errorf("%s: sha256 %s, SOURCES.md says %q", name, got, sums[name])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(sums) {
		t.Errorf("%d files built in, SOURCES.md lists %d", seen, len(sums))
	}
	// The NUCC terms ask for the copyright notice wherever the code set goes.
	if !strings.Contains(string(doc), "Copyright American Medical Association (AMA),\n  on behalf of the National Uniform Claim Committee (NUCC)") {
		t.Error("SOURCES.md lacks the NUCC copyright notice")
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "marker"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dir     string
		has     string // a file the opened set holds
		wantErr string
	}{
		{"built-in", "", census.StatesFile, ""},
		{"a directory", dir, "marker", ""},
		{"a missing directory", filepath.Join(dir, "absent"), "", "reference directory: stat "},
		{"a file", filepath.Join(dir, "marker"), "", "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := reference.Open(tt.dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fs.Stat(files, tt.has); err != nil {
				t.Errorf("lacks %s: %v", tt.has, err)
			}
		})
	}
}
