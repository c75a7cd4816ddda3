package safetext

import (
	"strings"
	"testing"
	"unicode"
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

func TestEchoEscaped(t *testing.T) {
	long := strings.Repeat("a", 8000)
	tests := []struct {
		name, in, want string
	}{
		{"plain", "/v1/nope", "/v1/nope"},
		{"letters of any script", "/fhir/José/日本", "/fhir/José/日本"},
		{"invalid byte", "/x\xff", `/x\xff`},
		{"right-to-left override", "/x\u202ey", `/x\u202ey`},
		{"C1 control", "/x\u009b2J", `/x\u009b2J`},
		{"escape sequence", "/x\x1b[2J", `/x\x1b[2J`},
		{"long", long, long[:EchoRunes-1] + Ellipsis},
		{"long after escapes", strings.Repeat("\xff", 30), strings.Repeat(`\xff`, 24) + `\xf…`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EchoEscaped(tt.in); got != tt.want {
				t.Errorf("EchoEscaped(%.40q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzEchoEscaped holds EchoEscaped to what a reader of an error may rely on, stated with the
// standard library's character classes rather than this package's: valid UTF-8, at most
// EchoRunes characters, no control or format character and no space but U+0020; and a short
// value of letters, digits, punctuation and symbols comes back as it is.
func FuzzEchoEscaped(f *testing.F) {
	for _, s := range []string{"/v1/nope", "/x\xff", "a\u202eb", "\u009b", strings.Repeat("\xff", 40), "日本\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := EchoEscaped(s)
		if !utf8.ValidString(out) || utf8.RuneCountInString(out) > EchoRunes {
			t.Fatalf("EchoEscaped(%q) = %q: not UTF-8, or over %d characters", s, out, EchoRunes)
		}
		for _, r := range out {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (unicode.IsSpace(r) && r != ' ') {
				t.Fatalf("EchoEscaped(%q) = %q keeps %U", s, out, r)
			}
		}
		plain := utf8.ValidString(s) && utf8.RuneCountInString(s) <= EchoRunes && !strings.ContainsFunc(s, func(r rune) bool {
			return !(r == ' ' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)) || r == utf8.RuneError
		})
		if plain && out != s {
			t.Fatalf("EchoEscaped(%q) = %q changed a plain value", s, out)
		}
	})
}
