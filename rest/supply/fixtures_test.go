package supply_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/mapping/study"
	"providerdir/store"
	"providerdir/stored"
)

// fixtures are NPIs of the demo snapshot with the properties the tests need, found in the store.
type fixtures struct {
	dermatologist string // counted by the dermatology study
	notStudied    string // in the registry, active, holding no registered code
	deactivated   string // in the registry, deactivated (the registry blanks its other fields)
	absent        string // a well-formed NPI the registry does not hold
	excluded      string // on the exclusion list and in the registry
	enrolled      string // with a PECOS enrollment
	paid          string // with Open Payments records
	samExcluded   string // with a SAM.gov exclusion record that carries the NPI
	scored        string // with MIPS final scores
}

func demoFixtures(t testing.TB) fixtures {
	t.Helper()
	st, _, _ := demoSnapshot(t)
	ctx := context.Background()
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	registry := func(where ...store.Condition) []stored.Body[stored.RegistryRecord] {
		page, err := st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders), Where: where, Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		var out []stored.Body[stored.RegistryRecord]
		for _, d := range page.Docs {
			b, err := stored.DecodeBody[stored.RegistryRecord](d)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	inRegistry := func(npi string) bool {
		_, err := st.Get(ctx, snap.Generation(catalog.RegistryProviders), catalog.RegistryProviders, npi)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	codes := func(r stored.RegistryRecord) []string {
		var out []string
		for _, tx := range r.Taxonomies {
			out = append(out, tx.Code)
		}
		return out
	}
	var f fixtures
	for _, b := range registry(store.Condition{Param: stored.KeyTaxonomy, Values: []string{"207ND0900X"}},
		store.Condition{Param: stored.KeyActive, Values: []string{"true"}}, store.Condition{Param: stored.KeyEntity, Values: []string{"individual"}}) {
		if s, ok := ident.LookupState(b.Record.PracticeAddress.State); ok && s.InThe51() && b.Record.PrimaryTaxonomy == "207ND0900X" {
			f.dermatologist = b.Record.NPI
			break
		}
	}
	for _, b := range registry(store.Condition{Param: stored.KeyActive, Values: []string{"true"}}) {
		if len(study.Of(codes(b.Record))) == 0 {
			f.notStudied = b.Record.NPI
			break
		}
	}
	for _, b := range registry(store.Condition{Param: stored.KeyActive, Values: []string{"false"}}) {
		f.deactivated = b.Record.NPI
		break
	}
	for base := 123456789; f.absent == ""; base++ {
		nine := itoa9(base)
		c, _ := ident.NPICheckDigit(nine)
		if npi := nine + string(c); !inRegistry(npi) {
			f.absent = npi
		}
	}
	first := func(collection string, ok func(string) bool) string {
		q := store.Query{Collection: collection, Generation: snap.Generation(collection), Limit: 1000}
		page, err := st.Find(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Docs {
			var b struct {
				Record struct {
					NPI string `json:"npi"`
				} `json:"record"`
			}
			if err := json.Unmarshal(d.Body, &b); err != nil {
				t.Fatal(err)
			}
			if b.Record.NPI != "" && ok(b.Record.NPI) {
				return b.Record.NPI
			}
		}
		return ""
	}
	f.excluded = first(catalog.Exclusions, inRegistry)
	f.enrolled = first(catalog.Enrollments, inRegistry)
	f.paid = first(catalog.Payments, inRegistry)
	f.samExcluded = first(catalog.SAMExclusions, inRegistry)
	f.scored = first(catalog.MIPSScores, inRegistry)
	for name, v := range map[string]string{"dermatologist": f.dermatologist, "not studied": f.notStudied, "deactivated": f.deactivated,
		"excluded": f.excluded, "enrolled": f.enrolled, "paid": f.paid, "SAM-excluded": f.samExcluded, "MIPS-scored": f.scored} {
		if v == "" {
			t.Fatalf("the demo snapshot has no %s provider", name)
		}
	}
	return f
}

func itoa9(n int) string {
	b := []byte("000000000")
	for i := 8; i >= 0 && n > 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}
