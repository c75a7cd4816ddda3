package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxProse is the longest line of prose a reference document may have; tables and code blocks
// are exempt.
const maxProse = 200

// TestReferenceDocsShape holds the documents to being references: prose in lines a reader can
// follow, and BENCHMARKS.md as the generated figures, one a row with its date and machine,
// followed by one section of design decisions.
func TestReferenceDocsShape(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*/*.md")
	files = append(append(files, more...), "../README.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				code = !code
			}
			if !code && !strings.HasPrefix(line, "|") && len([]rune(line)) > maxProse {
				t.Errorf("%s:%d: a line of prose of %d characters", f, i+1, len([]rune(line)))
			}
		}
	}

	b, err := os.ReadFile("BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	bench := string(b)
	var sections []string
	for _, line := range strings.Split(bench, "\n") {
		if strings.HasPrefix(line, "## ") {
			sections = append(sections, line)
		}
	}
	if want := []string{"## Figures", "## Method", "## Design decisions"}; strings.Join(sections, "\n") != strings.Join(want, "\n") {
		t.Errorf("BENCHMARKS.md sections %q, want %q", sections, want)
	}
	for _, header := range []string{"| figure | value | date | machine |", "| choice (where) | figure | date | machine |"} {
		if !strings.Contains(bench, "\n"+header+"\n") {
			t.Errorf("BENCHMARKS.md has no table %s", header)
		}
	}
	if _, err := os.Stat("benchmarks-history.md"); err == nil {
		t.Error("docs/benchmarks-history.md is back: the history of the figures is in git")
	}
}
