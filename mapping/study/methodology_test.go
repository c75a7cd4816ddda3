package study

import (
	"io/fs"
	"regexp"
	"testing"

	"providerdir/docs"
)

func TestTitleVersion(t *testing.T) {
	tests := []struct {
		doc, want string
	}{
		{"# Specialty supply studies: methodology v2026.11.2\n\nText.", "v2026.11.2"},
		{"# X: methodology v2027.01.10\n", "v2027.01.10"},
		{"# X: methodology v2026.13.1\n", ""}, // no month 13
		{"# X: methodology v2026.11.0\n", ""}, // counters start at 1
		{"# X: methodology 2026.11.1\n", ""},
		{"Intro\n# X: methodology v2026.11.1\n", ""}, // the title is the first line
		{"# X: methodology v2026.11.1", ""},          // a title without its line end
		{"", ""},
	}
	for _, tt := range tests {
		got, err := titleVersion([]byte(tt.doc))
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("titleVersion(%q) = %q, %v; want %q", tt.doc, got, err, tt.want)
		}
	}
}

// Every version the document names is the one its title states, which is the one served.
func TestDocumentNamesOneVersion(t *testing.T) {
	b, err := fs.ReadFile(docs.Files, docs.Methodology("specialty-supply"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range regexp.MustCompile(`v[0-9]{4}\.[0-9]{2}\.[0-9]+`).FindAllString(string(b), -1) {
		if v != MethodologyVersion {
			t.Errorf("the document names %s; its title says %s", v, MethodologyVersion)
		}
	}
	if MethodologyVersion == "" {
		t.Fatal("no version")
	}
}
