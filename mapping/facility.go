package mapping

import (
	"providerdir/source/carecompare"
	"providerdir/source/pos"
	"providerdir/stored"
)

// Facility maps one POS row to its record and keys; the id is the CCN.
func Facility(f *pos.Facility) (stored.FacilityRecord, stored.Keys) {
	rec := stored.FacilityRecord{
		CCN: f.CCN, Name: f.Name, CategoryCode: f.Category, SubtypeCode: f.Subtype,
		Address:    stored.Address{Line1: f.Address.Street, City: f.Address.City, State: f.Address.State, PostalCode: f.Address.ZIP, Phone: f.Address.Phone},
		CountyFIPS: f.CountyFIPS, CBSA: f.CBSA, OwnershipCode: f.Ownership,
		TerminationCode: f.Termination, TerminationDate: f.TerminationDate.String(),
		CertificationDate: f.CertificationDate.String(), OriginalParticipationDate: f.OriginalParticipationDate.String(),
		RelatedProvider: f.RelatedProvider, Beds: f.Beds, CertifiedBeds: f.CertifiedBeds, Active: f.Active(),
	}
	return rec, nil // read by CCN (its id) and in full, never searched
}

// qualityKinds is the Care Compare file kind of each quality type, by slug.
var qualityKinds = map[string]carecompare.Kind{
	"hospital":     carecompare.Hospital,
	"nursing-home": carecompare.NursingHome,
	"home-health":  carecompare.HomeHealth,
	"hospice":      carecompare.Hospice,
	"dialysis":     carecompare.Dialysis,
	"asc":          carecompare.ASC,
}

// QualityKind returns the Care Compare file kind a quality type is read from.
func QualityKind(t stored.QualityType) carecompare.Kind { return qualityKinds[t.Slug] }

// QualityTypeOf returns the type of a file kind.
func QualityTypeOf(k carecompare.Kind) stored.QualityType {
	for _, t := range stored.QualityTypes {
		if QualityKind(t) == k {
			return t
		}
	}
	return stored.QualityType{}
}

// Quality maps one Care Compare facility row, joined with its survey where the type has one
// (carecompare.Facility.Join), to its id, record and keys. The id is the type slug and the CCN,
// since a CCN could in principle appear under two facility types.
func Quality(f *carecompare.Facility) (string, stored.QualityRecord, stored.Keys) {
	t := QualityTypeOf(f.Kind)
	rec := stored.QualityRecord{
		Type: t.Slug, CCN: f.CCN, NPI: f.NPI, Name: f.Name, FacilityType: f.FacilityType, Ownership: f.Ownership,
		Address:     stored.Address{Line1: f.Address, Line2: f.Address2, City: f.City, State: f.State, PostalCode: f.ZIP, Phone: f.Phone},
		County:      f.County,
		OverallStar: f.OverallStar, StarFootnote: f.StarFootnote,
		MeasurementPeriod: period(f.Period),
		Measures:          make([]stored.QualityItem, 0, len(f.Measures)),
		Certified:         f.Certified.String(), AsOf: f.AsOf.String(),
	}
	for _, m := range f.Measures {
		rec.Measures = append(rec.Measures, stored.QualityItem{ID: m.Name, Value: m.Value, Footnote: m.Footnote})
	}
	var k stored.Keys
	k.Add(stored.KeyType, t.Slug)
	k.Add(stored.KeyCCN, f.CCN)
	k.Add(stored.KeyNPI, f.NPI)
	return t.Slug + "." + f.CCN, rec, k
}

// period renders a measurement period as "<start date>/<end date>" (ISO 8601 dates); "" when
// the row does not state both dates in order, which the resolver serves as null.
func period(p carecompare.Period) string {
	if !p.Dated() || p.End.Before(p.Start) {
		return ""
	}
	return p.Start.String() + "/" + p.End.String()
}
