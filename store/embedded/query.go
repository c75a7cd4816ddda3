package embedded

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"

	"providerdir/store"
)

// How a query is answered.
//
// Every search key is an index entry i\0<gen>\0<coll>\0<param>\0<value>\0<id>, so:
//
//   - one Exact value of a param is a posting list in id order;
//   - a Prefix value is a key range in (value, id) order, so its ids are not in id order;
//   - a param's whole index, restricted to order entries (the smallest value of each
//     document), is the collection in OrderBy order.
//
// Without OrderBy, when every condition is a single-valued Exact one, the posting lists are
// intersected directly by leapfrogging (each seek skips to the largest id another list is at),
// in id order from the cursor, reading only as far as the page needs and loading no document
// that fails a condition.
//
// Otherwise a query first probes its conditions: it reads their index ranges side by side, a
// chunk at a time, until one range is exhausted or every one has yielded probeCap entries. The
// first range to run out belongs to the most selective condition (to within a chunk), at a cost
// of at most (number of conditions) times its size. Then:
//
//   - Found a small condition: its ids (sorted, distinct) are the candidates. Each is verified
//     against the other conditions on the loaded document; with OrderBy, candidates are sorted
//     by their order value in memory (there are at most probeCap of them).
//   - No small condition, no OrderBy: if there are single-valued Exact conditions, their
//     posting lists are leapfrogged and the rest verified on the documents; otherwise the
//     probe runs on to the end and the smallest condition's ids are the candidates (memory
//     proportional to that condition's matches).
//   - No small condition, with OrderBy: walk the OrderBy param's index from the cursor,
//     skipping entries that are not order entries, checking single-valued Exact conditions by
//     point lookups of their index entries before loading a document.
//   - No conditions: walk the documents by id, or the OrderBy index.
//
// Reads of one Find or Count go through one Pebble snapshot, so a page is consistent even
// while writers replace documents. Paging is by position: a cursor holds the last document's
// order value and id, and the next page starts strictly after it, so writes between pages
// never make a page skip or repeat a document that was there all along.

// probeStep is how many index entries the probe reads from each condition per round.
const probeStep = 256

// reader is what queries read through: the database or a snapshot of it.
type reader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

// cond is a condition prepared for the index.
type cond struct {
	param  string
	match  store.Match
	values []string // distinct and sorted; for Prefix, none is covered by another
}

// single reports whether the condition is one posting list (in id order).
func (c cond) single() bool { return c.match == store.Exact && len(c.values) == 1 }

func prepare(where []store.Condition) []cond {
	out := make([]cond, 0, len(where))
	for _, w := range where {
		vals := slices.Clone(w.Values)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		if w.Match == store.Prefix {
			// In sorted order every value covered by a shorter prefix follows that prefix.
			kept := vals[:1]
			for _, v := range vals[1:] {
				if !strings.HasPrefix(v, kept[len(kept)-1]) {
					kept = append(kept, v)
				}
			}
			vals = kept
		}
		out = append(out, cond{param: w.Param, match: w.Match, values: vals})
	}
	return out
}

// window restricts candidates to ids after (or, descending, before) a cursor id.
type window struct {
	after string
	desc  bool
	set   bool
}

func (w window) admits(id []byte) bool {
	if !w.set {
		return true
	}
	c := bytes.Compare(id, []byte(w.after))
	return w.desc && c < 0 || !w.desc && c > 0
}

// span is a key range [lo, hi) of index entries that all satisfy a condition.
type span struct{ lo, hi []byte }

// query is one Find or Count over one collection of one generation.
type query struct {
	ctx   context.Context
	r     reader
	gen   string
	coll  string
	where []store.Condition
	conds []cond
	cap   int
	steps int
}

// tick checks for cancellation every so often in long loops.
func (q *query) tick() error {
	q.steps++
	if q.steps%1024 == 0 {
		return q.ctx.Err()
	}
	return nil
}

func (q *query) iter(lo, hi []byte) (*pebble.Iterator, error) {
	it, err := q.r.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	return it, nil
}

