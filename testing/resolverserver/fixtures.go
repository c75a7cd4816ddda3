package resolverserver

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/store"
	"providerdir/stored"
)

// Fixtures are identifiers of a loaded snapshot with the properties client tests need, found by
// reading the stored source records directly, so that no answer is assumed.
type Fixtures struct {
	Enrolled    string // an NPI in the registry and the enrollment file
	Excluded    string // an NPI in the registry and on the exclusion list
	NotExcluded string // an NPI in the registry the loaded exclusion list does not name
	Absent      string // a well-formed NPI with a valid check digit that the registry does not hold
	// Organization is a registry organization, for search: its NPI, name and practice state.
	Organization, OrganizationName, OrganizationState string
	CCN                                               string // a facility in the certification file
	UnknownCCN                                        string // a well-formed CCN the file does not hold
	QualityType, QualityCCN                           string // a Care Compare quality row
	Paid                                              string // an NPI in the registry with Open Payments records
}

// Find reads the fixtures of the serving snapshot of st; it fails the test when one is missing.
func Find(tb testing.TB, st store.Store) Fixtures {
	tb.Helper()
	ctx := context.Background()
	snap, err := store.Serving(ctx, st)
	if err != nil {
		tb.Fatal(err)
	}
	docs := func(collection string, where ...store.Condition) []store.Document {
		page, err := st.Find(ctx, store.Query{Collection: collection, Generation: snap.Generation(collection), Where: where, Limit: 1000})
		if err != nil {
			tb.Fatal(err)
		}
		return page.Docs
	}
	listed := func(collection, npi string) bool {
		return len(docs(collection, store.Condition{Param: stored.KeyNPI, Values: []string{npi}})) > 0
	}
	inRegistry := func(npi string) bool {
		_, err := st.Get(ctx, snap.Generation(catalog.RegistryProviders), catalog.RegistryProviders, npi)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			tb.Fatal(err)
		}
		return err == nil
	}
	decode := func(d store.Document, into any) {
		if err := stored.DecodeJSON(d.Body, into); err != nil {
			tb.Fatal(err)
		}
	}
	npiOf := func(d store.Document) string {
		var b stored.Body[struct {
			NPI string `json:"npi"`
		}]
		decode(d, &b)
		return b.Record.NPI
	}
	firstInRegistry := func(collection string) string {
		for _, d := range docs(collection) {
			if npi := npiOf(d); npi != "" && inRegistry(npi) {
				return npi
			}
		}
		return ""
	}
	f := Fixtures{Enrolled: firstInRegistry(catalog.Enrollments), Excluded: firstInRegistry(catalog.Exclusions),
		Paid: firstInRegistry(catalog.Payments)}
	for _, d := range docs(catalog.RegistryProviders) {
		var r stored.Body[stored.RegistryRecord]
		decode(d, &r)
		if f.NotExcluded == "" && !listed(catalog.Exclusions, r.Record.NPI) {
			f.NotExcluded = r.Record.NPI
		}
		if f.Organization == "" && r.Record.OrganizationName != "" && r.Record.PracticeAddress.State != "" {
			f.Organization, f.OrganizationName, f.OrganizationState = r.Record.NPI, r.Record.OrganizationName, r.Record.PracticeAddress.State
		}
	}
	for _, d := range docs(catalog.Facilities) {
		if len(d.ID) == 6 && ident.ValidateCCN(d.ID) == nil {
			f.CCN = d.ID
			break
		}
	}
	if qs := docs(catalog.Quality); len(qs) > 0 {
		var q stored.Body[stored.QualityRecord]
		decode(qs[0], &q)
		f.QualityType, f.QualityCCN = q.Record.Type, q.Record.CCN
	}
	for n := 1; f.Absent == ""; n++ {
		nine := strconv.Itoa(123456780 + n)
		c, _ := ident.NPICheckDigit(nine)
		if npi := nine + string(c); !inRegistry(npi) {
			f.Absent = npi
		}
	}
	for n := 9999; f.UnknownCCN == ""; n-- {
		ccn := "05" + strconv.Itoa(n)
		if _, err := st.Get(ctx, snap.Generation(catalog.Facilities), catalog.Facilities, ccn); errors.Is(err, store.ErrNotFound) {
			f.UnknownCCN = ccn
		}
	}
	for name, v := range map[string]string{"enrolled": f.Enrolled, "excluded": f.Excluded, "not excluded": f.NotExcluded,
		"organization": f.Organization, "facility": f.CCN, "quality": f.QualityCCN, "paid": f.Paid} {
		if v == "" {
			tb.Fatalf("the snapshot has no %s fixture", name)
		}
	}
	return f
}
