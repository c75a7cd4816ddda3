package mapping

import (
	"providerdir/source/leie"
	"providerdir/stored"
)

// Exclusion maps one LEIE row to its document id, record and keys. The list has no row id;
// the id is a digest of the row's identifying fields, stable across monthly releases.
func Exclusion(e *leie.Exclusion) (string, stored.ExclusionRecord, stored.Keys) {
	rec := stored.ExclusionRecord{
		NPI:               e.NPI,
		BusinessName:      e.BusinessName,
		General:           e.General,
		Specialty:         e.Specialty,
		UPIN:              e.UPIN,
		Address:           stored.Address{Line1: e.Address, City: e.City, State: e.State, PostalCode: e.ZIP},
		ExclusionType:     e.Type,
		ExclusionDate:     e.ExclusionDate.String(),
		ReinstatementDate: e.ReinstatementDate.String(),
		WaiverDate:        e.WaiverDate.String(),
		WaiverState:       e.WaiverState,
	}
	var k stored.Keys
	k.Add(stored.KeyNPI, e.NPI)
	if e.Individual() {
		rec.Name = &stored.PersonName{First: e.FirstName, Middle: e.MiddleName, Last: e.LastName}
	}
	id := digest(e.NPI, e.LastName, e.FirstName, e.MiddleName, e.BusinessName, e.Type, rec.ExclusionDate, e.State)
	return id, rec, k
}
