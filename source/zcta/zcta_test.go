package zcta_test

import (
	"strings"
	"testing"

	"providerdir/source/reference"
	"providerdir/source/zcta"
)

// The built-in table is the whole 2021 Gazetteer: 33,791 ZCTAs, each inside the box of the
// United States and its territories, Manhattan's 10001 where the Gazetteer puts it.
func TestBuiltInTable(t *testing.T) {
	cs, err := zcta.Load(reference.Embedded(), zcta.File)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 33791 {
		t.Errorf("%d ZCTAs, want 33791", len(cs))
	}
	var found bool
	for _, c := range cs {
		if c.Lat < -15 || c.Lat > 72 || !(c.Lon < -64 || c.Lon > 140) {
			t.Errorf("%s at %v,%v: outside the US and its territories", c.ZCTA, c.Lat, c.Lon)
		}
		if c.ZCTA == "10001" {
			found = c.Lat == 40.75065 && c.Lon == -73.997293
		}
	}
	if !found {
		t.Error("10001 missing or not at 40.75065,-73.997293")
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line    string
		want    zcta.Centroid
		wantErr string
	}{
		{"10001,40.75065,-73.997293", zcta.Centroid{ZCTA: "10001", Lat: 40.75065, Lon: -73.997293}, ""},
		{"96799,-14.2,-170.7", zcta.Centroid{ZCTA: "96799", Lat: -14.2, Lon: -170.7}, ""},
		{"1001,40,-73", zcta.Centroid{}, "not five digits"},
		{"1000a,40,-73", zcta.Centroid{}, "not five digits"},
		{"10001,91,-73", zcta.Centroid{}, "latitude"},
		{"10001,40,-181", zcta.Centroid{}, "longitude"},
		{"10001,1e1,-73", zcta.Centroid{}, "not a decimal number"},
		{"10001,NaN,-73", zcta.Centroid{}, "not a decimal number"},
		{"10001,40", zcta.Centroid{}, "three fields"},
		{"10001,40,-73,x", zcta.Centroid{}, "three fields"},
		{"10001,,-73", zcta.Centroid{}, "not a decimal number"},
	}
	for _, tt := range tests {
		got, err := zcta.ParseLine(tt.line)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %+v, %v; want %+v", tt.line, got, err, tt.want)
		}
	}
}

// A line either fails or yields a five-digit ZCTA and a point on the globe that prints back as
// the line's numbers.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"10001,40.75065,-73.997293", "00601,18.180555,-66.749961", "1,2,3", "99999,-90,180", "12345,--1,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := zcta.ParseLine(s)
		if err != nil {
			return
		}
		fields := strings.Split(s, ",")
		if c.ZCTA != fields[0] || len(c.ZCTA) != 5 || strings.Trim(c.ZCTA, "0123456789") != "" {
			t.Fatalf("%q: ZCTA %q", s, c.ZCTA)
		}
		if c.Lat < -90 || c.Lat > 90 || c.Lon < -180 || c.Lon > 180 || c.Lat != c.Lat || c.Lon != c.Lon {
			t.Fatalf("%q: point %v,%v off the globe", s, c.Lat, c.Lon)
		}
	})
}