// spans returns the index ranges of a condition. Exact values' posting lists are in id order,
// so they start (or end) at the window's cursor; Prefix ranges cannot.
func (q *query) spans(c cond, w window) []span {
	pp := paramPrefix(q.gen, q.coll, c.param)
	out := make([]span, 0, len(c.values))
	for _, v := range c.values {
		base := append(slices.Clip(pp), v...)
		if c.match == store.Prefix {
			out = append(out, span{base, prefixEnd(base)})
			continue
		}
		list := append(base, 0)
		sp := span{list, prefixEnd(list)}
		switch {
		case w.set && w.desc:
			sp.hi = append(slices.Clip(list), w.after...)
		case w.set:
			sp.lo = successor(append(slices.Clip(list), w.after...))
		}
		out = append(out, sp)
	}
	return out
}

// scanner yields the ids of a condition's index spans, one span after the other.
type scanner struct {
	it      *pebble.Iterator
	spans   []span
	next    int
	started bool
	read    int // entries read
}

func (sc *scanner) id() ([]byte, bool) {
	for {
		var valid bool
		if sc.started {
			valid = sc.it.Next()
		} else {
			if sc.next >= len(sc.spans) {
				return nil, false
			}
			sp := sc.spans[sc.next]
			sc.next++
			sc.it.SetBounds(sp.lo, sp.hi)
			valid = sc.it.First()
			sc.started = true
		}
		if !valid {
			if sc.it.Error() != nil {
				return nil, false
			}
			sc.started = false
			continue
		}
		sc.read++
		_, id, ok := splitEntry(sc.it.Key())
		if !ok {
			continue
		}
		return id, true
	}
}

// probe reads the conditions' spans side by side until one is exhausted (and returns its
// index and its distinct ids within the window, sorted) or each has yielded limit entries
// (and returns -1).
func (q *query) probe(w window, limit int) (int, []string, error) {
	scanners := make([]*scanner, len(q.conds))
	defer func() {
		for _, sc := range scanners {
			if sc != nil {
				_ = sc.it.Close()
			}
		}
	}()
	for j, c := range q.conds {
		it, err := q.iter(nil, nil)
		if err != nil {
			return -1, nil, err
		}
		scanners[j] = &scanner{it: it, spans: q.spans(c, w)}
	}
	collected := make([][]string, len(q.conds))
	stepSize := min(probeStep, limit)
	for {
		full := true
		for j, sc := range scanners {
			for range stepSize {
				id, ok := sc.id()
				if !ok {
					if err := sc.it.Error(); err != nil {
						return -1, nil, fmt.Errorf("embedded: %w", err)
					}
					ids := collected[j]
					slices.Sort(ids)
					return j, slices.Compact(ids), nil
				}
				if w.admits(id) {
					collected[j] = append(collected[j], string(id))
				}
			}
			if sc.read < limit {
				full = false
			}
		}
		if full {
			return -1, nil, nil
		}
		if err := q.ctx.Err(); err != nil {
			return -1, nil, err
		}
	}
}

// singles returns the single-valued Exact conditions.
func (q *query) singles() []cond {
	var out []cond
	for _, c := range q.conds {
		if c.single() {
			out = append(out, c)
		}
	}
	return out
}

