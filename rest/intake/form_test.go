package intake

import (
	"net/mail"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"providerdir/internal/safetext"
)

func TestValidate(t *testing.T) {
	good := Form{Name: "Ada Lovelace", Email: "ada@example.org", Organization: "Analytical Health", IntendedUse: "Network adequacy studies for rural counties."}
	tests := []struct {
		name   string
		edit   func(f *Form)
		fields []string // the fields reported, in order
	}{
		{"valid", func(*Form) {}, nil},
		{"surrounding space is trimmed", func(f *Form) { f.Email = "  ada@example.org\n" }, nil},
		{"multiline intended use", func(f *Form) { f.IntendedUse = "Line one of the use.\nLine two.\tTabbed." }, nil},
		{"all empty", func(f *Form) { *f = Form{} }, []string{"name", "email", "organization", "intended_use"}},
		{"blank name", func(f *Form) { f.Name = "   " }, []string{"name"}},
		{"long name", func(f *Form) { f.Name = strings.Repeat("é", 201) }, []string{"name"}},
		{"name of 200 characters", func(f *Form) { f.Name = strings.Repeat("é", 200) }, nil},
		{"control character in name", func(f *Form) { f.Name = "Ada\x00" }, []string{"name"}},
		{"line break in organization", func(f *Form) { f.Organization = "A\nB" }, []string{"organization"}},
		{"invalid UTF-8", func(f *Form) { f.Organization = "\xff" }, []string{"organization"}},
		{"replacement character", func(f *Form) { f.Organization = "Acme \ufffd" }, []string{"organization"}},
		{"right-to-left override", func(f *Form) { f.Name = "Ada\u202eecalevoL" }, []string{"name"}},
		{"isolate in intended use", func(f *Form) { f.IntendedUse = "Network adequacy \u2066studies\u2069." }, []string{"intended_use"}},
		{"zero-width space", func(f *Form) { f.Organization = "Ac\u200bme" }, []string{"organization"}},
		{"byte-order mark", func(f *Form) { f.Name = "\ufeffAda" }, []string{"name"}},
		{"leading joiner", func(f *Form) { f.Name = "\u200dAda" }, []string{"name"}},
		{"Persian name with a non-joiner", func(f *Form) { f.Name = "می\u200cخواهم" }, nil},
		{"accents in any form", func(f *Form) { f.Name = "Jose\u0301 Mu\u0308ller" }, nil},
		{"C1 control in address", func(f *Form) { f.Email = "ada\u009b31m@example.org" }, []string{"email"}},
		{"right-to-left override in address", func(f *Form) { f.Email = "ada\u202egro.elpmaxe@example.org" }, []string{"email"}},
		{"zero-width space in address", func(f *Form) { f.Email = "ada@exa\u200bmple.org" }, []string{"email"}},
		{"joiner in address", func(f *Form) { f.Email = "ada@exa\u200dmple.org" }, []string{"email"}},
		{"escape in address", func(f *Form) { f.Email = "ada\x1b[2J@example.org" }, []string{"email"}},
		{"invalid UTF-8 in address", func(f *Form) { f.Email = "ada\xff@example.org" }, []string{"email"}},
		{"non-ASCII address", func(f *Form) { f.Email = "josé@exämple.org" }, nil},
		{"address without @", func(f *Form) { f.Email = "ada.example.org" }, []string{"email"}},
		{"address with a display name", func(f *Form) { f.Email = "Ada <ada@example.org>" }, []string{"email"}},
		{"two addresses", func(f *Form) { f.Email = "ada@example.org, bob@example.org" }, []string{"email"}},
		{"domain without a dot", func(f *Form) { f.Email = "ada@localhost" }, []string{"email"}},
		{"domain ending in a dot", func(f *Form) { f.Email = "ada@example." }, []string{"email"}},
		{"long address", func(f *Form) { f.Email = strings.Repeat("a", 250) + "@x.org" }, []string{"email"}},
		{"short intended use", func(f *Form) { f.IntendedUse = "research" }, []string{"intended_use"}},
		{"long intended use", func(f *Form) { f.IntendedUse = strings.Repeat("u", 2001) }, []string{"intended_use"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := good
			tt.edit(&f)
			var got []string
			for _, e := range f.normalized().Validate() {
				if e.Message == "" {
					t.Errorf("field %s without a message", e.Field)
				}
				got = append(got, e.Field)
			}
			if !reflect.DeepEqual(got, tt.fields) {
				t.Fatalf("fields %v, want %v", got, tt.fields)
			}
		})
	}
}

