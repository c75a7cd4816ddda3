package synth

import (
	"fmt"
	"time"
)

// PECOS public provider enrollment (PPEF) extracts and the Hospital Enrollments file. Both come
// from data.cms.gov, which quotes only fields that need it.

var pecosEnrollmentHeader = []string{"NPI", "PECOS_ASCT_CNTL_ID", "ENRLMT_ID", "PROVIDER_TYPE_CD", "PROVIDER_TYPE_DESC",
	"STATE_CD", "FIRST_NAME", "MDL_NAME", "LAST_NAME", "ORG_NAME"}

var pecosReassignmentHeader = []string{"REASGN_BNFT_ENRLMT_ID", "RCV_BNFT_ENRLMT_ID"}

var hospitalEnrollmentHeader = []string{"ENROLLMENT ID", "ENROLLMENT STATE", "PROVIDER TYPE CODE", "PROVIDER TYPE TEXT",
	"NPI", "MULTIPLE NPI FLAG", "CCN", "ASSOCIATE ID", "ORGANIZATION NAME", "DOING BUSINESS AS NAME",
	"INCORPORATION DATE", "INCORPORATION STATE", "ORGANIZATION TYPE STRUCTURE", "ORGANIZATION OTHER TYPE TEXT",
	"PROPRIETARY_NONPROFIT", "ADDRESS LINE 1", "ADDRESS LINE 2", "CITY", "STATE", "ZIP CODE",
	"PRACTICE LOCATION TYPE", "LOCATION OTHER TYPE TEXT", "SUBGROUP - GENERAL", "SUBGROUP - ACUTE CARE",
	"SUBGROUP - ALCOHOL DRUG", "SUBGROUP - CHILDRENS", "SUBGROUP - LONG-TERM", "SUBGROUP - PSYCHIATRIC",
	"SUBGROUP - REHABILITATION", "SUBGROUP - SHORT-TERM", "SUBGROUP - SWING-BED APPROVED",
	"SUBGROUP - PSYCHIATRIC UNIT", "SUBGROUP - REHABILITATION UNIT", "SUBGROUP - SPECIALTY HOSPITAL",
	"SUBGROUP - OTHER", "SUBGROUP - OTHER TEXT", "REH CONVERSION FLAG", "REH CONVERSION DATE", "CAH OR HOSPITAL CCN"}

// pecosDate is the as-of date of the PECOS extracts: the first day of the snapshot's quarter.
func pecosDate(snap date) date {
	y, m, _ := snap.civil()
	return ymd(y, time.Month((m-1)/3*3+1), 1)
}

func pecosNames(snap date) (enrollment, reassignment, hospitals string) {
	d := pecosDate(snap).time().Format("2006.01.02")
	return "PPEF_Enrollment_Extract_" + d + ".csv", "PPEF_Reassignment_Extract_" + d + ".csv", "Hospital_Enrollments_" + d + ".csv"
}

// enrollmentID builds a PECOS enrollment id: I (individual) or O (organization), the date the
// enrollment was received, six digits. Uniqueness comes from construction: the six digits are
// i mod 10^6 and the date's day count is congruent to (i / 10^6, e) modulo 32, so no two
// (record, enrollment number e) pairs share an id for i < 16 million.
func (w *world) enrollmentID(i int64, e int, org bool, earliest date) string {
	lo := max(earliest, ymd(2003, 11, 3))
	hi := w.snaps[0] - 60
	class := date((i/1_000_000)*2 + int64(e))
	span := int64(max(1, (hi-lo)/32))
	d := lo + date(hash(w.seed, streamPECOS, uint64(i), uint64(e))%uint64(span))*32 + class
	kind := "I"
	if org {
		kind = "O"
	}
	return fmt.Sprintf("%s%s%06d", kind, d.compact(), i%1_000_000)
}

// pecosRows returns the enrollment rows and reassignment rows of an active, enrolled provider.
func (w *world) pecosRows(r *rng, p *provider) (enrollments, reassignments [][]string) {
	r.reset(w.seed, streamPECOS, p.index)
	st := w.ref.states[p.enrollState].Code
	if p.org {
		code, desc := "12-70", "PART B SUPPLIER - CLINIC/GROUP PRACTICE"
		if p.fac >= 0 {
			k := &facilityKinds[w.facilities[p.fac].kind]
			code, desc = k.pecosCode, k.pecosDesc
		}
		enrollments = append(enrollments, []string{p.npi, w.pacID(p.index), w.enrollmentID(p.index, 0, true, w.orgEnumeratedLowerBound()),
			code, desc, st, "", "", "", p.orgName})
		return enrollments, nil
	}
	t := &indivTaxa[p.taxon]
	ids := []string{w.enrollmentID(p.index, 0, false, p.enumerated)}
	enrollments = append(enrollments, []string{p.npi, w.pacID(p.index), ids[0], t.pecosCode, "PRACTITIONER - " + t.pecosDesc,
		st, p.first, p.middle, p.last, ""})
	if w.flag(p.index, flagSecondEnrollment, 0.05) {
		s2 := w.ref.stateDist.draw(r)
		if s2 != p.enrollState {
			ids = append(ids, w.enrollmentID(p.index, 1, false, p.enumerated))
			enrollments = append(enrollments, []string{p.npi, w.pacID(p.index), ids[1], t.pecosCode, "PRACTITIONER - " + t.pecosDesc,
				w.ref.states[s2].Code, p.first, p.middle, p.last, ""})
		}
	}
	// Reassignment of benefits to one or two practices in the enrollment's state.
	pool := w.orgPool[p.enrollState]
	if len(pool) > 0 && r.chance(0.65) {
		n := 1
		if r.chance(0.15) {
			n = 2
		}
		seen := map[int32]bool{}
		for k := 0; k < n; k++ {
			o := pool[r.IntN(len(pool))]
			if seen[o] {
				continue
			}
			seen[o] = true
			reassignments = append(reassignments, []string{ids[0], w.enrollmentID(int64(o), 0, true, w.orgEnumeratedLowerBound())})
		}
	}
	return enrollments, reassignments
}

// orgEnumeratedLowerBound: an organization's enrollment id must be computable without building
// the organization, so organization ids are drawn from the start of enumeration rather than
// from the organization's own enumeration date.
func (w *world) orgEnumeratedLowerBound() date { return nppesEpoch }
