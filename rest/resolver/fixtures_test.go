package resolver_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"testing"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/resolverserver"
)

// fixtures are identifiers of the demo snapshot with the properties the tests need, found by
// reading the stored source records directly.
type fixtures struct {
	excluded, enrolled, notEnrolled, notExcluded string // NPIs in the registry
	absent                                       string // well-formed, valid check digit, not in the registry
	badCheckDigit                                string // ten digits failing the check digit
	rated                                        string // an NPI the hospital enrollment file ties to a rated CCN
	ratedCCN                                     string
	ratedStar                                    int
	facility                                     stored.Body[stored.FacilityRecord] // a POS record with a rated Care Compare row
	facilityStar                                 int
	unknownCCN                                   string // a well-formed CCN the POS file does not hold
}

func demoFixtures(t testing.TB, st store.Store) fixtures {
	t.Helper()
	common := resolverserver.Find(t, st)
	f := fixtures{excluded: common.Excluded, enrolled: common.Enrolled, notExcluded: common.NotExcluded,
		absent: common.Absent, unknownCCN: common.UnknownCCN}
	c := common.Absent[9] - '0'
	f.badCheckDigit = common.Absent[:9] + strconv.Itoa(int(c+1)%10)
	ctx := context.Background()
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	all := func(collection string, where ...store.Condition) []store.Document {
		page, err := st.Find(ctx, store.Query{Collection: collection, Generation: snap.Generation(collection), Where: where, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return page.Docs
	}
	has := func(collection, param, value string) bool {
		return len(all(collection, store.Condition{Param: param, Values: []string{value}})) > 0
	}
	inRegistry := func(npi string) bool {
		_, err := st.Get(ctx, snap.Generation(catalog.RegistryProviders), catalog.RegistryProviders, npi)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	decode := func(d store.Document, into any) {
		if err := stored.DecodeJSON(d.Body, into); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range all(catalog.RegistryProviders) {
		var r stored.Body[stored.RegistryRecord]
		decode(d, &r)
		if !has(catalog.Enrollments, stored.KeyNPI, r.Record.NPI) {
			f.notEnrolled = r.Record.NPI
			break
		}
	}
	star := func(ccn string) (int, bool) {
		for _, d := range all(catalog.Quality, store.Condition{Param: stored.KeyCCN, Values: []string{ccn}}) {
			var q stored.Body[stored.QualityRecord]
			decode(d, &q)
			if q.Record.OverallStar != nil {
				return int(math.Round(*q.Record.OverallStar)), true
			}
		}
		return 0, false
	}
	for _, d := range all(catalog.HospitalEnrollments) {
		var h stored.Body[stored.HospitalEnrollmentRecord]
		decode(d, &h)
		if s, ok := star(h.Record.CCN); ok && h.Record.CCN != "" && inRegistry(h.Record.NPI) {
			f.rated, f.ratedCCN, f.ratedStar = h.Record.NPI, h.Record.CCN, s
			break
		}
	}
	for _, d := range all(catalog.Facilities) {
		var p stored.Body[stored.FacilityRecord]
		decode(d, &p)
		if s, ok := star(p.Record.CCN); ok && len(p.Record.CCN) == 6 {
			f.facility, f.facilityStar = p, s
			break
		}
	}
	for name, v := range map[string]string{"not enrolled": f.notEnrolled, "rated": f.rated, "facility": f.facility.Record.CCN} {
		if v == "" {
			t.Fatalf("the demo snapshot has no %s fixture", name)
		}
	}
	return f
}

// storedRecords reads every record of a collection of the serving snapshot, a page at a time.
func storedRecords[T any](t *testing.T, st store.Store, collection string) []T {
	t.Helper()
	ctx := context.Background()
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	q := store.Query{Collection: collection, Generation: snap.Generation(collection), Limit: 1000}
	for {
		page, err := st.Find(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Docs {
			b, err := stored.DecodeBody[T](d)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Record)
		}
		if page.Next == "" {
			return out
		}
		q.After = page.Next
	}
}

// testCCNState is the state a CCN's two-character code names.
func testCCNState(ccn string) (string, bool) { return ident.CCNState(ccn[:2]) }