func TestNormalizedComposesAccents(t *testing.T) {
	f := Form{Name: "  Jose\u0301 Mu\u0308ller ", Organization: "Cafe\u0301"}.normalized()
	if f.Name != "José Müller" || f.Organization != "Café" {
		t.Fatalf("normalized to %q, %q", f.Name, f.Organization)
	}
}

// A body of any shape is refused with a short sentence, or read as a form; a form of any
// content passes validation only with every field within its bounds and free of the
// characters a terminal acts on or hides, and an address a mail client takes as is.
func FuzzForm(f *testing.F) {
	for _, s := range []string{
		`{"name":"Ada","email":"ada@example.org","organization":"Payer","intended_use":"Supply studies for network adequacy."}`,
		`{"name":"Ada\u202e","email":"ada@example.org","organization":"P","intended_use":"0123456789"}`,
		`{"name":"A","email":"Ada <ada@example.org>","organization":"P","intended_use":"0123456789"}`,
		`{"name":"A","email":"ada@localhost","organization":"P","intended_use":"line one\nline two"}`,
		`{"name":"A","email":"ada\u009b@example.org","organization":"P","intended_use":"0123456789"}`,
		`{"name":"A","email":"ada\u202e@example.org","organization":"P","intended_use":"0123456789"}`,
		`{"name":"A","email":"a\u200db@example.org","organization":"P","intended_use":"0123456789"}`,
		`{"name":1}`, `{"nom":"x"}`, `{"name":"x"} {}`, `{"name":"x"`, ``, `[]`, `{"name":"\ud800"}`,
		`{"name":"e` + "\u0301" + `","email":"a@b.co","organization":"o","intended_use":"` + strings.Repeat("x", maxIntendedUse+1) + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		form, problem := decodeForm(raw)
		if problem != "" {
			if !utf8.ValidString(problem) || len(problem) > 4*safetext.EchoRunes+200 {
				t.Fatalf("%q: problem %q", raw, problem)
			}
			return
		}
		form = form.normalized()
		if errs := form.Validate(); len(errs) > 0 {
			for _, e := range errs {
				if !slices.Contains([]string{"name", "email", "organization", "intended_use"}, e.Field) || e.Message == "" {
					t.Fatalf("%q: field error %+v", raw, e)
				}
			}
			return
		}
		for _, fld := range []struct {
			v                  string
			min, max           int
			multiline, joiners bool
		}{{form.Name, 1, maxName, false, true}, {form.Email, 3, maxEmail, false, false}, {form.Organization, 1, maxOrg, false, true}, {form.IntendedUse, minIntendedUse, maxIntendedUse, true, true}} {
			if n := utf8.RuneCountInString(fld.v); !utf8.ValidString(fld.v) || n < fld.min || n > fld.max {
				t.Fatalf("%q: accepted %q", raw, fld.v)
			}
			for _, r := range fld.v {
				if hidden(r, fld.multiline, fld.joiners) {
					t.Fatalf("%q: accepted %q with %U", raw, fld.v, r)
				}
			}
		}
		if a, err := mail.ParseAddress(form.Email); err != nil || a.Address != form.Email {
			t.Fatalf("%q: accepted address %q", raw, form.Email)
		}
	})
}

// hidden reports whether r is a character no accepted field may hold, by Unicode category
// alone: a control character (Cc) other than a line break or tab in a multiline field, a
// format character (Cf: bidirectional controls, zero-width characters, marks) other than the
// zero-width joiner and non-joiner of a text field, or the replacement character that stands
// for bytes that encode none.
func hidden(r rune, multiline, joiners bool) bool {
	switch {
	case unicode.Is(unicode.Cc, r):
		return !(multiline && (r == '\n' || r == '\r' || r == '\t'))
	case unicode.Is(unicode.Cf, r):
		return !(joiners && (r == 0x200c || r == 0x200d))
	}
	return r == utf8.RuneError
}
