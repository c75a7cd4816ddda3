package stored

import (
	"slices"
	"testing"

	"providerdir/store"
)

// TestNormalizeText: NormalizeText folds case, accents and punctuation; FoldText, R4's string
// search normalization, folds case and accents and keeps punctuation.
func TestNormalizeText(t *testing.T) {
	tests := []struct{ in, want, fold string }{
		{"", "", ""},
		{"Smith", "smith", "smith"},
		{"  José  Núñez ", "jose nunez", "jose nunez"},
		{"O'Brien", "obrien", "o'brien"},
		{"SMITH-JONES, MD", "smith jones md", "smith-jones, md"},
		{"Zoë Ångström", "zoe angstrom", "zoe angstrom"},
		{"St. Mary's Hospital", "st marys hospital", "st. mary's hospital"},
		{"!!!", "", "!!!"},
		{"123 Main St.", "123 main st", "123 main st."},
		{"tab\tand\nnewline", "tab and newline", "tab and newline"},
		{"\xf1ê", "e", "e"},                     // an invalid byte separates, and what follows still decomposes
		{"ab\xffcd", "ab cd", "ab cd"},          // bytes of another encoding, not converted, split words
		{"Ñoño—Łódź", "nono łodz", "nono—łodz"}, // a dash of its own is punctuation
	}
	for _, tt := range tests {
		if got := NormalizeText(tt.in); got != tt.want {
			t.Errorf("NormalizeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := FoldText(tt.in); got != tt.fold {
			t.Errorf("FoldText(%q) = %q, want %q", tt.in, got, tt.fold)
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
		for _, punct := range []bool{false, true} {
			if isASCII(s) && foldASCII(s, punct) != foldRunes(s, punct) {
				t.Fatalf("punctuation kept %v: ASCII path %q, rune path %q", punct, foldASCII(s, punct), foldRunes(s, punct))
			}
			n := fold(s, punct)
			if fold(n, punct) != n {
				t.Fatalf("punctuation kept %v: not idempotent: %q -> %q -> %q", punct, s, n, fold(n, punct))
			}
		}
	})
}
