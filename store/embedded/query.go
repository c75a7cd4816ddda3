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
// Otherwise a query probes its conditions: it reads their index ranges side by side, a chunk at
// a time, until one range is exhausted or every one has yielded probeCap entries. Of the ranges
// that run out in the same round, the shortest belongs to the most selective condition, found
// at a cost of at most (number of conditions) times its size. Then:
//
//   - Found a small condition: its ids (sorted, distinct) are the candidates. Each is verified
//     against the other conditions (not the one it came from) on the loaded document; with
//     OrderBy, candidates are sorted by their order value in memory (there are at most
//     probeCap of them).
//   - No small condition, no OrderBy, some single-valued Exact conditions: their posting lists
//     are leapfrogged and the rest verified on the documents.
//   - No small condition, with OrderBy: walk the OrderBy param's index from the cursor,
//     skipping entries that are not order entries, checking single-valued Exact conditions by
//     point lookups of their index entries before loading a document.
//   - No conditions: walk the documents by id, or the OrderBy index.
//
// Without OrderBy and without a single-valued Exact condition (a FHIR name prefix, say), the
// ids of a large condition come out of the index in value order and would all have to be
// gathered and sorted before the first page. Such a query races two plans instead, a chunk of
// each in turn (race): the probe, and a scan of the documents in id order from the cursor that
// checks each document's encoded keys in place. The probe wins when it exhausts a condition,
// which is then the small condition above, less the ids the scan has passed; the scan wins when
// it has filled the page or reached the end of the collection. Rounds of the two cost about the
// same, so a page costs at most about twice the cheaper plan: a short scan when matches are
// dense, a short probe when they are few, and a page of a broad condition does not cost in
// proportion to its matches. The probe's first round is longer (about a thousand entries), so
// that a condition that small, which the probe alone answers in about the time a scan takes to
// fill a page of dense matches, costs no scan at all.
//
// Count probes the same way, but a count without a small condition or a posting list to
// leapfrog runs the probe to the end: it must see every match anyway.
//
// Reads of one Find or Count go through one view of the database (iterators cloned from one),
// so a page is consistent even while writers replace documents. Paging is by position: a
// cursor holds the last document's order value and id, and the next page starts strictly after
// it, so writes between pages never make a page skip or repeat a document that was there all
// along.

// probeStep is how many index entries the probe reads from each condition per round.
const probeStep = 256

// scanKeys is how many document keys a race's scan checks per round of the probe. On FHIR
// Practitioners (32 keys each) checking a key costs about an eighth of reading an index entry,
// so a round of each takes about the same time; on documents of 3 keys, where a key costs about
// a third of an entry, a round of the scan costs two or three of the probe.
const scanKeys = 2048

// reader is what reads go through: the database, or one query's view of it.
type reader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

// view is one query's consistent read of the database. Its iterators are clones of one root
// iterator and see the database as it was when the root was made, as a Pebble snapshot's would;
// but releasing a snapshot has Pebble look for compactions to schedule, under the lock of the
// whole database, a cost every search would pay.
type view struct {
	root  *pebble.Iterator
	point *pebble.Iterator // for Get, cloned on first use
}

func newView(db *pebble.DB) (*view, error) {
	root, err := db.NewIter(nil)
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	return &view{root: root}, nil
}

func (v *view) NewIter(o *pebble.IterOptions) (*pebble.Iterator, error) {
	return v.root.Clone(pebble.CloneOptions{IterOptions: o})
}

// Get reads one key with a prefix seek, which consults the tables' Bloom filters as a point read
// does (a key's prefix is the whole key under the default comparer). The value stays valid until
// the next Get, not until the closer is closed: every query uses a value before reading another.
func (v *view) Get(key []byte) ([]byte, io.Closer, error) {
	if v.point == nil {
		it, err := v.root.Clone(pebble.CloneOptions{})
		if err != nil {
			return nil, nil, err
		}
		v.point = it
	}
	if !v.point.SeekPrefixGE(key) || !bytes.Equal(v.point.Key(), key) {
		if err := v.point.Error(); err != nil {
			return nil, nil, err
		}
		return nil, nil, pebble.ErrNotFound
	}
	val, err := v.point.ValueAndErr()
	if err != nil {
		return nil, nil, err
	}
	return val, noClose, nil
}

var noClose = io.NopCloser(nil)

func (v *view) close() {
	if v.point != nil {
		_ = v.point.Close()
	}
	_ = v.root.Close()
}

// cond is a condition prepared for the index: its params (one, or several for a condition
// with alternatives), each with the values it is searched for.
type cond struct {
	match store.Match
	terms []term
}

