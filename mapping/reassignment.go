package mapping

import (
	"providerdir/source/pecos"
	"providerdir/stored"
)

// Reassignment maps one reassignment row to its id, record and keys. A pair of enrollments is
// reassigned once, so the pair is the id.
func Reassignment(r *pecos.Reassignment) (string, stored.ReassignmentRecord, stored.Keys) {
	var k stored.Keys
	k.Add(stored.KeyReassigning, r.Reassigning)
	k.Add(stored.KeyReceiving, r.Receiving)
	return r.Reassigning + "." + r.Receiving, stored.ReassignmentRecord{Reassigning: r.Reassigning, Receiving: r.Receiving}, k
}
