// Package zcta reads the ZIP Code Tabulation Area centroids of the reference set: the internal
// point (INTPTLAT, INTPTLONG) of every ZCTA of the Census Bureau's 2021 Gazetteer file, as a
// gzip'd CSV of three columns, zcta,lat,lon (see source/reference/SOURCES.md).
//
// A ZCTA approximates the area a 5-digit ZIP code delivers to; a ZIP with no ZCTA (a post-office
// box or single-firm ZIP) has no row, so a reader of the table never guesses its position.
package zcta

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
)

// File is the path of the centroid table in a reference set.
const File = "census/2021_Gaz_zcta_centroids.csv.gz"

// Vintage is the Gazetteer release of File: the 2021 file, whose ZCTAs are those of the 2020
// Census.
const Vintage = "2021"

// Centroid is one ZCTA's internal point in decimal degrees (NAD83).
type Centroid struct {
	ZCTA     string
	Lat, Lon float64
}

// header is the first line of File.
const header = "zcta,lat,lon"

// Load reads the centroid table name of fsys. Any malformed line fails the whole table: a
// partial table would silently leave providers without positions.
func Load(fsys fs.FS, name string) ([]Centroid, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("zcta: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("zcta: %s: %w", name, err)
	}
	sc := bufio.NewScanner(gz)
	if !sc.Scan() || sc.Text() != header {
		return nil, fmt.Errorf("zcta: %s: the first line is not %q", name, header)
	}
	var out []Centroid
	seen := map[string]bool{}
	for line := 2; sc.Scan(); line++ {
		c, err := ParseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("zcta: %s line %d: %w", name, line, err)
		}
		if seen[c.ZCTA] {
			return nil, fmt.Errorf("zcta: %s line %d: ZCTA %s given twice", name, line, c.ZCTA)
		}
		seen[c.ZCTA] = true
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("zcta: %s: %w", name, err)
	}
	return out, nil
}

// ParseLine parses one data line, "zcta,lat,lon": five digits, a latitude in [-90, 90] and a
// longitude in [-180, 180], each a plain decimal number.
func ParseLine(s string) (Centroid, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return Centroid{}, errors.New("want three fields, zcta,lat,lon")
	}
	if !fiveDigits(parts[0]) {
		return Centroid{}, fmt.Errorf("ZCTA %q is not five digits", parts[0])
	}
	lat, err := coordinate(parts[1], 90)
	if err != nil {
		return Centroid{}, fmt.Errorf("latitude: %w", err)
	}
	lon, err := coordinate(parts[2], 180)
	if err != nil {
		return Centroid{}, fmt.Errorf("longitude: %w", err)
	}
	return Centroid{ZCTA: parts[0], Lat: lat, Lon: lon}, nil
}

func fiveDigits(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// coordinate parses a decimal number of at most limit in magnitude. Exponents, infinities and
// NaN are refused (strconv.ParseFloat would take them).
func coordinate(s string, limit float64) (float64, error) {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.' || r == '-') }) {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Abs(v) > limit {
		return 0, fmt.Errorf("%q is not a number from %g to %g", s, -limit, limit)
	}
	return v, nil
}
