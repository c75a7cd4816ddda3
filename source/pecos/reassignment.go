package pecos

import (
	"io"

	"providerdir/source"
)

// Reassignment is one row of the PPEF reassignment file: an individual's enrollment that
// reassigns its Medicare benefits to an organization's enrollment. It is the public link from a
// clinician to the group or facility that bills for their work.
type Reassignment struct {
	Reassigning string // REASGN_BNFT_ENRLMT_ID: the individual's enrollment id
	Receiving   string // RCV_BNFT_ENRLMT_ID: the organization's enrollment id
}

var (
	reasgnSchema = source.NewSchema("PECOS reassignment")
	rReassigning = reasgnSchema.Required("REASGN_BNFT_ENRLMT_ID")
	rReceiving   = reasgnSchema.Required("RCV_BNFT_ENRLMT_ID")
)

func decodeReassignment(r *source.Row) (Reassignment, bool) {
	return Reassignment{Reassigning: r.Required(rReassigning), Receiving: r.Required(rReceiving)}, true
}

// NewReassignmentReader reads a reassignment file from r, named name in reports.
func NewReassignmentReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Reassignment], error) {
	return source.NewReader(r, name, reasgnSchema, decodeReassignment, opts...)
}