// leapfrog streams the ids on every posting list of conds (all single-valued Exact), in id
// order (descending if w.desc) from the window's cursor, until fn returns false.
func (q *query) leapfrog(conds []cond, w window, fn func(id string) (bool, error)) error {
	type list struct {
		it   *pebble.Iterator
		base []byte // posting list prefix: ...\0<param>\0<value>\0
	}
	lists := make([]list, len(conds))
	defer func() {
		for _, l := range lists {
			if l.it != nil {
				_ = l.it.Close()
			}
		}
	}()
	for j, c := range conds {
		sp := q.spans(c, window{})[0]
		it, err := q.iter(sp.lo, sp.hi)
		if err != nil {
			return err
		}
		lists[j] = list{it, sp.lo}
	}
	idOf := func(l list) []byte { return l.it.Key()[len(l.base):] }
	for _, l := range lists {
		var valid bool
		switch {
		case w.set && w.desc:
			valid = l.it.SeekLT(append(slices.Clip(l.base), w.after...))
		case w.set:
			valid = l.it.SeekGE(successor(append(slices.Clip(l.base), w.after...)))
		case w.desc:
			valid = l.it.Last()
		default:
			valid = l.it.First()
		}
		if !valid {
			return l.it.Error()
		}
	}
	for {
		if err := q.tick(); err != nil {
			return err
		}
		// The target is the furthest id any list is at; every list must reach it.
		target := idOf(lists[0])
		for _, l := range lists[1:] {
			c := bytes.Compare(idOf(l), target)
			if w.desc && c < 0 || !w.desc && c > 0 {
				target = idOf(l)
			}
		}
		target = bytes.Clone(target)
		agree := true
		for _, l := range lists {
			if bytes.Equal(idOf(l), target) {
				continue
			}
			agree = false
			var valid bool
			if w.desc {
				valid = l.it.SeekLT(successor(append(slices.Clip(l.base), target...)))
			} else {
				valid = l.it.SeekGE(append(slices.Clip(l.base), target...))
			}
			if !valid {
				return l.it.Error()
			}
		}
		if !agree {
			continue
		}
		more, err := fn(string(target))
		if err != nil || !more {
			return err
		}
		var valid bool
		if w.desc {
			valid = lists[0].it.Prev()
		} else {
			valid = lists[0].it.Next()
		}
		if !valid {
			return lists[0].it.Error()
		}
	}
}

// walkOrder walks the order entries of param in (value, id) order (reversed if desc),
// starting strictly after cur, until fn returns false.
func (q *query) walkOrder(param string, cur *store.Cursor, desc bool, fn func(value, id string) (bool, error)) error {
	pp := paramPrefix(q.gen, q.coll, param)
	it, err := q.iter(pp, prefixEnd(pp))
	if err != nil {
		return err
	}
	defer it.Close()
	var valid bool
	switch {
	case cur != nil && desc:
		valid = it.SeekLT(appendKeyParts(pp, cur.Value, cur.ID))
	case cur != nil:
		valid = it.SeekGE(successor(appendKeyParts(pp, cur.Value, cur.ID)))
	case desc:
		valid = it.Last()
	default:
		valid = it.First()
	}
	for ; valid; valid = step(it, desc) {
		if err := q.tick(); err != nil {
			return err
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return fmt.Errorf("embedded: %w", err)
		}
		if len(v) != 1 || v[0] != entryOrder[0] {
			continue
		}
		value, id, ok := splitEntry(it.Key()[len(pp):])
		if !ok {
			return fmt.Errorf("%w: index key %q", errCorrupt, it.Key())
		}
		more, err := fn(string(value), string(id))
		if err != nil || !more {
			return err
		}
	}
	return it.Error()
}

func appendKeyParts(prefix []byte, value, id string) []byte {
	k := append(slices.Clip(prefix), value...)
	k = append(k, 0)
	return append(k, id...)
}

func step(it *pebble.Iterator, desc bool) bool {
	if desc {
		return it.Prev()
	}
	return it.Next()
}

// walkDocs walks the collection's documents in id order (reversed if desc) from the window's
// cursor, until fn returns false.
func (q *query) walkDocs(w window, fn func(store.Document) (bool, error)) error {
	dp := docPrefix(q.gen, q.coll)
	it, err := q.iter(dp, prefixEnd(dp))
	if err != nil {
		return err
	}
	defer it.Close()
	var valid bool
	switch {
	case w.set && w.desc:
		valid = it.SeekLT(append(slices.Clip(dp), w.after...))
	case w.set:
		valid = it.SeekGE(successor(append(slices.Clip(dp), w.after...)))
	case w.desc:
		valid = it.Last()
	default:
		valid = it.First()
	}
	for ; valid; valid = step(it, w.desc) {
		if err := q.tick(); err != nil {
			return err
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return fmt.Errorf("embedded: %w", err)
		}
		d, err := decodeDoc(string(it.Key()[len(dp):]), v)
		if err != nil {
			return err
		}
		if more, err := fn(d); err != nil || !more {
			return err
		}
	}
	return it.Error()
}

