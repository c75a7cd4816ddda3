package fhir

import (
	"context"
	"reflect"
	"testing"

	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/testing/backends"
)

// TestNarrowNames checks the conditions a name search is given on a generation whose documents
// carry name:start keys and on one written before they existed.
func TestNarrowNames(t *testing.T) {
	ctx := context.Background()
	st := backends.Embedded(t)
	const coll = "fhir_practitioner"
	name := store.Key{Param: fhirmap.KeyName, Value: "fenman"}
	if err := st.Put(ctx, "g1", coll, []store.Document{{ID: "1", Body: []byte(`{}`), Keys: []store.Key{name}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, "g2", coll, []store.Document{{ID: "1", Body: []byte(`{}`), Keys: []store.Key{name, {Param: fhirmap.KeyNameStart, Value: "fen"}}}}); err != nil {
		t.Fatal(err)
	}
	prefix := func(param string, vals ...string) store.Condition {
		return store.Condition{Param: param, Values: vals, Match: store.Prefix}
	}
	start := func(vals ...string) store.Condition {
		return store.Condition{Param: fhirmap.KeyNameStart, Values: vals, Match: store.Exact}
	}
	active := store.Condition{Param: fhirmap.KeyActive, Values: []string{"true"}}
	address := store.Condition{Param: fhirmap.KeyAddress, Values: []string{"1"}, Match: store.Prefix, Or: []store.Alternative{{Param: fhirmap.KeyAddressCity, Values: []string{"1"}}}}
	for _, c := range []struct {
		name  string
		gen   string
		where []store.Condition
		want  []store.Condition
	}{
		{"short name", "g2", []store.Condition{prefix(fhirmap.KeyName, "fen"), active}, []store.Condition{start("fen"), active}},
		{"one letter", "g2", []store.Condition{prefix(fhirmap.KeyName, "f")}, []store.Condition{start("f")}},
		{"as long as a start", "g2", []store.Condition{prefix(fhirmap.KeyName, "fenma")}, []store.Condition{start("fenma")}},
		{"long name", "g2", []store.Condition{prefix(fhirmap.KeyName, "fenman")}, []store.Condition{start("fenma"), prefix(fhirmap.KeyName, "fenman")}},
		{"two words", "g2", []store.Condition{prefix(fhirmap.KeyName, "m d")}, []store.Condition{start("m"), prefix(fhirmap.KeyName, "m d")}},
		{"alternatives", "g2", []store.Condition{prefix(fhirmap.KeyName, "fen", "fenwick", "fenwicks", "smi")}, []store.Condition{start("fen", "fenwi", "smi"), prefix(fhirmap.KeyName, "fen", "fenwick", "fenwicks", "smi")}},
		{"short alternatives", "g2", []store.Condition{prefix(fhirmap.KeyName, "fe", "sm")}, []store.Condition{start("fe", "sm")}},
		{"family", "g2", []store.Condition{prefix(fhirmap.KeyFamily, "fen")}, []store.Condition{prefix(fhirmap.KeyFamily, "fen")}},
		{"given", "g2", []store.Condition{prefix(fhirmap.KeyGiven, "m")}, []store.Condition{prefix(fhirmap.KeyGiven, "m")}},
		{"not a name", "g2", []store.Condition{address, active}, []store.Condition{address, active}},
		{"exact name", "g2", []store.Condition{{Param: fhirmap.KeyName + fhirmap.ExactSuffix, Values: []string{"FENMAN"}}}, []store.Condition{{Param: fhirmap.KeyName + fhirmap.ExactSuffix, Values: []string{"FENMAN"}}}},
		{"generation without start keys", "g1", []store.Condition{prefix(fhirmap.KeyName, "fen")}, []store.Condition{prefix(fhirmap.KeyName, "fen")}},
		{"nothing ingested", "", []store.Condition{prefix(fhirmap.KeyName, "fen")}, []store.Condition{prefix(fhirmap.KeyName, "fen")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Server{st: st}
			got, err := s.narrowNames(ctx, c.gen, coll, c.where)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}
