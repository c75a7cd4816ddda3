package mapping

import (
	"strings"

	"providerdir/source/sam"
)

// SAMExclusionRecord is one record of the SAM.gov exclusions extract as stored and served.
type SAMExclusionRecord struct {
	NPI            string      `json:"npi,omitempty"`
	Classification string      `json:"classification"`
	Name           *PersonName `json:"name,omitempty"`
	EntityName     string      `json:"entity_name,omitempty"`
	Address        Address     `json:"address"`
	UEI            string      `json:"unique_entity_id,omitempty"`
	DUNS           string      `json:"duns,omitempty"`
	CAGE           string      `json:"cage,omitempty"`
	SAMNumber      string      `json:"sam_number,omitempty"`
	Program        string      `json:"exclusion_program,omitempty"`
	Agency         string      `json:"excluding_agency,omitempty"`
	CTCode         string      `json:"ct_code,omitempty"`
	ExclusionType  string      `json:"exclusion_type"`
	ActiveDate     string      `json:"active_date"`
	// TerminationDate is a date, the literal "indefinite" when the exclusion has no end, or
	// absent when the extract gives neither.
	TerminationDate string `json:"termination_date,omitempty"`
	CrossReference  string `json:"cross_reference,omitempty"`
	Comments        string `json:"additional_comments,omitempty"`
}

// SAMIndefinite is the termination date of an exclusion without an end.
const SAMIndefinite = "indefinite"

// SAMExclusion maps one extract record to its document id, record and keys. The SAM Number
// identifies a record in the extract; where a release lacks it the id is a digest of the
// record's identifying fields.
func SAMExclusion(e *sam.Exclusion) (string, SAMExclusionRecord, Keys) {
	line2 := strings.TrimSpace(strings.Join([]string{e.Address2, e.Address3, e.Address4}, " "))
	rec := SAMExclusionRecord{
		NPI: e.NPI, Classification: e.Classification, EntityName: e.Name,
		Address: Address{Line1: e.Address1, Line2: strings.Join(strings.Fields(line2), " "), City: e.City, State: e.State,
			PostalCode: e.ZIP, Country: e.Country},
		UEI: e.UEI, DUNS: e.DUNS, CAGE: e.CAGE, SAMNumber: e.SAMNumber, Program: e.Program, Agency: e.Agency,
		CTCode: e.CTCode, ExclusionType: e.Type, ActiveDate: e.ActiveDate.String(),
		TerminationDate: e.TerminationDate.String(), CrossReference: e.CrossReference, Comments: e.Comments,
	}
	if e.Indefinite {
		rec.TerminationDate = SAMIndefinite
	}
	var k Keys
	k.Add(KeyNPI, e.NPI)
	if e.Last != "" || e.First != "" {
		rec.Name = &PersonName{Prefix: e.Prefix, First: e.First, Middle: e.Middle, Last: e.Last, Suffix: e.Suffix}
	}
	id := e.SAMNumber
	if id == "" {
		id = digest(e.NPI, e.Classification, e.Name, e.Last, e.First, e.Middle, e.Agency, e.Type, rec.ActiveDate, e.State)
	}
	return id, rec, k
}
