package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 5, ""},
		{"abc", 5, "abc"},
		{"abcde", 5, "abcde"},
		{"abcdef", 5, "abcd…"},
		{"ééééé", 5, "ééééé"},  // ten bytes, five characters: kept whole
		{"éééééé", 5, "éééé…"}, // never split inside a character
		{"日本語テキスト", 3, "日本…"},  // three-byte characters
		{"abc", 0, ""},
		{"a\xffbcdef", 3, "a\xff…"}, // an invalid byte counts as one character
	}
	for _, tt := range tests {
		if got := Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestEchoBoundsAHugeValue(t *testing.T) {
	got := Echo(strings.Repeat("9", 900_000))
	if n := utf8.RuneCountInString(got); n != EchoRunes || !strings.HasSuffix(got, Ellipsis) {
		t.Fatalf("Echo of 900,000 characters has %d characters (want %d, ending in %q)", n, EchoRunes, Ellipsis)
	}
}

func TestInvisible(t *testing.T) {
	tests := []struct {
		r    rune
		want bool
	}{
		{'a', false}, {'é', false}, {' ', false}, {'\n', false}, // controls are another rule's
		{'\u202e', true},                     // right-to-left override
		{'\u202a', true},                     // left-to-right embedding
		{'\u2066', true},                     // left-to-right isolate
		{'\u2069', true},                     // pop directional isolate
		{'\u200e', true},                     // left-to-right mark
		{'\u061c', true},                     // Arabic letter mark
		{'\u200b', true},                     // zero-width space
		{'\u2060', true},                     // word joiner
		{'\ufeff', true},                     // byte-order mark
		{'\u00ad', true},                     // soft hyphen
		{'\u200c', false}, {'\u200d', false}, // joiners: see JoinerMisused
	}
	for _, tt := range tests {
		if got := Invisible(tt.r); got != tt.want {
			t.Errorf("Invisible(%U) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

func TestJoinerMisused(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"Mehdi", false},
		{"می\u200cخواهم", false},     // Persian: the non-joiner between two letters
		{"👩\u200d⚕", false},          // an emoji sequence
		{"\u200dAdmin", true},        // leading
		{"Admin\u200c", true},        // trailing
		{"Ad\u200d\u200dmin", true},  // doubled
		{"Ada \u200cLovelace", true}, // beside a space
		{"Ada Lovelace", false},
	}
	for _, tt := range tests {
		if got := JoinerMisused(tt.in); got != tt.want {
			t.Errorf("JoinerMisused(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestTerminal(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"Ada Lovelace", "Ada Lovelace"},
		{"José Müller 日本", "José Müller 日本"},
		{"evil\x1b[2J", `evil\x1b[2J`},             // an escape sequence is shown, not run
		{"user\u202egnp.exe", `user\u202egnp.exe`}, // a right-to-left override is shown
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"tab\there", `tab\there`},
		{"nb\u00a0sp", `nb\u00a0sp`},
	}
	for _, tt := range tests {
		if got := Terminal(tt.in); got != tt.want {
			t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzTerminal(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "a\u202eb", "\xff\xfe", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Terminal(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Terminal(%q) = %q, not UTF-8", s, out)
		}
		for _, r := range out {
			if unprintable(r) {
				t.Fatalf("Terminal(%q) = %q keeps %U", s, out, r)
			}
		}
		if c := Clip(s, 10); utf8.ValidString(s) && !utf8.ValidString(c) {
			t.Fatalf("Clip(%q, 10) = %q splits a character", s, c)
		}
	})
}
