package mapping

import (
	"providerdir/source/carecompare"
	"providerdir/source/pos"
)

// FacilityRecord is one Provider of Services row as stored and served. Codes are kept as
// published (two digits); their meanings are in the POS data dictionary.
type FacilityRecord struct {
	CCN                       string  `json:"ccn"`
	Name                      string  `json:"name"`
	CategoryCode              string  `json:"category_code"`
	SubtypeCode               string  `json:"subtype_code,omitempty"`
	Address                   Address `json:"address"`
	CountyFIPS                string  `json:"county_fips,omitempty"`
	CBSA                      string  `json:"cbsa,omitempty"`
	OwnershipCode             string  `json:"ownership_code,omitempty"`
	TerminationCode           string  `json:"termination_code"`
	TerminationDate           string  `json:"termination_date,omitempty"`
	CertificationDate         string  `json:"certification_date,omitempty"`
	OriginalParticipationDate string  `json:"original_participation_date,omitempty"`
	RelatedProvider           string  `json:"related_provider,omitempty"`
	Beds                      *int64  `json:"beds,omitempty"`
	CertifiedBeds             *int64  `json:"certified_beds,omitempty"`
	Active                    bool    `json:"active"`
}

// FacilityCategory is the label of a Provider of Services provider category code
// (PRVDR_CTGRY_CD), as the POS data dictionary names the categories; "" for a code not listed.
func FacilityCategory(code string) string { return facilityCategories[code] }

var facilityCategories = map[string]string{
	"01": "Hospital",
	"02": "Skilled Nursing Facility/Nursing Facility (Dually Certified)",
	"03": "Skilled Nursing Facility/Nursing Facility (Distinct Part)",
	"04": "Skilled Nursing Facility",
	"05": "Home Health Agency",
	"06": "Psychiatric Residential Treatment Facility",
	"07": "Portable X-Ray Supplier",
	"08": "Outpatient Physical Therapy/Speech Pathology",
	"09": "End-Stage Renal Disease Facility",
	"10": "Nursing Facility",
	"11": "Intermediate Care Facility for Individuals with Intellectual Disabilities",
	"12": "Rural Health Clinic",
	"14": "Comprehensive Outpatient Rehabilitation Facility",
	"15": "Ambulatory Surgical Center",
	"16": "Hospice",
	"19": "Community Mental Health Center",
	"21": "Federally Qualified Health Center",
}

// Search-key params of facility and quality documents.
const KeyType = "type"

// Facility maps one POS row to its record and keys; the id is the CCN.
func Facility(f *pos.Facility) (FacilityRecord, Keys) {
	rec := FacilityRecord{
		CCN: f.CCN, Name: f.Name, CategoryCode: f.Category, SubtypeCode: f.Subtype,
		Address:    Address{Line1: f.Address.Street, City: f.Address.City, State: f.Address.State, PostalCode: f.Address.ZIP, Phone: f.Address.Phone},
		CountyFIPS: f.CountyFIPS, CBSA: f.CBSA, OwnershipCode: f.Ownership,
		TerminationCode: f.Termination, TerminationDate: f.TerminationDate.String(),
		CertificationDate: f.CertificationDate.String(), OriginalParticipationDate: f.OriginalParticipationDate.String(),
		RelatedProvider: f.RelatedProvider, Beds: f.Beds, CertifiedBeds: f.CertifiedBeds, Active: f.Active(),
	}
	return rec, nil // read by CCN (its id) and in full, never searched
}

// QualityType is a Care Compare facility type: its path slug in the resolver and its dataset.
type QualityType struct {
	Slug    string
	Kind    carecompare.Kind
	Dataset Dataset
}

// QualityTypes lists the six facility types, in the resolver's order.
var QualityTypes = []QualityType{
	{"hospital", carecompare.Hospital, CareCompareHospital},
	{"nursing-home", carecompare.NursingHome, CareCompareNursingHome},
	{"home-health", carecompare.HomeHealth, CareCompareHomeHealth},
	{"hospice", carecompare.Hospice, CareCompareHospice},
	{"dialysis", carecompare.Dialysis, CareCompareDialysis},
	{"asc", carecompare.ASC, CareCompareASC},
}

// QualityTypeOf returns the type of a file kind.
func QualityTypeOf(k carecompare.Kind) QualityType {
	for _, t := range QualityTypes {
		if t.Kind == k {
			return t
		}
	}
	return QualityType{}
}

// QualityRecord is one facility's Care Compare row as stored and served. A suppressed value is
// null, never zero.
type QualityRecord struct {
	Type              string        `json:"type"`
	CCN               string        `json:"ccn"`
	NPI               string        `json:"npi,omitempty"`
	Name              string        `json:"facility_name"`
	FacilityType      string        `json:"facility_type,omitempty"`
	Ownership         string        `json:"ownership_type,omitempty"`
	Address           Address       `json:"address"`
	County            string        `json:"county,omitempty"`
	OverallStar       *float64      `json:"overall_star"`
	StarFootnote      string        `json:"overall_star_footnote,omitempty"`
	MeasurementPeriod string        `json:"measurement_period,omitempty"` // "<start date>/<end date>"
	Measures          []QualityItem `json:"measures"`
	Certified         string        `json:"certification_date,omitempty"`
	AsOf              string        `json:"processing_date,omitempty"`
}

// QualityItem is one published measure of a facility.
type QualityItem struct {
	ID       string   `json:"id"`
	Value    *float64 `json:"value"`
	Footnote string   `json:"footnote,omitempty"`
}

// Quality maps one Care Compare facility row, joined with its survey where the type has one
// (carecompare.Facility.Join), to its id, record and keys. The id is the type slug and the CCN,
// since a CCN could in principle appear under two facility types.
func Quality(f *carecompare.Facility) (string, QualityRecord, Keys) {
	t := QualityTypeOf(f.Kind)
	rec := QualityRecord{
		Type: t.Slug, CCN: f.CCN, NPI: f.NPI, Name: f.Name, FacilityType: f.FacilityType, Ownership: f.Ownership,
		Address:     Address{Line1: f.Address, Line2: f.Address2, City: f.City, State: f.State, PostalCode: f.ZIP, Phone: f.Phone},
		County:      f.County,
		OverallStar: f.OverallStar, StarFootnote: f.StarFootnote,
		MeasurementPeriod: period(f.Period),
		Measures:          make([]QualityItem, 0, len(f.Measures)),
		Certified:         f.Certified.String(), AsOf: f.AsOf.String(),
	}
	for _, m := range f.Measures {
		rec.Measures = append(rec.Measures, QualityItem{ID: m.Name, Value: m.Value, Footnote: m.Footnote})
	}
	var k Keys
	k.Add(KeyType, t.Slug)
	k.Add(KeyCCN, f.CCN)
	k.Add(KeyNPI, f.NPI)
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
