package mapping

import "providerdir/source/leie"

// ExclusionRecord is one row of the OIG exclusion list as stored and served. The date of birth
// the list publishes is left out: the directory matches exclusions by NPI and name, and has no
// use for it.
type ExclusionRecord struct {
	NPI               string      `json:"npi,omitempty"`
	Name              *PersonName `json:"name,omitempty"`
	BusinessName      string      `json:"business_name,omitempty"`
	General           string      `json:"general,omitempty"`
	Specialty         string      `json:"specialty,omitempty"`
	UPIN              string      `json:"upin,omitempty"`
	Address           Address     `json:"address"`
	ExclusionType     string      `json:"exclusion_type"`
	ExclusionDate     string      `json:"exclusion_date,omitempty"`
	ReinstatementDate string      `json:"reinstatement_date,omitempty"`
	WaiverDate        string      `json:"waiver_date,omitempty"`
	WaiverState       string      `json:"waiver_state,omitempty"`
}

// Exclusion maps one LEIE row to its document id, record and keys. The list has no row id;
// the id is a digest of the row's identifying fields, stable across monthly releases.
func Exclusion(e *leie.Exclusion) (string, ExclusionRecord, Keys) {
	rec := ExclusionRecord{
		NPI:               e.NPI,
		BusinessName:      e.BusinessName,
		General:           e.General,
		Specialty:         e.Specialty,
		UPIN:              e.UPIN,
		Address:           Address{Line1: e.Address, City: e.City, State: e.State, PostalCode: e.ZIP},
		ExclusionType:     e.Type,
		ExclusionDate:     e.ExclusionDate.String(),
		ReinstatementDate: e.ReinstatementDate.String(),
		WaiverDate:        e.WaiverDate.String(),
		WaiverState:       e.WaiverState,
	}
	var k Keys
	k.Add(KeyNPI, e.NPI)
	if e.Individual() {
		rec.Name = &PersonName{First: e.FirstName, Middle: e.MiddleName, Last: e.LastName}
	}
	id := digest(e.NPI, e.LastName, e.FirstName, e.MiddleName, e.BusinessName, e.Type, rec.ExclusionDate, e.State)
	return id, rec, k
}
