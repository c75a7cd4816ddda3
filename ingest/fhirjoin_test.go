package ingest

import (
	"fmt"
	"slices"
	"testing"

	"providerdir/store"
	"providerdir/stored"
)

func enrollmentDoc(t *testing.T, npi, id string) store.Document {
	t.Helper()
	body, err := stored.EncodeJSON(stored.Body[stored.EnrollmentRecord]{Record: stored.EnrollmentRecord{NPI: npi, EnrollmentID: id}})
	if err != nil {
		t.Fatal(err)
	}
	return store.Document{ID: npi + "." + id, Body: body}
}

func reassignmentDoc(t *testing.T, n int, from, to, snapshot string) store.Document {
	t.Helper()
	body, err := stored.EncodeJSON(stored.Body[stored.ReassignmentRecord]{
		Record:     stored.ReassignmentRecord{Reassigning: from, Receiving: to},
		Provenance: stored.Provenance{DatasetID: "pecos_reassignment", Snapshot: snapshot},
	})
	if err != nil {
		t.Fatal(err)
	}
	return store.Document{ID: fmt.Sprintf("r%03d", n), Body: body}
}

// The join links each NPI of a reassigning enrollment to each other NPI of the receiving one,
// keeps each individual's links in the order their reassignments were added, and comes out the
// same whether the enrollments or the reassignments were added first (the full load reads the
// two at once).
func TestPECOSJoin(t *testing.T) {
	enrollments := []store.Document{
		enrollmentDoc(t, "0000000007", "I20000101000001"),
		enrollmentDoc(t, "0000000003", "I20000101000002"),
		enrollmentDoc(t, "0000000100", "O20000101000001"), // the digits of an I enrollment, another letter
		enrollmentDoc(t, "0000000200", "O20000101000002"),
		enrollmentDoc(t, "0000000300", "O20000101000002"), // one enrollment, two NPIs
		enrollmentDoc(t, "0000000200", "O20000101000002"), // again: changes nothing
		enrollmentDoc(t, "0000000050", "ODD-1"),           // not of the PECOS form
		enrollmentDoc(t, "12345", "I20000101000009"),      // no valid NPI: not enrolled
	}
	reassignments := []store.Document{
		reassignmentDoc(t, 1, "I20000101000001", "O20000101000001", "2025-04-01"),
		reassignmentDoc(t, 2, "I20000101000002", "O20000101000002", "2025-01-01"),
		reassignmentDoc(t, 3, "I20000101000001", "ODD-1", "2025-04-01"),
		reassignmentDoc(t, 4, "I20000101000001", "O20000101000999", "2025-04-01"), // receiving unknown
		reassignmentDoc(t, 5, "ODD-2", "O20000101000001", "2025-04-01"),           // reassigning unknown
		reassignmentDoc(t, 6, "I20000101000001", "I20000101000001", "2025-04-01"), // to itself
		reassignmentDoc(t, 7, "I20000101000009", "O20000101000001", "2025-04-01"), // its NPI invalid
		reassignmentDoc(t, 8, "I20000101000002", "O20000101000001", "2025-04-01"),
	}
	want := map[uint32][]pecosLink{
		7:   {{7, 100, 0}, {7, 50, 0}},
		3:   {{3, 200, 1}, {3, 300, 1}, {3, 100, 0}},
		100: nil, 50: nil, 1: nil, 12345: nil,
	}
	orders := map[string]func(b *pecosJoinBuilder){
		"enrollments first": func(b *pecosJoinBuilder) {
			for i := range enrollments {
				must(t, b.addEnrollment(&enrollments[i]))
			}
			for i := range reassignments {
				must(t, b.addReassignment(&reassignments[i]))
			}
		},
		"reassignments first": func(b *pecosJoinBuilder) {
			for i := range reassignments {
				must(t, b.addReassignment(&reassignments[i]))
			}
			for i := range enrollments {
				must(t, b.addEnrollment(&enrollments[i]))
			}
		},
	}
	for name, add := range orders {
		t.Run(name, func(t *testing.T) {
			b := newPECOSJoinBuilder()
			add(b)
			pj := b.join()
			for individual, links := range want {
				if got := pj.of(individual); !slices.Equal(got, links) {
					t.Errorf("of(%d) = %v, want %v", individual, got, links)
				}
			}
			if len(pj.provs) != 2 || pj.provs[0].Snapshot != "2025-04-01" || pj.provs[1].Snapshot != "2025-01-01" {
				t.Errorf("provenances %+v, want the two snapshots in the order first named", pj.provs)
			}
		})
	}
	if got := (&pecosJoin{}).of(7); len(got) != 0 {
		t.Errorf("an empty join: %v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestPECOSEnrollmentNumber(t *testing.T) {
	tests := []struct {
		id   string
		want uint64
		ok   bool
	}{
		{"I20031104000123", uint64('I')<<56 | 20031104000123, true},
		{"O20031104000123", uint64('O')<<56 | 20031104000123, true},
		{"O99999999999999", uint64('O')<<56 | 99999999999999, true},
		{"i20031104000123", uint64('i')<<56 | 20031104000123, true},
		{"I2003110400012", 0, false},   // thirteen digits
		{"I200311040001234", 0, false}, // fifteen
		{"I2003110400012X", 0, false},
		{"120031104000123", 0, false}, // no letter
		{"-20031104000123", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := pecosEnrollmentNumber(tt.id)
		if got != tt.want || ok != tt.ok {
			t.Errorf("pecosEnrollmentNumber(%q) = %d, %v; want %d, %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
	// Ids of another form are numbered apart from every PECOS number, the same id alike.
	var c enrollmentCodes
	a, b := c.of("ODD-1"), c.of("ODD-2")
	if a == b || a>>63 != 1 || b>>63 != 1 || c.of("ODD-1") != a {
		t.Errorf("other ids numbered %x, %x", a, b)
	}
}
