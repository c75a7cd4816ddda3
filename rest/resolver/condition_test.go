package resolver

import (
	"testing"

	"providerdir/catalog"
	"providerdir/match"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/testing/demostore"
)

// A typo's condition selects by the lexicon's words within one edit of it, not by those its
// deletions reach two edits away (a word with a letter inserted and another dropped shares a
// deletion with it): such words select records that no query word matches, and a common one
// (care for cdar) multiplies the records a search reads.
func TestConditionOneEditWords(t *testing.T) {
	d := demostore.Open(t)
	ctx := t.Context()
	v, err := records.New(d.Store).Serving(ctx)
	if err != nil {
		t.Fatal(err)
	}
	page, err := d.Store.Find(ctx, store.Query{Collection: catalog.RegistryNameWords, Generation: v.Snap.Generation(catalog.RegistryNameWords), Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, doc := range page.Docs {
		w := doc.ID
		if len(w) < 6 || !isASCIILetters(w) {
			continue
		}
		// Two edits from w: a letter inserted after the first, the last dropped.
		q := w[:1] + "q" + w[1:len(w)-1]
		s := newSearcher(ctx, d.Store, v, "", &records.Cache[bool]{})
		if known, err := s.isWord(q); err != nil || known {
			continue
		}
		tried++
		c, err := s.condition(q, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, value := range c.Values {
			if value != q && !match.OneEdit(q, value) {
				t.Errorf("condition of %q selects by %q, two edits away", q, value)
			}
		}
	}
	if tried < 20 {
		t.Fatalf("only %d lexicon words tried", tried)
	}
}

func isASCIILetters(s string) bool {
	for i := range len(s) {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}
