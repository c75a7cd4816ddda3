package fhirmap

import (
	"providerdir/geo"
)

// A Location's position is the internal point of its ZIP code's ZIP Code Tabulation Area, from
// the Census Gazetteer (source/zcta): the registry publishes addresses, not coordinates, and
// geocoding every address would need a service the federal files do not come with. The
// extension ExtPositionSource on the position says so, with the ZCTA, the Gazetteer file and the
// confidence. A ZIP code with no ZCTA (a post-office box or single-firm ZIP) gives no position.
const (
	// ExtPositionSource is the complex extension on Location.position: method (code), zcta
	// (string), source (uri), vintage (string) and confidence (decimal).
	ExtPositionSource = "urn:providerdir:extension:position-source"
	// PositionMethod is the method sub-extension's code: the point is a ZCTA centroid.
	PositionMethod = "zcta-centroid"
	// GazetteerURL is the Census file the centroids come from.
	GazetteerURL = "https://www2.census.gov/geo/docs/maps-data/data/gazetteer/2021_Gazetteer/2021_Gaz_zcta_national.zip"
	// PositionConfidence is the confidence of a ZCTA centroid as a practice's position: the
	// practice is in the ZIP's area, but anywhere in it (a few kilometres across in a city,
	// tens in the country), and a ZIP's delivery area and its ZCTA do not always coincide.
	PositionConfidence = 0.6
)

// KeyNear is the search key of a Location with a position, and of a PractitionerRole at one:
// the 5-digit ZCTA whose centroid the position is. A near search looks up the ZCTAs within its
// radius (geo.Index.Within), all of whose Locations are at the same distance.
const KeyNear = "near"

// ZIP5 returns the 5-digit ZIP code a postal code starts with ("12345", "12345-6789",
// "123456789"), or "" when it does not start with five digits.
func ZIP5(postal string) string {
	if len(postal) < 5 {
		return ""
	}
	for i := range 5 {
		if postal[i] < '0' || postal[i] > '9' {
			return ""
		}
	}
	return postal[:5]
}

// position is the position of an address, and the ZCTA it is the centroid of; nil when the
// address's ZIP code has no ZCTA.
func position(a *Address) (*Position, string, error) {
	zip := ZIP5(a.PostalCode)
	if zip == "" || a.Country != "" && a.Country != "US" {
		return nil, "", nil
	}
	ix, err := geo.ZCTAs()
	if err != nil {
		return nil, "", err
	}
	p, ok := ix.Lookup(zip)
	if !ok {
		return nil, "", nil
	}
	conf := PositionConfidence
	return &Position{
		Extension: []Extension{{URL: ExtPositionSource, Extension: []Extension{
			{URL: "method", ValueCode: PositionMethod},
			{URL: "zcta", ValueString: zip},
			{URL: "source", ValueURI: GazetteerURL},
			{URL: "vintage", ValueString: geo.Vintage},
			{URL: "confidence", ValueDecimal: &conf},
		}}},
		Longitude: p.Lon, Latitude: p.Lat,
	}, zip, nil
}
