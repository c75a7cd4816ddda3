package supply

import (
	"context"
	"errors"
	"slices"
	"strings"

	"providerdir/catalog"
	"providerdir/geo"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
)

// NearbyPage is the number of providers a page of a near-a-ZIP list holds.
const NearbyPage = 20

// ErrNoRegistry is Nearby's error when the serving snapshot holds no registry.
var ErrNoRegistry = errors.New("supply: no provider registry loaded")

// Nearby is one page of a specialty's providers near a place, nearest first.
type Nearby struct {
	// Total counts every provider within the radius; Providers are those of the page asked for.
	Total     int64
	Providers []NearbyProvider
	// Registry is the provenance of the registry records of the page, each dataset snapshot once
	// (a weekly delta's records carry their own).
	Registry []stored.Provenance
}

// NearbyProvider is one provider of a near-a-ZIP list: who, where, which of the specialty's
// codes it holds, and how far its practice ZIP's ZCTA centroid is from the place, in miles.
type NearbyProvider struct {
	NPI, Name, Credential string
	City, State, ZIP      string
	Codes                 []string
	Miles                 float64
}

// nearbyRecord is the part of a registry record a near-a-ZIP list shows.
type nearbyRecord struct {
	NPI             string            `json:"npi"`
	Name            stored.PersonName `json:"name"`
	PracticeAddress struct {
		City       string `json:"city"`
		State      string `json:"state"`
		PostalCode string `json:"postal_code"`
	} `json:"practice_address"`
	Taxonomies []struct {
		Code string `json:"code"`
	} `json:"taxonomies"`
}

// Nearby returns page (from 1) of the providers a study of codes counts, active individuals
// holding one of them, whose practice ZIP's ZCTA centroid is within radiusMiles of at, nearest
// first, ties by NPI: read through the same near search as the resolver's, from the serving
// snapshot.
func (a *API) Nearby(ctx context.Context, codes []string, at geo.Point, radiusMiles float64, page int) (Nearby, error) {
	ix, err := geo.ZCTAs()
	if err != nil {
		return Nearby{}, err
	}
	v, err := a.records.Serving(ctx)
	if err != nil {
		return Nearby{}, err
	}
	if v.Snap.Generation(catalog.RegistryProviders) == "" {
		return Nearby{}, ErrNoRegistry
	}
	near := records.NewNear(ix, at, radiusMiles)
	if len(near.ZIPs) == 0 {
		return Nearby{Providers: []NearbyProvider{}}, nil
	}
	where := []store.Condition{
		{Param: stored.KeyTaxonomy, Values: codes},
		{Param: stored.KeyActive, Values: []string{"true"}},
		{Param: stored.KeyEntity, Values: []string{stored.EntityIndividual}},
	}
	found, total, err := v.Nearest(ctx, near, where, page, NearbyPage)
	if err != nil {
		return Nearby{}, err
	}
	out := Nearby{Total: int64(total), Providers: make([]NearbyProvider, 0, len(found))}
	for _, d := range found {
		b, err := stored.DecodeBody[nearbyRecord](d.Document)
		if err != nil {
			return Nearby{}, err
		}
		r := b.Record
		p := NearbyProvider{NPI: r.NPI, Credential: r.Name.Credential, City: r.PracticeAddress.City, State: r.PracticeAddress.State,
			ZIP: r.PracticeAddress.PostalCode[:min(5, len(r.PracticeAddress.PostalCode))], Miles: d.Miles,
			Name: strings.Join(slices.DeleteFunc([]string{r.Name.Prefix, r.Name.First, r.Name.Middle, r.Name.Last, r.Name.Suffix}, func(s string) bool { return s == "" }), " ")}
		for _, t := range r.Taxonomies {
			if slices.Contains(codes, t.Code) && !slices.Contains(p.Codes, t.Code) {
				p.Codes = append(p.Codes, t.Code)
			}
		}
		out.Providers = append(out.Providers, p)
		if !slices.ContainsFunc(out.Registry, func(p stored.Provenance) bool {
			return p.DatasetID == b.Provenance.DatasetID && p.Snapshot == b.Provenance.Snapshot
		}) {
			out.Registry = append(out.Registry, b.Provenance)
		}
	}
	return out, nil
}
