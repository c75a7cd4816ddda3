package ingest

import (
	"context"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/source/pecos"
	"providerdir/store"
	"providerdir/stored"
)

var (
	ppefEnrollment      = pattern(`PPEF_Enrollment_Extract[_0-9.-]*\.csv`)
	hospitalEnrollments = pattern(`Hospital_Enrollments[_0-9.-]*\.csv`)
	ppefReassignment    = pattern(`PPEF_Reassignment_Extract[_0-9.-]*\.csv`)
)

// loadPECOS stores enrollments and the hospital NPI-CCN bridge. Both files publish the NPI, so
// confidence is 1.
func loadPECOS(ctx context.Context, l *familyLoad, files []sourceFile) error {
	prov := l.snapshot(stored.PECOS).Provenance(1)
	err := loadInto(ctx, l, files, ppefEnrollment, pecos.NewReader, catalog.Enrollments, func(e *pecos.Enrollment) (store.Document, bool, error) {
		rec, keys := mapping.Enrollment(e)
		doc, err := stored.NewDocument(e.EnrollmentID+"."+e.NPI, rec, prov, keys)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	hprov := l.snapshot(stored.HospitalEnrollments).Provenance(1)
	err = loadInto(ctx, l, files, hospitalEnrollments, pecos.NewHospitalReader, catalog.HospitalEnrollments, func(h *pecos.HospitalEnrollment) (store.Document, bool, error) {
		id, rec, keys := mapping.HospitalEnrollment(h)
		doc, err := stored.NewDocument(id, rec, hprov, keys)
		return doc, true, err
	})
	if err != nil {
		return err
	}
	// Reassignments of benefits link an individual's enrollment to the organization that bills
	// for their work: the PractitionerRole.organization join.
	return loadInto(ctx, l, files, ppefReassignment, pecos.NewReassignmentReader, catalog.Reassignments, func(r *pecos.Reassignment) (store.Document, bool, error) {
		id, rec, keys := mapping.Reassignment(r)
		doc, err := stored.NewDocument(id, rec, prov, keys)
		return doc, true, err
	})
}
