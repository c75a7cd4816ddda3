package intake

import (
	"reflect"
	"strings"
	"testing"
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
