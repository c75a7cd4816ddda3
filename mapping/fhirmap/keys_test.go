package fhirmap

import (
	"slices"
	"strings"
	"testing"

	"providerdir/store"
	"providerdir/stored"
)

// FuzzPruneStringKeys holds pruneStringKeys to its definition: a string parameter's value goes
// when another value of that parameter is longer and starts with it; every other key stays, in
// order.
func FuzzPruneStringKeys(f *testing.F) {
	f.Add("jo\njohn\njohnson\nsmith\n1\n1 main st\n10")
	f.Add("a\n\na\nab\nb")
	f.Fuzz(func(t *testing.T, spec string) {
		var in stored.Keys
		for i, v := range strings.Split(spec, "\n") {
			in = append(in, store.Key{Param: []string{KeyName, KeyPhone, KeyAddress, KeyName + ExactSuffix}[i%4], Value: v})
		}
		var want stored.Keys
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

func TestNameStart(t *testing.T) {
	for _, c := range []struct {
		in, want string
		whole    bool
	}{
		{"f", "f", true},
		{"fenma", "fenma", true},
		{"fenman", "fenma", false},
		{"m d", "m", false},
		{"jo smith", "jo", false},
		{"évane", "évane", true},
		{"évanes", "évane", false},
	} {
		got, whole := NameStart(c.in)
		if got != c.want || whole != c.whole {
			t.Errorf("NameStart(%q) = %q, %v; want %q, %v", c.in, got, whole, c.want, c.whole)
		}
	}
}

// TestNameStartKeys holds the name:start keys to what a search relies on: every prefix of every
// name value has its NameStart among the keys, and no other key is added.
func TestNameStartKeys(t *testing.T) {
	for _, c := range []struct {
		name string
		in   stored.Keys
		want []string
	}{
		{"words and texts", stored.Keys{{Param: KeyName, Value: "mei g fenman m d"}, {Param: KeyName, Value: "g"},
			{Param: KeyName, Value: "fenman"}, {Param: KeyName, Value: "m d"}, {Param: KeyPhone, Value: "555"}},
			[]string{"m", "me", "mei", "g", "f", "fe", "fen", "fenm", "fenma"}},
		{"accented", stored.Keys{{Param: KeyName, Value: "éva"}}, []string{"é", "év", "éva"}},
		{"family and given are not name values", stored.Keys{{Param: KeyFamily, Value: "fenman"}, {Param: KeyGiven, Value: "mei"}}, nil},
		{"no name", stored.Keys{{Param: KeyAddress, Value: "1 main st"}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := addNameStarts(slices.Clone(c.in))
			var got []string
			for _, k := range out[len(c.in):] {
				if k.Param != KeyNameStart {
					t.Fatalf("added %v", k)
				}
				got = append(got, k.Value)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			for _, k := range c.in {
				if k.Param != KeyName {
					continue
				}
				for i := range k.Value {
					if i == 0 {
						continue
					}
					start, _ := NameStart(k.Value[:i])
					if !slices.Contains(got, start) {
						t.Errorf("%q begins with %q but %q is not a start key", k.Value, k.Value[:i], start)
					}
				}
			}
		})
	}
}
