package fhirmap

import (
	"strings"

	"providerdir/stored"
)

// placeKey is an address as Location.endpoint compares addresses: the address lines joined,
// then the city, each with case, punctuation and spacing set aside (stored.LegalNameKey: "3 Oak
// Ave., Ste 2" is "3 OAK AVE STE 2"), the state code in capitals and the ZIP code's first five
// digits (ZIP5). It is "" when any of the four is missing: an incomplete address is the same
// place as none. Words are compared as written: "STREET" is not "ST".
func placeKey(a stored.Address) string {
	lines := stored.LegalNameKey(a.Line1 + " " + a.Line2)
	city := stored.LegalNameKey(a.City)
	state := strings.ToUpper(strings.TrimSpace(a.State))
	zip := ZIP5(strings.TrimSpace(a.PostalCode))
	if lines == "" || city == "" || state == "" || zip == "" {
		return ""
	}
	return lines + "|" + city + "|" + state + "|" + zip
}

// SamePlace reports whether two addresses are the same place as placeKey compares them.
func SamePlace(a, b stored.Address) bool {
	k := placeKey(a)
	return k != "" && k == placeKey(b)
}

// endpointsAt are the references to a provider's Endpoints whose endpoint file row gives the
// address a, in the provider's endpoint order: the Endpoints of a Location at that address.
func endpointsAt(p *Provider, a stored.Address) []Reference {
	var out []Reference
	for i := range p.Endpoints {
		in := &p.Endpoints[i]
		if HasEndpoint(&in.Record) && SamePlace(in.Record.Location, a) {
			out = append(out, Reference{Reference: Ref(TypeEndpoint, in.ID)})
		}
	}
	return out
}
