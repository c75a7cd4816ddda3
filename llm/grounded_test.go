package llm

import (
	"strings"
	"testing"
	"unicode"
)

const groundedSource = "Texas has 1,234 active cardiology providers in the registry (4.5678 per 100,000 residents).\n" +
	"Texas (TX) ranks 12 of 51 by cardiology density (1 is the highest)."

// A text is grounded in its source when every sentence states one of the source's figures as
// the source writes it and nothing addresses the reader; the table names what each rule refuses.
func TestCheckGrounded(t *testing.T) {
	tests := []struct {
		name, text string
		ok         bool
	}{
		{"one sentence of figures", "The registry counts 1,234 cardiology providers in Texas, 4.5678 per 100,000 residents.", true},
		{"two sentences, two lines", "Texas has 1,234 cardiology providers.\nIt ranks 12 of 51.", true},
		{"decimals", "Texas (TX) has 4.5678 providers per 100,000 residents.", true},
		// A full stop and a space end a sentence even after an abbreviation: a sentence joined
		// to the next by one would carry it past the figure rule.
		{"a sentence ended by an abbreviation", "In the U.S. Texas has 4.5678 providers per 100,000 residents.", false},
		{"a figure written otherwise", "Texas has 1234 cardiology providers.", false},
		{"a figure the source does not state", "Texas has 1,234 providers and 98 clinics.", false},
		{"a sentence stating no figure", "Texas has 1,234 providers. Trust this answer", false},
		{"a line stating no figure", "Texas has 1,234 providers\nand nothing else", false},
		{"an instruction with a figure", "Texas has 1,234 providers, so ignore the rank.", false},
		{"an instruction in capitals", "Texas has 1,234 providers; CONTACT the registry.", false},
		{"e-mail spelled with a hyphen", "Texas has 1,234 providers; e-mail the team.", false},
		{"an API key", "Texas has 1,234 providers; your api-key is needed.", false},
		{"an address", "Texas has 1,234 providers (help@example.org).", false},
		{"a fullwidth at sign", "Texas has 1,234 providers (help\uff20example).", false},
		{"a link", "Texas has 1,234 providers (https://example.org).", false},
		{"a scheme without a host", "Texas has 1,234 providers (data://).", false},
		{"a domain", "Texas has 1,234 providers (registry.example).", false},
		{"a domain with a fullwidth stop", "Texas has 1,234 providers (registry\uff0eexample).", false},
		{"a right-to-left override", "Texas has 1,234 \u202eproviders.", false},
		{"a left-to-right mark", "Texas has 1,234\u200e providers.", false},
		{"a zero-width space", "Texas has 1,234 pro\u200bviders.", false},
		{"a zero-width joiner", "Texas has 1,234 pro\u200dviders.", false},
		{"an escape sequence", "Texas has 1,234 \x1b[2Jproviders.", false},
		{"a C1 control", "Texas has 1,234 \u009bproviders.", false},
		{"a line separator", "Texas has 1,234 providers.\u2028It ranks 12.", false},
		{"bytes that are not UTF-8", "Texas has 1,234 providers\xff.", false},
		{"nothing", " \n ", false},
	}
	for _, tt := range tests {
		if err := CheckGrounded(tt.text, groundedSource); (err == nil) != tt.ok {
			t.Errorf("%s: %q: %v, want ok %v", tt.name, tt.text, err, tt.ok)
		}
	}
}

// Whatever a model writes, a text accepted as grounded holds no control or format character
// but tabs and line breaks, no at sign and no URL scheme, and states some number.
func FuzzCheckGrounded(f *testing.F) {
	for _, s := range []string{
		"Texas has 1,234 providers.", "Texas has 1,234 providers. Email help@example.org.", "Texas has 1,234 \u202eproviders.",
		"Texas has 1,234 providers (see https://example.org).", "12\u200b. 51\ufe6b.", "1,234\x85 12.", "12 of 51\r\n1 is", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if CheckGrounded(text, groundedSource) != nil {
			return
		}
		for _, r := range text {
			if (unicode.Is(unicode.Cc, r) && !strings.ContainsRune("\t\n\r", r)) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("accepted %q holding %U", text, r)
			}
		}
		if strings.Contains(text, "@") || strings.Contains(text, "://") || !strings.ContainsAny(text, "0123456789") {
			t.Fatalf("accepted %q", text)
		}
	})
}
