package mapping

import "providerdir/source/pecos"

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

// Enrollment maps one base enrollment row to its record and keys; the id is the enrollment id.
func Enrollment(e *pecos.Enrollment) (EnrollmentRecord, Keys) {
	rec := EnrollmentRecord{NPI: e.NPI, EnrollmentID: e.EnrollmentID, AssociateID: e.AssociateID,
		ProviderTypeCode: e.ProviderTypeCode, ProviderType: e.ProviderTypeDesc, State: e.State,
		OrganizationName: e.OrgName}
	var k Keys
	k.Add(KeyNPI, e.NPI)
	k.Add(KeyEnrollment, e.EnrollmentID)
	// Enrollments are read by NPI and enrollment id; names are searched in the registry.
	if e.LastName != "" || e.FirstName != "" {
		rec.Name = &PersonName{First: e.FirstName, Middle: e.MiddleName, Last: e.LastName}
	}
	return rec, k
}

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

// HospitalEnrollment maps one hospital enrollment row to its id, record and keys. An
// enrollment with several NPIs has one row per NPI, so the id is the enrollment id and NPI.
func HospitalEnrollment(h *pecos.HospitalEnrollment) (string, HospitalEnrollmentRecord, Keys) {
	rec := HospitalEnrollmentRecord{
		EnrollmentID: h.EnrollmentID, EnrollmentState: h.EnrollmentState,
		ProviderTypeCode: h.ProviderTypeCode, ProviderType: h.ProviderTypeText,
		NPI: h.NPI, MultipleNPI: h.MultipleNPI > 0, CCN: h.CCN, AssociateID: h.AssociateID,
		OrganizationName: h.OrgName, DoingBusinessAs: h.DBAName,
		IncorporationDate: h.IncorporationDate.String(), IncorporationState: h.IncorporationState,
		OrganizationType: h.OrgStructure, ProprietaryNonprofit: h.ProprietaryNonprofit,
		Address: Address{Line1: h.Address.Line1, Line2: h.Address.Line2, City: h.Address.City,
			State: h.Address.State, PostalCode: h.Address.ZIP},
		PracticeLocationType: h.PracticeLocationType,
		Subgroups:            h.Subgroups,
	}
	var k Keys
	k.Add(KeyNPI, h.NPI)
	return h.EnrollmentID + "." + h.NPI, rec, k
}
