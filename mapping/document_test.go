package mapping

import (
	"slices"
	"testing"

	"providerdir/store"
)

func TestNormalizeText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"Smith", "smith"},
		{"  José  Núñez ", "jose nunez"},
		{"O'Brien", "obrien"},
		{"SMITH-JONES, MD", "smith jones md"},
		{"Zoë Ångström", "zoe angstrom"},
		{"St. Mary's Hospital", "st marys hospital"},
		{"!!!", ""},
		{"123 Main St.", "123 main st"},
		{"\xf1ê", "e"},        // an invalid byte separates, and what follows still decomposes
		{"ab\xffcd", "ab cd"}, // bytes of another encoding, not converted, split words
	}
	for _, tt := range tests {
		if got := NormalizeText(tt.in); got != tt.want {
			t.Errorf("NormalizeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestKeysAdd: a key is added once per param and value, whether the value repeats within one
// call, in a later call of the same param, or after keys of other params came between.
func TestKeysAdd(t *testing.T) {
	var k Keys
	k.Add("a", "x", "y", "x", "")
	k.Add("b", "x")
	k.Add("a", "y", "z")
	k.Add("b", "x", "w", "w")
	want := []store.Key{{Param: "a", Value: "x"}, {Param: "a", Value: "y"}, {Param: "b", Value: "x"}, {Param: "a", Value: "z"}, {Param: "b", Value: "w"}}
	if !slices.Equal([]store.Key(k), want) {
		t.Fatalf("keys = %v, want %v", k, want)
	}
}

func TestKeysAddText(t *testing.T) {
	var k Keys
	k.AddText("name", "Van Der Berg")
	k.AddText("name", "van der berg") // duplicate whole value and words
	k.Add("npi", "", "1234567893")
	want := []store.Key{
		{Param: "name", Value: "van der berg"},
		{Param: "name", Value: "van"},
		{Param: "name", Value: "der"},
		{Param: "name", Value: "berg"},
		{Param: "npi", Value: "1234567893"},
	}
	if !slices.Equal([]store.Key(k), want) {
		t.Fatalf("keys = %v, want %v", k, want)
	}
}

func FuzzNormalizeText(f *testing.F) {
	for _, s := range []string{"José", "O'Brien", "a\u0301", "\xff\xfe", "ǅ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isASCII(s) && normalizeASCII(s) != normalizeRunes(s) {
			t.Fatalf("ASCII path %q, rune path %q", normalizeASCII(s), normalizeRunes(s))
		}
		n := NormalizeText(s)
		if NormalizeText(n) != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, n, NormalizeText(n))
		}
	})
}
