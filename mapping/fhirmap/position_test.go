package fhirmap_test

import (
	"encoding/json"
	"slices"
	"testing"

	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// A Location's position is its ZIP's ZCTA centroid, with the extension saying so; a ZIP with no
// ZCTA (66601, Topeka's post-office boxes) gives none. The near key is the ZCTA, on the
// Location and on the roles at it.
func TestLocationPosition(t *testing.T) {
	ind, err := fhirmap.BuildIndividual(individual(), tax)
	org, _ := fhirmap.BuildOrganization(organization(), tax)
	fac, _ := fhirmap.BuildFacility(facility())
	all := built(t, slices.Concat(ind, org, fac), err)
	tests := []struct {
		ref      string
		zcta     string // "" for no position
		lat, lon float64
	}{
		{"Location/1234567893", "67208", 37.703847, -97.279266}, // 67208-1234
		{"Location/1234567893.00aa11bb22cc33dd", "", 0, 0},
		{"Location/1987654328", "67401", 38.831832, -97.65455},
		{"Location/ccn-175001", "67401", 38.831832, -97.65455},
	}
	for _, tt := range tests {
		r := all[tt.ref]
		var loc struct {
			Position *struct {
				Extension []struct {
					URL       string `json:"url"`
					Extension []map[string]any
				}
				Latitude, Longitude float64
			}
		}
		if err := json.Unmarshal(served(t, r, fhirmap.TagSystemPrefix), &loc); err != nil {
			t.Fatal(err)
		}
		var near []string
		for _, k := range r.Doc.Keys {
			if k.Param == fhirmap.KeyNear {
				near = append(near, k.Value)
			}
		}
		if tt.zcta == "" {
			if loc.Position != nil || near != nil {
				t.Errorf("%s: position %+v, near keys %v; want none", tt.ref, loc.Position, near)
			}
			continue
		}
		if loc.Position == nil {
			t.Fatalf("%s: no position", tt.ref)
		}
		if loc.Position.Latitude != tt.lat || loc.Position.Longitude != tt.lon || !slices.Equal(near, []string{tt.zcta}) {
			t.Errorf("%s: at %v,%v near %v; want %v,%v near %s", tt.ref, loc.Position.Latitude, loc.Position.Longitude, near, tt.lat, tt.lon, tt.zcta)
		}
		ext := loc.Position.Extension
		if len(ext) != 1 || ext[0].URL != fhirmap.ExtPositionSource {
			t.Fatalf("%s: position extension %+v", tt.ref, ext)
		}
		got := map[string]any{}
		for _, sub := range ext[0].Extension {
			for k, v := range sub {
				if k != "url" {
					got[sub["url"].(string)] = v
				}
			}
		}
		want := map[string]any{"method": "zcta-centroid", "zcta": tt.zcta, "source": fhirmap.GazetteerURL, "vintage": "2021", "confidence": fhirmap.PositionConfidence}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: position %s = %v, want %v", tt.ref, k, got[k], v)
			}
		}
	}
	role := all["PractitionerRole/1234567893-1987654328"]
	if !hasKey(role.Doc, fhirmap.KeyNear, "67208") || len(slices.DeleteFunc(slices.Clone(role.Doc.Keys), func(k store.Key) bool { return k.Param != fhirmap.KeyNear })) != 1 {
		t.Errorf("role near keys: %v", role.Doc.Keys)
	}
}

func TestZIP5(t *testing.T) {
	for in, want := range map[string]string{"12345": "12345", "12345-6789": "12345", "123456789": "12345", "1234": "", "A1234": "", "": "", "K1A 0B1": ""} {
		if got := fhirmap.ZIP5(in); got != want {
			t.Errorf("ZIP5(%q) = %q, want %q", in, got, want)
		}
	}
}
