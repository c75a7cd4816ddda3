package geo_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"providerdir/geo"
)

func TestKm(t *testing.T) {
	tests := []struct {
		name string
		a, b geo.Point
		want float64 // km, to 0.5%
	}{
		{"JFK to LAX", geo.Point{Lat: 40.6413, Lon: -73.7781}, geo.Point{Lat: 33.9416, Lon: -118.4085}, 3983},
		{"a degree of latitude", geo.Point{Lat: 0, Lon: 0}, geo.Point{Lat: 1, Lon: 0}, 111.2},
		{"across the antimeridian", geo.Point{Lat: 52, Lon: 179.5}, geo.Point{Lat: 52, Lon: -179.5}, 68.5},
		{"the same point", geo.Point{Lat: 40, Lon: -73}, geo.Point{Lat: 40, Lon: -73}, 0},
	}
	for _, tt := range tests {
		if got := geo.Km(tt.a, tt.b); math.Abs(got-tt.want) > tt.want*0.005+1e-9 {
			t.Errorf("%s: %.1f km, want %.1f", tt.name, got, tt.want)
		}
	}
}

// Within finds exactly the ZCTAs a scan of the whole table finds, nearest first, for points all
// over the country and radii up to the cap.
func TestWithinIsTheFullScan(t *testing.T) {
	ix, err := geo.ZCTAs()
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for z := range 100000 {
		if _, ok := ix.Lookup(zip(z)); ok {
			all = append(all, zip(z))
		}
	}
	if len(all) != ix.Len() {
		t.Fatalf("%d ZCTAs found by lookup, index holds %d", len(all), ix.Len())
	}
	r := rand.New(rand.NewPCG(1, 2))
	centres := []geo.Point{{Lat: 40.75065, Lon: -73.997293}, {Lat: 51.9, Lon: 179.9}, {Lat: 64.8, Lon: -147.7}, {Lat: 21.3, Lon: -157.8}}
	for range 20 {
		centres = append(centres, geo.Point{Lat: 25 + r.Float64()*24, Lon: -124 + r.Float64()*57})
	}
	for _, p := range centres {
		for _, km := range []float64{1, 16, 40.2, geo.MaxRadiusKm, 10 * geo.MaxRadiusKm} {
			var want []string
			for _, z := range all {
				c, _ := ix.Lookup(z)
				if geo.Km(p, c) <= min(km, geo.MaxRadiusKm) {
					want = append(want, z)
				}
			}
			hits := ix.Within(p, km)
			var got []string
			for i, h := range hits {
				got = append(got, h.ZCTA)
				if i > 0 && hits[i-1].Km > h.Km {
					t.Fatalf("%v %v km: not nearest first at %d", p, km, i)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%v within %v km: %d ZCTAs, the scan finds %d", p, km, len(got), len(want))
			}
		}
	}
}

func zip(n int) string {
	b := []byte("00000")
	for i := 4; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}

// Decimal takes exactly the strings that are a sign, digits and at most one point, with a digit.
func FuzzDecimal(f *testing.F) {
	for _, s := range []string{"40.75", "-73.9", "+1", ".5", "5.", "1e3", "NaN", "Inf", "--1", "1.2.3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := geo.Decimal(s)
		body := s
		if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
			body = body[1:]
		}
		digits, points := 0, 0
		plain := true
		for _, r := range body {
			switch {
			case r >= '0' && r <= '9':
				digits++
			case r == '.':
				points++
			default:
				plain = false
			}
		}
		if want := plain && digits > 0 && points <= 1; (err == nil) != want {
			t.Fatalf("Decimal(%q): err %v, want accepted %v", s, err, want)
		}
	})
}

// BenchmarkWithin is a near search's place lookup: 25 miles around a dense ZCTA.
func BenchmarkWithin(b *testing.B) {
	ix, err := geo.ZCTAs()
	if err != nil {
		b.Fatal(err)
	}
	at, _ := ix.Lookup("94702")
	for b.Loop() {
		ix.Within(at, 25*geo.KmPerMile)
	}
}
