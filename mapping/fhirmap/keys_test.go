package fhirmap

import (
	"slices"
	"strings"
	"testing"

	"providerdir/mapping"
	"providerdir/store"
)

// FuzzPruneStringKeys holds pruneStringKeys to its definition: a string parameter's value goes
// when another value of that parameter is longer and starts with it; every other key stays, in
// order.
func FuzzPruneStringKeys(f *testing.F) {
	f.Add("jo\njohn\njohnson\nsmith\n1\n1 main st\n10")
	f.Add("a\n\na\nab\nb")
	f.Fuzz(func(t *testing.T, spec string) {
		var in mapping.Keys
		for i, v := range strings.Split(spec, "\n") {
			in = append(in, store.Key{Param: []string{KeyName, KeyPhone, KeyAddress, KeyName + ExactSuffix}[i%4], Value: v})
		}
		var want mapping.Keys
		for _, k := range in {
			extended := slices.Contains(prefixParams, k.Param) && slices.ContainsFunc(in, func(o store.Key) bool {
				return o.Param == k.Param && len(o.Value) > len(k.Value) && strings.HasPrefix(o.Value, k.Value)
			})
			if !extended {
				want = append(want, k)
			}
		}
		if got := pruneStringKeys(in); !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}
