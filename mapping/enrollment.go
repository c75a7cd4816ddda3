package mapping

import (
	"providerdir/source/pecos"
	"providerdir/stored"
)

// Enrollment maps one base enrollment row to its record and keys; the id is the enrollment id.
func Enrollment(e *pecos.Enrollment) (stored.EnrollmentRecord, stored.Keys) {
	rec := stored.EnrollmentRecord{NPI: e.NPI, EnrollmentID: e.EnrollmentID, AssociateID: e.AssociateID,
		ProviderTypeCode: e.ProviderTypeCode, ProviderType: e.ProviderTypeDesc, State: e.State,
		OrganizationName: e.OrgName}
	var k stored.Keys
	k.Add(stored.KeyNPI, e.NPI)
	k.Add(stored.KeyEnrollment, e.EnrollmentID)
	// Enrollments are read by NPI and enrollment id; names are searched in the registry.
	if e.LastName != "" || e.FirstName != "" {
		rec.Name = &stored.PersonName{First: e.FirstName, Middle: e.MiddleName, Last: e.LastName}
	}
	return rec, k
}

// HospitalEnrollment maps one hospital enrollment row to its id, record and keys. An
// enrollment with several NPIs has one row per NPI, so the id is the enrollment id and NPI.
func HospitalEnrollment(h *pecos.HospitalEnrollment) (string, stored.HospitalEnrollmentRecord, stored.Keys) {
	rec := stored.HospitalEnrollmentRecord{
		EnrollmentID: h.EnrollmentID, EnrollmentState: h.EnrollmentState,
		ProviderTypeCode: h.ProviderTypeCode, ProviderType: h.ProviderTypeText,
		NPI: h.NPI, MultipleNPI: h.MultipleNPI > 0, CCN: h.CCN, AssociateID: h.AssociateID,
		OrganizationName: h.OrgName, DoingBusinessAs: h.DBAName,
		IncorporationDate: h.IncorporationDate.String(), IncorporationState: h.IncorporationState,
		OrganizationType: h.OrgStructure, ProprietaryNonprofit: h.ProprietaryNonprofit,
		Address: stored.Address{Line1: h.Address.Line1, Line2: h.Address.Line2, City: h.Address.City,
			State: h.Address.State, PostalCode: h.Address.ZIP},
		PracticeLocationType: h.PracticeLocationType,
		Subgroups:            h.Subgroups,
	}
	var k stored.Keys
	k.Add(stored.KeyNPI, h.NPI)
	return h.EnrollmentID + "." + h.NPI, rec, k
}
