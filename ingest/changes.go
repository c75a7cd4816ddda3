package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"

	"providerdir/catalog"
	"providerdir/store"
)

// changeChunk bounds the ids per change-set record, keeping records small on every backend.
const changeChunk = 5000

// ChangeSummary counts the difference between the previous and the new generation of one
// collection. A document "changed" when its record differs; provenance stamps such as
// _last_checked move on every ingest and do not count.
type ChangeSummary struct {
	Previous string `json:"previous_generation,omitempty"`
	Added    int64  `json:"added"`
	Changed  int64  `json:"changed"`
	Removed  int64  `json:"removed"`
	// Initial is true when the collection had no previous generation: everything is new and no
	// per-id change records are written (a first load is not a change anyone subscribed to).
	Initial bool `json:"initial,omitempty"`
	Chunks  int  `json:"chunks"`
}

// recordChanges diffs a collection between two generations by walking both in id order at once
// (a merge join: two sequential scans, no per-document lookups) and stores the ids that differ.
// generations, when set, rides on the first record, which is then stored even when no id
// differs.
func recordChanges(ctx context.Context, st store.Store, collection, prevGen, newGen string, generations map[string]catalog.GenerationPair) (ChangeSummary, error) {
	if prevGen == "" {
		n, err := st.Count(ctx, store.Query{Collection: collection, Generation: newGen})
		return ChangeSummary{Added: n, Initial: true}, err
	}
	cw := &changeWriter{st: st, collection: collection, id: newGen,
		cur: catalog.ChangeSet{Generation: newGen, Previous: prevGen, Collection: collection, Generations: generations},
		sum: ChangeSummary{Previous: prevGen}}
	oldIt := newScan(st, collection, prevGen)
	newIt := newScan(st, collection, newGen)
	o, oerr := oldIt.next(ctx)
	n, nerr := newIt.next(ctx)
	for oerr == nil && nerr == nil && (o != nil || n != nil) {
		switch {
		case o == nil || (n != nil && n.ID < o.ID):
			cw.added(n.ID)
			n, nerr = newIt.next(ctx)
		case n == nil || o.ID < n.ID:
			cw.removed(o.ID)
			o, oerr = oldIt.next(ctx)
		default:
			if !sameRecord(o.Body, n.Body) {
				cw.changed(n.ID)
			}
			o, oerr = oldIt.next(ctx)
			n, nerr = newIt.next(ctx)
		}
		if err := cw.flush(ctx, false); err != nil {
			return cw.sum, err
		}
	}
	if oerr != nil {
		return cw.sum, oerr
	}
	if nerr != nil {
		return cw.sum, nerr
	}
	return cw.sum, cw.flush(ctx, true)
}

// changeWriter stores a collection's change set as change records of changeChunk ids at most,
// named after the generation id (the run's own) and the collection.
type changeWriter struct {
	st         store.Store
	collection string
	id         string
	cur        catalog.ChangeSet
	sum        ChangeSummary
}

func (w *changeWriter) added(id string)   { w.cur.Added = append(w.cur.Added, id); w.sum.Added++ }
func (w *changeWriter) changed(id string) { w.cur.Changed = append(w.cur.Changed, id); w.sum.Changed++ }
func (w *changeWriter) removed(id string) { w.cur.Removed = append(w.cur.Removed, id); w.sum.Removed++ }

// flush stores the ids gathered once they fill a chunk, or whatever there is when force is set.
func (w *changeWriter) flush(ctx context.Context, force bool) error {
	n := len(w.cur.Added) + len(w.cur.Changed) + len(w.cur.Removed)
	if (n == 0 && (!force || w.cur.Generations == nil)) || (!force && n < changeChunk) {
		return nil
	}
	body, err := json.Marshal(w.cur)
	if err != nil {
		return err
	}
	id := catalog.ChangeRecordID(w.id, w.collection, w.sum.Chunks)
	if _, err := w.st.PutRecord(ctx, store.Record{Kind: catalog.ChangeKind, ID: id, Body: body}); err != nil {
		return err
	}
	w.sum.Chunks++
	w.cur.Added, w.cur.Changed, w.cur.Removed, w.cur.Generations = nil, nil, nil, nil
	return nil
}

// recordMember is how the record member of a document body is named; a body without it is
// compared whole, without decoding it.
var recordMember = []byte(`"record"`)

// recordOpening opens every body the mapping packages write: stored records and FHIR documents
// alike start with their record member.
var recordOpening = []byte(`{"record":`)

// sameRecord compares the "record" members of two document bodies, ignoring provenance. Bodies
// without a record member are compared whole. A monthly ingest compares every document of the
// snapshot with its predecessor, and every body differs in its provenance, so the record is
// found where the body opens with it without decoding the body; other bodies are decoded.
func sameRecord(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if ra, ok := leadingRecord(a); ok {
		if rb, ok := leadingRecord(b); ok {
			return bytes.Equal(ra, rb)
		}
	}
	if !bytes.Contains(a, recordMember) || !bytes.Contains(b, recordMember) {
		return false // compared whole, as they must be without a record member
	}
	var x, y struct {
		Record json.RawMessage `json:"record"`
	}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil || x.Record == nil || y.Record == nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Record, y.Record)
}

// recordDigest returns the SHA-256 of the record member of a body that opens with it
// (leadingRecord): two such bodies hold the same record, as sameRecord compares them, exactly
// when their digests are equal, barring a collision of SHA-256. ok is false for other bodies.
// A weekly delta keeps the digests of the records it loads, not the records, to compare them
// later with the ones they replace.
func recordDigest(body []byte) (sum [sha256.Size]byte, ok bool) {
	rec, ok := leadingRecord(body)
	if !ok {
		return sum, false
	}
	return sha256.Sum256(rec), true
}

// leadingRecord returns the record member's value of a body that opens with it, as written
// (no space after the colon): the string or object or array that follows, up to its end. ok is
// false for any other body, and for a value that does not end before the body does.
func leadingRecord(body []byte) (value []byte, ok bool) {
	rest, ok := bytes.CutPrefix(body, recordOpening)
	if !ok || len(rest) == 0 || rest[0] != '"' && rest[0] != '{' && rest[0] != '[' {
		return nil, false
	}
	depth, inString := 0, false
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case inString && c == '\\':
			i++ // the escaped character, a quote perhaps
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
		if depth == 0 && !inString {
			// Past the value; a following comma or closing brace is the body's business.
			return rest[:i+1], i+1 < len(rest)
		}
	}
	return nil, false
}

// scan walks every document of a collection in id order, a page at a time.
type scan struct {
	st    store.Store
	q     store.Query
	docs  []store.Document
	done  bool
	index int
}

// newScan scans a collection's bodies: no reader of a scan looks at the documents' keys.
func newScan(st store.Store, collection, gen string) *scan {
	return &scan{st: st, q: store.Query{Collection: collection, Generation: gen, Limit: 2000, BodiesOnly: true}}
}

// next returns the next document, or nil at the end.
func (s *scan) next(ctx context.Context) (*store.Document, error) {
	for s.index >= len(s.docs) {
		if s.done {
			return nil, nil
		}
		page, err := s.st.Find(ctx, s.q)
		if err != nil {
			return nil, err
		}
		s.docs, s.index = page.Docs, 0
		s.q.After = page.Next
		s.done = page.Next == ""
	}
	d := &s.docs[s.index]
	s.index++
	return d, nil
}