// hasEntry reports whether document id has the key (param, value), by a point lookup.
func (q *query) hasEntry(param, value, id string) (bool, error) {
	_, closer, err := q.r.Get(indexKey(q.gen, q.coll, param, value, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("embedded: %w", err)
	}
	_ = closer.Close()
	return true, nil
}

// matching loads a candidate document and reports whether it satisfies every condition.
func (q *query) matching(id string) (store.Document, bool, error) {
	if err := q.tick(); err != nil {
		return store.Document{}, false, err
	}
	d, found, err := loadDoc(q.r, q.gen, q.coll, id)
	if err != nil || !found {
		return store.Document{}, false, err
	}
	return d, store.Matches(d.Keys, q.where), nil
}

// hit is a document on its way to a page, with the value it is ordered by.
type hit struct {
	doc   store.Document
	value string
}

func (s *Store) newQuery(ctx context.Context, r reader, sq store.Query) *query {
	return &query{
		ctx: ctx, r: r, gen: sq.Generation, coll: sq.Collection,
		where: sq.Where, conds: prepare(sq.Where), cap: s.cfg.probeCap,
	}
}

func (s *Store) Find(ctx context.Context, sq store.Query) (store.Page, error) {
	limit, err := store.ValidateQuery(sq)
	if err != nil {
		return store.Page{}, err
	}
	var cur *store.Cursor
	if sq.After != "" {
		c, err := store.DecodeCursor(sq.After)
		if err != nil {
			return store.Page{}, err
		}
		cur = &c
	}
	if err := s.enter(ctx); err != nil {
		return store.Page{}, err
	}
	defer s.leave()
	snap := s.db.NewSnapshot()
	defer snap.Close()
	q := s.newQuery(ctx, snap, sq)

	// Collect one document more than the page holds: it says whether there is a next page.
	var hits []hit
	add := func(d store.Document, value string) bool {
		hits = append(hits, hit{d, value})
		return len(hits) <= limit
	}
	if sq.OrderBy == "" {
		w := window{desc: sq.Descending}
		if cur != nil {
			w.after, w.set = cur.ID, true
		}
		err = q.findByID(w, add)
	} else {
		err = q.findOrdered(sq.OrderBy, cur, sq.Descending, add)
	}
	if err != nil {
		return store.Page{}, err
	}
	var page store.Page
	if len(hits) > limit {
		hits = hits[:limit]
		last := hits[limit-1]
		page.Next = store.Cursor{Value: last.value, ID: last.doc.ID}.Encode()
	}
	page.Docs = make([]store.Document, len(hits))
	for i, h := range hits {
		page.Docs[i] = h.doc
	}
	return page, nil
}

// findByID finds documents in id order.
func (q *query) findByID(w window, add func(store.Document, string) bool) error {
	if len(q.conds) == 0 {
		return q.walkDocs(w, func(d store.Document) (bool, error) { return add(d, ""), nil })
	}
	visit := func(id string) (bool, error) {
		d, ok, err := q.matching(id)
		if err != nil || !ok {
			return err == nil, err
		}
		return add(d, ""), nil
	}
	singles := q.singles()
	if len(singles) == len(q.conds) {
		// Only posting lists: intersecting them from the cursor reads no more than the page
		// needs, whatever their sizes.
		return q.leapfrog(singles, w, visit)
	}
	driver, ids, err := q.probe(w, q.cap)
	if err != nil {
		return err
	}
	if driver < 0 {
		if len(singles) > 0 {
			return q.leapfrog(singles, w, visit)
		}
		if _, ids, err = q.probe(w, math.MaxInt); err != nil {
			return err
		}
	}
	if w.desc {
		slices.Reverse(ids)
	}
	for _, id := range ids {
		if more, err := visit(id); err != nil || !more {
			return err
		}
	}
	return nil
}

// findOrdered finds documents in order of their smallest value of param.
func (q *query) findOrdered(param string, cur *store.Cursor, desc bool, add func(store.Document, string) bool) error {
	if len(q.conds) > 0 {
		driver, ids, err := q.probe(window{}, q.cap)
		if err != nil {
			return err
		}
		if driver >= 0 {
			return q.sortCandidates(ids, param, cur, desc, add)
		}
	}
	singles := q.singles()
	return q.walkOrder(param, cur, desc, func(value, id string) (bool, error) {
		for _, c := range singles {
			if ok, err := q.hasEntry(c.param, c.values[0], id); err != nil || !ok {
				return err == nil, err
			}
		}
		d, ok, err := q.matching(id)
		if err != nil || !ok {
			return err == nil, err
		}
		return add(d, value), nil
	})
}

// sortCandidates orders a small candidate set by (order value, id) in memory and adds the
// documents after the cursor.
func (q *query) sortCandidates(ids []string, param string, cur *store.Cursor, desc bool, add func(store.Document, string) bool) error {
	var hits []hit
	for _, id := range ids {
		d, ok, err := q.matching(id)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if v, has := store.SmallestValue(d.Keys, param); has {
			hits = append(hits, hit{d, v})
		}
	}
	order := func(a, b hit) int {
		return cmp.Or(strings.Compare(a.value, b.value), strings.Compare(a.doc.ID, b.doc.ID))
	}
	slices.SortFunc(hits, order)
	if desc {
		slices.Reverse(hits)
	}
	for _, h := range hits {
		if cur != nil {
			c := order(h, hit{doc: store.Document{ID: cur.ID}, value: cur.Value})
			if desc && c >= 0 || !desc && c <= 0 {
				continue
			}
		}
		if !add(h.doc, h.value) {
			return nil
		}
	}
	return nil
}

// Count counts exactly, by the same plans as Find without building pages. A collection's
// document count is kept up to date by Put, so counting everything is one read.
func (s *Store) Count(ctx context.Context, sq store.Query) (int64, error) {
	sq.After, sq.Limit = "", 0 // ignored by contract
	if _, err := store.ValidateQuery(sq); err != nil {
		return 0, err
	}
	if err := s.enter(ctx); err != nil {
		return 0, err
	}
	defer s.leave()
	snap := s.db.NewSnapshot()
	defer snap.Close()
	q := s.newQuery(ctx, snap, sq)

	var n int64
	if len(q.conds) == 0 {
		if sq.OrderBy == "" {
			return s.readCount(snap, sq.Generation, sq.Collection)
		}
		err := q.walkOrder(sq.OrderBy, nil, false, func(string, string) (bool, error) {
			n++
			return true, nil
		})
		return n, err
	}

	// verify checks a candidate against the conditions not already guaranteed (skip), by
	// index lookups where it can and by the document only where it must.
	verify := func(id string, skip func(int) bool) (bool, error) {
		needDoc := sq.OrderBy != ""
		for j, c := range q.conds {
			if skip(j) {
				continue
			}
			if !c.single() {
				needDoc = true
				continue
			}
			if ok, err := q.hasEntry(c.param, c.values[0], id); err != nil || !ok {
				return false, err
			}
		}
		if !needDoc {
			return true, q.tick()
		}
		d, ok, err := q.matching(id)
		if err != nil || !ok {
			return false, err
		}
		if sq.OrderBy != "" {
			_, ok = store.SmallestValue(d.Keys, sq.OrderBy)
		}
		return ok, nil
	}
	count := func(id string, skip func(int) bool) (bool, error) {
		ok, err := verify(id, skip)
		if ok {
			n++
		}
		return err == nil, err
	}

	singles := q.singles()
	leapfrog := func() (int64, error) {
		isSingle := func(j int) bool { return q.conds[j].single() }
		err := q.leapfrog(singles, window{}, func(id string) (bool, error) { return count(id, isSingle) })
		return n, err
	}
	if len(singles) == len(q.conds) && sq.OrderBy == "" {
		return leapfrog() // counted from the index alone
	}
	driver, ids, err := q.probe(window{}, q.cap)
	if err != nil {
		return 0, err
	}
	if driver < 0 {
		if len(singles) > 0 {
			return leapfrog()
		}
		if driver, ids, err = q.probe(window{}, math.MaxInt); err != nil {
			return 0, err
		}
	}
	isDriver := func(j int) bool { return j == driver }
	for _, id := range ids {
		if _, err := count(id, isDriver); err != nil {
			return 0, err
		}
	}
	return n, nil
}
