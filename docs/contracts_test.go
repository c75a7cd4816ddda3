package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citation is a reference to a section of a contract document, "docs/contracts/<file> §N",
// optionally "§N rule M" or "§N and §K".
var citation = regexp.MustCompile(`docs/contracts/([a-z-]+\.md)\s*(?://\s*)?§(\d+)(?:\s+rule\s+(\d+)|\s+and\s+§(\d+))?`)

// contractDoc is the part of a contract a citation names: its sections by number, and within each
// the numbers of its numbered rules.
type contractDoc map[string]map[string]bool

func readContract(t *testing.T, path string) contractDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("a cited contract is missing: %v", err)
	}
	doc := contractDoc{}
	section := regexp.MustCompile(`^## (\d+)\. `)
	rule := regexp.MustCompile(`^(\d+)\. `)
	var cur map[string]bool
	for _, line := range strings.Split(string(b), "\n") {
		if m := section.FindStringSubmatch(line); m != nil {
			cur = map[string]bool{}
			doc[m[1]] = cur
		} else if m := rule.FindStringSubmatch(line); m != nil && cur != nil {
			cur[m[1]] = true
		}
	}
	return doc
}

// TestContractCitations holds every citation of a contract section in the repository to the
// documents in docs/contracts: the file exists, has the section, and the section has the rule
// cited. Nothing cites the documents the contracts were first written from, which a reader of
// the repository does not have.
func TestContractCitations(t *testing.T) {
	docs := map[string]contractDoc{}
	outside := "seeds" + "/" // the test's own source must not match itself
	cited := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "node_modules", "data":
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > 4<<20 {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		if strings.Contains(text, outside) {
			t.Errorf("%s cites %s, which the repository does not hold; cite docs/contracts", path, outside)
		}
		for _, m := range citation.FindAllStringSubmatch(text, -1) {
			cited++
			doc, ok := docs[m[1]]
			if !ok {
				doc = readContract(t, filepath.Join("contracts", m[1]))
				docs[m[1]] = doc
			}
			for _, sec := range []string{m[2], m[4]} {
				if sec != "" && doc[sec] == nil {
					t.Errorf("%s cites %s §%s, which has no such section", path, m[1], sec)
				}
			}
			if m[3] != "" && !doc[m[2]][m[3]] {
				t.Errorf("%s cites %s §%s rule %s, which has no such rule", path, m[1], m[2], m[3])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited < 50 {
		t.Errorf("found %d citations of docs/contracts; the walk missed the code", cited)
	}
}
