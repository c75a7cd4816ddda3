// Package geo answers "what is near this point" over the ZIP Code Tabulation Area centroids of
// the reference set (source/zcta): the position a ZIP code stands for, great-circle distances,
// and the ZCTAs within a radius, nearest first, found through a grid of the table built once.
//
// Positions are ZCTA centroids, so every provider of a ZIP code is at that ZIP's point: a search
// near a point is a search for the ZIP codes whose centroids are within the radius, and the
// distance of a provider is its ZIP's.
package geo

import (
	"cmp"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"providerdir/source/reference"
	"providerdir/source/zcta"
)

// Distance units.
const (
	// KmPerMile is the international mile (1609.344 m); the US survey mile differs from it by
	// two parts in a million, far below the precision of a ZIP centroid.
	KmPerMile = 1.609344
	// earthKm is the mean radius of the Earth (IUGG).
	earthKm = 6371.0088
)

// Vintage is the Gazetteer vintage of the centroids, which a position built from them cites.
const Vintage = zcta.Vintage

// MaxRadiusMiles caps every near search's radius: 100 miles (160.9 km). A search of a larger
// area would be a search of a whole state, which the state parameters answer.
const MaxRadiusMiles = 100

// MaxRadiusKm is MaxRadiusMiles in kilometres.
const MaxRadiusKm = MaxRadiusMiles * KmPerMile

// Point is a position in decimal degrees.
type Point struct {
	Lat, Lon float64
}

// Valid reports whether p is on the globe.
func (p Point) Valid() bool {
	return p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180
}

// Km is the great-circle distance between a and b in kilometres (haversine).
func Km(a, b Point) float64 {
	const rad = math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLon := (b.Lon - a.Lon) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthKm * math.Asin(math.Sqrt(min(1, h)))
}

// Hit is a ZCTA within a search's radius and its distance from the search's point.
type Hit struct {
	ZCTA string
	Km   float64
}

// Index holds the ZCTA centroids and a grid of them by whole degrees, so that a search reads
// only the cells its radius reaches.
type Index struct {
	points map[string]Point
	cells  map[cell][]zcta.Centroid
}

type cell struct{ lat, lon int }

func cellOf(p Point) cell { return cell{int(math.Floor(p.Lat)), int(math.Floor(p.Lon))} }

// NewIndex builds the index of a centroid table.
func NewIndex(cs []zcta.Centroid) *Index {
	ix := &Index{points: make(map[string]Point, len(cs)), cells: map[cell][]zcta.Centroid{}}
	for _, c := range cs {
		p := Point{c.Lat, c.Lon}
		ix.points[c.ZCTA] = p
		ix.cells[cellOf(p)] = append(ix.cells[cellOf(p)], c)
	}
	return ix
}

// Lookup returns the centroid of a 5-digit ZIP code's ZCTA; false when the ZIP has none.
func (ix *Index) Lookup(zip string) (Point, bool) {
	p, ok := ix.points[zip]
	return p, ok
}

// Len is the number of ZCTAs indexed.
func (ix *Index) Len() int { return len(ix.points) }

// Within returns the ZCTAs whose centroids are at most km from p, nearest first (equal distances
// by ZCTA code). km is capped at MaxRadiusKm.
func (ix *Index) Within(p Point, km float64) []Hit {
	km = min(km, MaxRadiusKm)
	dLat := km / (earthKm * math.Pi / 180)
	// The widest longitude span the radius reaches is at the latitude nearest a pole.
	far := min(89.9, math.Abs(p.Lat)+dLat)
	dLon := dLat / math.Cos(far*math.Pi/180)
	lo, hi := cellOf(Point{p.Lat - dLat, p.Lon - dLon}), cellOf(Point{p.Lat + dLat, p.Lon + dLon})
	var out []Hit
	for la := lo.lat; la <= hi.lat; la++ {
		for lo := lo.lon; lo <= hi.lon; lo++ {
			for _, c := range ix.cells[cell{la, wrap(lo)}] {
				// A centroid outside the radius's box of degrees is farther than km: the
				// box is checked first, as it costs no trigonometry.
				if math.Abs(c.Lat-p.Lat) > dLat+boxSlack || lonApart(c.Lon, p.Lon) > dLon+boxSlack {
					continue
				}
				if d := Km(p, Point{c.Lat, c.Lon}); d <= km {
					out = append(out, Hit{ZCTA: c.ZCTA, Km: d})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if c := cmp.Compare(a.Km, b.Km); c != 0 {
			return c
		}
		return cmp.Compare(a.ZCTA, b.ZCTA)
	})
	return out
}

// boxSlack widens Within's box of degrees by far less than a metre, so that rounding never
// leaves out a centroid at the radius's very edge.
const boxSlack = 1e-9

// lonApart is the difference of two longitudes in degrees, the short way round (0 to 180).
func lonApart(a, b float64) float64 {
	d := math.Abs(a - b)
	if d > 180 {
		d = 360 - d
	}
	return d
}

// wrap brings a whole-degree longitude cell back into [-180, 180).
func wrap(lon int) int {
	return ((lon+180)%360+360)%360 - 180
}

var (
	builtIn     *Index
	builtInErr  error
	builtInOnce sync.Once
)

// ZCTAs returns the index of the reference set's centroid table (source/reference), built on
// first use.
func ZCTAs() (*Index, error) {
	builtInOnce.Do(func() { builtIn, builtInErr = Open(reference.Embedded()) })
	return builtIn, builtInErr
}

// Open builds the index of the centroid table of a reference set.
func Open(fsys fs.FS) (*Index, error) {
	cs, err := zcta.Load(fsys, zcta.File)
	if err != nil {
		return nil, fmt.Errorf("geo: %w", err)
	}
	return NewIndex(cs), nil
}

// Decimal parses a plain decimal number ("40.75", "-73.9", "25"): digits, one point, a leading
// sign. Exponents, infinities and NaN, which strconv.ParseFloat would take, are refused.
func Decimal(s string) (float64, error) {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" || digits == "." || strings.Trim(digits, "0123456789.") != "" || strings.Count(digits, ".") > 1 {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	return v, nil
}
