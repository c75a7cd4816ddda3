package stored

// EnrollmentRecord is one Medicare fee-for-service enrollment as stored and served.
type EnrollmentRecord struct {
	NPI              string      `json:"npi"`
	EnrollmentID     string      `json:"enrollment_id"`
	AssociateID      string      `json:"associate_id,omitempty"`
	ProviderTypeCode string      `json:"provider_type_code,omitempty"`
	ProviderType     string      `json:"provider_type,omitempty"`
	State            string      `json:"state,omitempty"`
	Name             *PersonName `json:"name,omitempty"`
	OrganizationName string      `json:"organization_name,omitempty"`
}

// Search-key params: an enrollment's id, by which a reassignment's enrollments are looked up,
// and the CCN of a quality record, by which a facility's ratings are.
const (
	KeyEnrollment = "enrollment_id"
	KeyCCN        = "ccn"
)

// HospitalEnrollmentRecord is one row of the hospital enrollment file: the bridge between a
// hospital's organization NPI and its CMS Certification Number.
type HospitalEnrollmentRecord struct {
	EnrollmentID         string   `json:"enrollment_id"`
	EnrollmentState      string   `json:"enrollment_state,omitempty"`
	ProviderTypeCode     string   `json:"provider_type_code,omitempty"`
	ProviderType         string   `json:"provider_type,omitempty"`
	NPI                  string   `json:"npi"`
	MultipleNPI          bool     `json:"multiple_npi,omitempty"`
	CCN                  string   `json:"ccn,omitempty"`
	AssociateID          string   `json:"associate_id,omitempty"`
	OrganizationName     string   `json:"organization_name,omitempty"`
	DoingBusinessAs      string   `json:"doing_business_as,omitempty"`
	IncorporationDate    string   `json:"incorporation_date,omitempty"`
	IncorporationState   string   `json:"incorporation_state,omitempty"`
	OrganizationType     string   `json:"organization_type,omitempty"`
	ProprietaryNonprofit string   `json:"proprietary_nonprofit,omitempty"`
	Address              Address  `json:"address"`
	PracticeLocationType string   `json:"practice_location_type,omitempty"`
	Subgroups            []string `json:"subgroups,omitempty"`
}

// ReassignmentRecord is one PECOS reassignment of benefits: an individual's enrollment to an
// organization's.
type ReassignmentRecord struct {
	Reassigning string `json:"reassigning_enrollment_id"`
	Receiving   string `json:"receiving_enrollment_id"`
}

// Search-key params of reassignment documents.
const (
	KeyReassigning = "reassigning"
	KeyReceiving   = "receiving"
)
