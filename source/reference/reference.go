// Package reference carries the public reference files (Census Vintage 2024 population
// estimates, the 2021 Gazetteer's ZCTA centroids, the NUCC taxonomy code set 25.1, the CMS CCN
// state codes, the NPPES header line)
// inside every binary that imports it, so that a checkout builds and runs with nothing beside it.
// SOURCES.md in this directory says where each file comes from, its terms and its snapshot date.
//
// The built-in set is the default; a directory of newer releases, laid out the same way
// (census/, nucc/, cms/, nppes/), replaces it as a whole: Open("") is the built-in set and
// Open(dir) the directory. Readers take the result as an fs.FS, so both are read the same way.
package reference

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
)

// files holds the reference files as published, byte for byte, and SOURCES.md, whose NUCC
// copyright notice must go wherever the code set goes.
//
//go:embed SOURCES.md census cms nppes nucc
var files embed.FS

// Embedded returns the reference files built into the binary.
func Embedded() fs.FS { return files }

// Open returns the reference files to read: the built-in set when dir is "", otherwise the
// directory dir, which must exist.
func Open(dir string) (fs.FS, error) {
	if dir == "" {
		return files, nil
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("reference directory: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("reference directory: %s is not a directory", dir)
	}
	return os.DirFS(dir), nil
}
