package mapping

import "providerdir/source/pecos"

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

// Reassignment maps one reassignment row to its id, record and keys. A pair of enrollments is
// reassigned once, so the pair is the id.
func Reassignment(r *pecos.Reassignment) (string, ReassignmentRecord, Keys) {
	var k Keys
	k.Add(KeyReassigning, r.Reassigning)
	k.Add(KeyReceiving, r.Receiving)
	return r.Reassigning + "." + r.Receiving, ReassignmentRecord{Reassigning: r.Reassigning, Receiving: r.Receiving}, k
}
