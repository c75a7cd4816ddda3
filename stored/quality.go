package stored

// QualityType is a Care Compare facility type: its path slug in the resolver and its dataset.
type QualityType struct {
	Slug    string
	Dataset Dataset
}

// QualityTypes lists the six facility types, in the resolver's order.
var QualityTypes = []QualityType{
	{"hospital", CareCompareHospital},
	{"nursing-home", CareCompareNursingHome},
	{"home-health", CareCompareHomeHealth},
	{"hospice", CareCompareHospice},
	{"dialysis", CareCompareDialysis},
	{"asc", CareCompareASC},
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

// NationalRecord holds the national averages of one facility type's Care Compare measures,
// computed at ingest from the type's file: for each measure, the mean of the facilities' published
// values, suppressed (null) values left out of both the sum and the count. The document's id is
// the type slug.
type NationalRecord struct {
	Type     string            `json:"type"`
	Measures []NationalMeasure `json:"measures"`
}

// NationalMeasure is one measure's national average and how many facilities published a value.
type NationalMeasure struct {
	ID         string  `json:"id"`
	Average    float64 `json:"national_avg"`
	Facilities int     `json:"facilities"`
}
