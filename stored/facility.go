package stored

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
