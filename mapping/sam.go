package mapping

import (
	"strings"

	"providerdir/source/sam"
	"providerdir/stored"
)

// SAMExclusion maps one extract record to its document id, record and keys. The SAM Number
// identifies a record in the extract; where a release lacks it the id is a digest of the
// record's identifying fields.
func SAMExclusion(e *sam.Exclusion) (string, stored.SAMExclusionRecord, stored.Keys) {
	line2 := strings.TrimSpace(strings.Join([]string{e.Address2, e.Address3, e.Address4}, " "))
	rec := stored.SAMExclusionRecord{
		NPI: e.NPI, Classification: e.Classification, EntityName: e.Name,
		Address: stored.Address{Line1: e.Address1, Line2: strings.Join(strings.Fields(line2), " "), City: e.City, State: e.State,
			PostalCode: e.ZIP, Country: e.Country},
		UEI: e.UEI, DUNS: e.DUNS, CAGE: e.CAGE, SAMNumber: e.SAMNumber, Program: e.Program, Agency: e.Agency,
		CTCode: e.CTCode, ExclusionType: e.Type, ActiveDate: e.ActiveDate.String(),
		TerminationDate: e.TerminationDate.String(), CrossReference: e.CrossReference, Comments: e.Comments,
	}
	if e.Indefinite {
		rec.TerminationDate = stored.SAMIndefinite
	}
	var k stored.Keys
	k.Add(stored.KeyNPI, e.NPI)
	if e.Last != "" || e.First != "" {
		rec.Name = &stored.PersonName{Prefix: e.Prefix, First: e.First, Middle: e.Middle, Last: e.Last, Suffix: e.Suffix}
	}
	id := e.SAMNumber
	if id == "" {
		id = digest(e.NPI, e.Classification, e.Name, e.Last, e.First, e.Middle, e.Agency, e.Type, rec.ActiveDate, e.State)
	}
	return id, rec, k
}