// term is one param of a condition and its values, distinct and sorted; for Prefix, none is
// covered by another.
type term struct {
	param  string
	values []string
}

// single reports whether the condition is one posting list (in id order).
func (c cond) single() bool {
	return c.match == store.Exact && len(c.terms) == 1 && len(c.terms[0].values) == 1
}

func prepare(where []store.Condition) []cond {
	out := make([]cond, 0, len(where))
	for _, w := range where {
		c := cond{match: w.Match}
		for _, t := range w.Terms() {
			c.terms = append(c.terms, term{param: t.Param, values: prepareValues(t.Values, w.Match)})
		}
		out = append(out, c)
	}
	return out
}

func prepareValues(values []string, m store.Match) []string {
	vals := slices.Clone(values)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	if m == store.Prefix {
		// In sorted order every value covered by a shorter prefix follows that prefix.
		kept := vals[:1]
		for _, v := range vals[1:] {
			if !strings.HasPrefix(v, kept[len(kept)-1]) {
				kept = append(kept, v)
			}
		}
		vals = kept
	}
	return vals
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
	// keys are the keys the query's documents are returned with (store.Query.BodiesOnly and
	// KeysOf).
	keys keySet
	// arena takes the bodies of the documents the query returns (store.Query.Arena).
	arena *store.Arena
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
	var out []span
	for _, t := range c.terms {
		pp := paramPrefix(q.gen, q.coll, t.param)
		for _, v := range t.values {
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

// prober reads the conditions' spans side by side, a chunk of entries from each in turn, and
// keeps its place between calls, so a plan can probe, do other work, and probe on.
type prober struct {
	q         *query
	w         window
	scanners  []*scanner
	collected [][]string // per condition, the ids read within the window
}

func (q *query) newProber(w window) (*prober, error) {
	p := &prober{q: q, w: w, scanners: make([]*scanner, 0, len(q.conds)), collected: make([][]string, len(q.conds))}
	for _, c := range q.conds {
		it, err := q.iter(nil, nil)
		if err != nil {
			p.close()
			return nil, err
		}
		p.scanners = append(p.scanners, &scanner{it: it, spans: q.spans(c, w)})
	}
	return p, nil
}

func (p *prober) close() {
	for _, sc := range p.scanners {
		_ = sc.it.Close()
	}
}

// advance reads up to n entries from each condition in turn. When some run out, it returns the
// one that read the fewest entries (the smallest: every one read as many in earlier rounds) with
// its distinct ids within the window, sorted; otherwise -1. The first condition to run out need
// not be the smallest, as it reads its whole chunk before the next starts: those after it read
// only as far as it did, to see whether one of them is smaller. The smallest drives the plan, and
// every id it yields is a document to load.
func (p *prober) advance(n int) (int, []string, error) {
	driver, limit := -1, n
	for j, sc := range p.scanners {
		for read := 0; read < limit; read++ {
			id, ok := sc.id()
			if !ok {
				if err := sc.it.Error(); err != nil {
					return -1, nil, fmt.Errorf("embedded: %w", err)
				}
				driver, limit = j, read
				break
			}
			if p.w.admits(id) {
				p.collected[j] = append(p.collected[j], string(id))
			}
		}
	}
	if driver < 0 {
		return -1, nil, nil
	}
	ids := p.collected[driver]
	slices.Sort(ids)
	return driver, slices.Compact(ids), nil
}

// run advances until one condition runs out (its index and ids, as advance) or each has yielded
// limit entries (-1).
func (p *prober) run(limit int) (int, []string, error) {
	step := min(probeStep, limit)
	for {
		driver, ids, err := p.advance(step)
		if err != nil || driver >= 0 {
			return driver, ids, err
		}
		if !slices.ContainsFunc(p.scanners, func(sc *scanner) bool { return sc.read < limit }) {
			return -1, nil, nil
		}
		if err := p.q.ctx.Err(); err != nil {
			return -1, nil, err
		}
	}
}

// probe runs a new prober to limit entries per condition and returns the index of the condition
// that ran out (-1 if none did) and its candidates.
func (q *query) probe(w window, limit int) (int, candidates, error) {
	p, err := q.newProber(w)
	if err != nil {
		return -1, candidates{}, err
	}
	defer p.close()
	driver, ids, err := p.run(limit)
	if err != nil || driver < 0 {
		return driver, candidates{}, err
	}
	c, err := p.candidates(driver, ids)
	return driver, c, err
}

// candidates are the ids of the condition that drives a plan, and the query's conditions they
// still need checking against on their documents.
type candidates struct {
	ids    []string
	verify []store.Condition
}

// narrowFactor bounds how far candidates reads the other conditions on: up to this many index
// entries per candidate, which cost about what loading one document from the block cache does
// (an entry is a step of an iterator, a document a point read), and far less than loading it
// from disk.
const narrowFactor = 32

// candidates narrows the ids of the driver by the other conditions' index entries: each is read
// on, up to narrowFactor entries per id (at most the probe's cap), and one that runs out keeps
// only the ids it yielded too and needs no check on the documents. The conditions that did not
// run out check the ids left on their posting lists (onIndex). A candidate that fails such a
// condition is dropped without loading its document.
func (p *prober) candidates(driver int, ids []string) (candidates, error) {
	limit := min(narrowFactor*len(ids), p.q.cap)
	var verify []int
	for j, sc := range p.scanners {
		if j == driver {
			continue
		}
		ran := false
		for range limit {
			id, ok := sc.id()
			if !ok {
				if err := sc.it.Error(); err != nil {
					return candidates{}, fmt.Errorf("embedded: %w", err)
				}
				ran = true
				break
			}
			if p.w.admits(id) {
				p.collected[j] = append(p.collected[j], string(id))
			}
		}
		if !ran {
			verify = append(verify, j)
			continue
		}
		yielded := make(map[string]bool, len(p.collected[j]))
		for _, id := range p.collected[j] {
			yielded[id] = true
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return !yielded[id] })
	}
	ids, verify, err := p.q.onIndex(ids, verify)
	if err != nil {
		return candidates{}, err
	}
	return candidates{ids: ids, verify: p.q.conditions(verify)}, nil
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

// docScan walks the collection's documents in id order (reversed if desc) from a window's
// cursor a chunk at a time, checking each against the query's conditions on its encoded keys
// (matchStored); only a match is decoded.
type docScan struct {
	q    *query
	it   *pebble.Iterator
	dp   []byte
	w    window
	held []bool // matchStored's scratch
	last []byte // id of the last document checked
	more bool   // the iterator is on a document not yet checked
}

func (q *query) newDocScan(w window) (*docScan, error) {
	dp := docPrefix(q.gen, q.coll)
	it, err := q.iter(dp, prefixEnd(dp))
	if err != nil {
		return nil, err
	}
	ds := &docScan{q: q, it: it, dp: dp, w: w, held: make([]bool, len(q.conds))}
	switch {
	case w.set && w.desc:
		ds.more = it.SeekLT(append(slices.Clip(dp), w.after...))
	case w.set:
		ds.more = it.SeekGE(successor(append(slices.Clip(dp), w.after...)))
	case w.desc:
		ds.more = it.Last()
	default:
		ds.more = it.First()
	}
	return ds, nil
}

func (ds *docScan) close() { _ = ds.it.Close() }

// scan checks documents until it has passed budget keys, adding those that match, and reports
// whether it is done: the collection ended or add asked for no more.
func (ds *docScan) scan(budget int, add func(store.Document, string) bool) (bool, error) {
	for budget > 0 && ds.more {
		if err := ds.q.tick(); err != nil {
			return false, err
		}
		id := ds.it.Key()[len(ds.dp):]
		v, err := ds.it.ValueAndErr()
		if err != nil {
			return false, fmt.Errorf("embedded: %w", err)
		}
		ok, keys, err := matchStored(v, ds.q.conds, ds.held)
		if err != nil {
			return false, fmt.Errorf("%w: document %q", err, id)
		}
		budget -= max(keys, 1)
		ds.last = append(ds.last[:0], id...)
		if ok {
			d, err := ds.q.keys.decode(ds.q.arena, string(id), v)
			if err != nil {
				return false, err
			}
			if !add(d, "") {
				return true, nil
			}
		}
		ds.more = step(ds.it, ds.w.desc)
	}
	if err := ds.it.Error(); err != nil {
		return false, fmt.Errorf("embedded: %w", err)
	}
	return !ds.more, nil
}

// rest is the part of the window the scan has not reached: ids after the last one checked.
func (ds *docScan) rest() window {
	if ds.last == nil {
		return ds.w
	}
	return window{after: string(ds.last), desc: ds.w.desc, set: true}
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

// matching loads a candidate document and reports whether it satisfies the conditions of
// verify: those of the query, less any the candidate is known to satisfy (a candidate read off a
// condition's index entries satisfies that one, and checking it again would compare each of the
// document's keys with each of its values). The document comes with the keys of keys, or with
// all of them when there is something to verify (Find narrows them to the query's afterwards).
func (q *query) matching(id string, verify []store.Condition, keys keySet) (store.Document, bool, error) {
	if err := q.tick(); err != nil {
		return store.Document{}, false, err
	}
	if len(verify) > 0 {
		keys = allKeys
	}
	d, found, err := loadWith(q.r, q.gen, q.coll, id, q.arena, keys)
	if err != nil || !found {
		return store.Document{}, false, err
	}
	return d, store.Matches(d.Keys, verify), nil
}

// hit is a document on its way to a page, with the value it is ordered by.
type hit struct {
	doc   store.Document
	value string
}

func (s *Store) newQuery(ctx context.Context, r reader, sq store.Query) *query {
	return &query{
		ctx: ctx, r: r, gen: sq.Generation, coll: sq.Collection,
		where: sq.Where, conds: prepare(sq.Where), cap: s.cfg.probeCap, keys: keysFor(sq), arena: sq.Arena,
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
	v, err := newView(s.db)
	if err != nil {
		return store.Page{}, err
	}
	defer v.close()
	q := s.newQuery(ctx, v, sq)

	// Collect one document more than the page holds: it says whether there is a next page.
	docs := make([]store.Document, 0, min(limit+1, 128))
	var lastValue string // the order value of the page's last document, for its cursor
	add := func(d store.Document, value string) bool {
		if len(docs) < limit {
			lastValue = value
		}
		// The plans that match on decoded keys, or order by one, read more of them.
		d.Keys = store.SelectKeys(d.Keys, sq)
		docs = append(docs, d)
		return len(docs) <= limit
	}
	if sq.OrderBy == "" {
		w := window{desc: sq.Descending}
		if cur != nil {
			w.after, w.set = cur.ID, true
		}
		err = q.findByID(w, add, func() bool { return len(docs) >= limit })
	} else {
		err = q.findOrdered(sq.OrderBy, cur, sq.Descending, add)
	}
	if err != nil {
		return store.Page{}, err
	}
	page := store.Page{Docs: docs}
	if len(docs) > limit {
		page.Docs = docs[:limit]
		page.Next = store.Cursor{Value: lastValue, ID: docs[limit-1].ID}.Encode()
	}
	return page, nil
}

// findByID finds documents in id order. full reports whether the page holds all its documents:
// a match after that only says that a next page exists, and when the index alone has shown it
// to match, its document is not loaded.
func (q *query) findByID(w window, add func(store.Document, string) bool, full func() bool) error {
	if len(q.conds) == 0 {
		ds, err := q.newDocScan(w)
		if err != nil {
			return err
		}
		defer ds.close()
		_, err = ds.scan(math.MaxInt, add)
		return err
	}
	visit := func(id string, verify []store.Condition) (bool, error) {
		if len(verify) == 0 && full() {
			return add(store.Document{ID: id}, ""), nil
		}
		d, ok, err := q.matching(id, verify, q.keys)
		if err != nil || !ok {
			return err == nil, err
		}
		return add(d, ""), nil
	}
	visitAll := func(id string) (bool, error) { return visit(id, q.where) }
	singles := q.singles()
	if len(singles) == len(q.conds) {
		// Only posting lists: intersecting them from the cursor reads no more than the page
		// needs, whatever their sizes. An id on every list satisfies every condition.
		return q.leapfrog(singles, w, func(id string) (bool, error) { return visit(id, nil) })
	}
	var c candidates
	if len(singles) == 0 {
		found, done, err := q.race(w, add)
		if err != nil || done {
			return err
		}
		c = found
	} else {
		driver, small, err := q.probe(w, q.cap)
		if err != nil {
			return err
		}
		if driver < 0 {
			return q.leapfrog(singles, w, visitAll)
		}
		c = small
	}
	if w.desc {
		slices.Reverse(c.ids)
	}
	for _, id := range c.ids {
		if more, err := visit(id, c.verify); err != nil || !more {
			return err
		}
	}
	return nil
}

// race runs the probe against a scan of the documents from the cursor (see the planning
// comment above), a chunk of each in turn. It ends when the probe exhausts a condition, whose
// candidates beyond the part of the window the scan has covered it returns to be visited, or
// when the scan is done (the page is full or the collection has ended).
func (q *query) race(w window, add func(store.Document, string) bool) (candidates, bool, error) {
	p, err := q.newProber(w)
	if err != nil {
		return candidates{}, false, err
	}
	defer p.close()
	ds, err := q.newDocScan(w)
	if err != nil {
		return candidates{}, false, err
	}
	defer ds.close()
	for step := 4 * probeStep; ; step = probeStep {
		driver, ids, err := p.advance(step)
		if err != nil {
			return candidates{}, false, err
		}
		if driver >= 0 {
			rest := ds.rest()
			c, err := p.candidates(driver, slices.DeleteFunc(ids, func(id string) bool { return !rest.admits([]byte(id)) }))
			return c, false, err
		}
		if done, err := ds.scan(scanKeys, add); err != nil || done {
			return candidates{}, done, err
		}
		if err := q.ctx.Err(); err != nil {
			return candidates{}, false, err
		}
	}
}

// findOrdered finds documents in order of their smallest value of param.
func (q *query) findOrdered(param string, cur *store.Cursor, desc bool, add func(store.Document, string) bool) error {
	if len(q.conds) > 0 {
		driver, c, err := q.probe(window{}, q.cap)
		if err != nil {
			return err
		}
		if driver >= 0 {
			return q.sortCandidates(c, param, cur, desc, add)
		}
	}
	singles := q.singles()
	return q.walkOrder(param, cur, desc, func(value, id string) (bool, error) {
		for _, c := range singles {
			if ok, err := q.hasEntry(c.terms[0].param, c.terms[0].values[0], id); err != nil || !ok {
				return err == nil, err
			}
		}
		d, ok, err := q.matching(id, q.where, q.keys)
		if err != nil || !ok {
			return err == nil, err
		}
		return add(d, value), nil
	})
}

// sortCandidates orders a small candidate set by (order value, id) in memory and adds the
// documents after the cursor.
func (q *query) sortCandidates(c candidates, param string, cur *store.Cursor, desc bool, add func(store.Document, string) bool) error {
	var hits []hit
	for _, id := range c.ids {
		d, ok, err := q.matching(id, c.verify, q.keys.with(param)) // for the order value
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
	v, err := newView(s.db)
	if err != nil {
		return 0, err
	}
	defer v.close()
	q := s.newQuery(ctx, v, sq)

	var n int64
	if len(q.conds) == 0 {
		if sq.OrderBy == "" {
			return s.readCount(v, sq.Generation, sq.Collection)
		}
		err := q.walkOrder(sq.OrderBy, nil, false, func(string, string) (bool, error) {
			n++
			return true, nil
		})
		return n, err
	}

	// verify checks a candidate against the conditions not already guaranteed (skip), by index
	// lookups where it can and by the document only where it must, against where (the query's
	// conditions less the one the candidate came from).
	orderKeys := noKeys // a document counts under OrderBy only if it has a key of it
	if sq.OrderBy != "" {
		orderKeys = orderKeys.with(sq.OrderBy)
	}
	verify := func(id string, skip func(int) bool, where []store.Condition) (bool, error) {
		needDoc := sq.OrderBy != ""
		for j, c := range q.conds {
			if skip(j) {
				continue
			}
			if !c.single() {
				needDoc = true
				continue
			}
			if ok, err := q.hasEntry(c.terms[0].param, c.terms[0].values[0], id); err != nil || !ok {
				return false, err
			}
		}
		if !needDoc {
			return true, q.tick()
		}
		d, ok, err := q.matching(id, where, orderKeys)
		if err != nil || !ok {
			return false, err
		}
		if sq.OrderBy != "" {
			_, ok = store.SmallestValue(d.Keys, sq.OrderBy)
		}
		return ok, nil
	}
	count := func(id string, skip func(int) bool, where []store.Condition) (bool, error) {
		ok, err := verify(id, skip, where)
		if ok {
			n++
		}
		return err == nil, err
	}

	singles := q.singles()
	leapfrog := func() (int64, error) {
		isSingle := func(j int) bool { return q.conds[j].single() }
		err := q.leapfrog(singles, window{}, func(id string) (bool, error) { return count(id, isSingle, q.where) })
		return n, err
	}
	if len(singles) == len(q.conds) && sq.OrderBy == "" {
		return leapfrog() // counted from the index alone
	}
	p, err := q.newProber(window{})
	if err != nil {
		return 0, err
	}
	defer p.close()
	driver, ids, err := p.run(q.cap)
	if err != nil {
		return 0, err
	}
	if driver < 0 {
		if len(singles) > 0 {
			return leapfrog()
		}
		if driver, ids, err = p.run(math.MaxInt); err != nil {
			return 0, err
		}
	}
	var others []int
	for j := range q.conds {
		if j != driver {
			others = append(others, j)
		}
	}
	ids, rest, err := q.onIndex(ids, others)
	if err != nil {
		return 0, err
	}
	checked := func(j int) bool { return !slices.Contains(rest, j) }
	where := q.conditions(rest)
	for _, id := range ids {
		if _, err := count(id, checked, where); err != nil {
			return 0, err
		}
	}
	return n, nil
}
