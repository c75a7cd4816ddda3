package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// layerSep joins the layers of a composite generation. It is not a legal name byte
// (ValidateName), so no backend can hold a generation whose name contains it.
const layerSep = "+"

// maskPrefix starts the name of a mask collection. Collections of that name are the stacking's
// own: a top generation's mask lives beside the collection it masks.
const maskPrefix = "_mask."

// StackGeneration returns the composite generation that reads as top laid over below: top's
// documents replace or add to those of below, and top's mask hides what it deletes. top is one
// real generation; below may itself be composite, so stacks grow one layer at a time.
func StackGeneration(top, below string) string { return top + layerSep + below }

// Layers splits a generation into its layers, top first. A plain generation is its one layer.
func Layers(generation string) []string { return strings.Split(generation, layerSep) }

// MaskCollection names the collection, in a top generation, that lists the documents of the
// view below which the top overrides or deletes: one document per such id, carrying the keys
// the document had below (the body is not read). The top's own collection holds the new and
// changed documents; an id in the mask and absent from the top is deleted from the view.
func MaskCollection(collection string) string { return maskPrefix + collection }

// isComposite reports whether a generation is a stack of several layers.
func isComposite(generation string) bool { return strings.Contains(generation, layerSep) }

// splitTop returns a composite generation's top layer and the view below it, after checking
// that every layer is a valid generation name.
func splitTop(generation string) (top, below string, err error) {
	for _, l := range Layers(generation) {
		if err := ValidateName("generation", l); err != nil {
			return "", "", err
		}
	}
	top, below, _ = strings.Cut(generation, layerSep)
	return top, below, nil
}

// Stacked wraps s so that every read accepts a composite generation (StackGeneration) and
// answers from the stacked view; a plain generation goes straight to s. Writes to a composite
// (Put, Load, DropGeneration) are ErrInvalid: a stack is written through its top layer's own
// name. Wrapping a store that is already stacked (directly or below other wrappers that
// Unwrap) returns it as it is.
func Stacked(s Store) Store {
	for w := s; w != nil; {
		if _, ok := w.(*stacked); ok {
			return s
		}
		u, ok := w.(interface{ Unwrap() Store })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	return &stacked{s: s}
}

// stacked is the Store Stacked returns.
type stacked struct {
	s Store
}

var (
	_ Store  = (*stacked)(nil)
	_ Loader = (*stacked)(nil)
)

// Unwrap returns the wrapped store, for code that needs a backend's own extra methods.
func (w *stacked) Unwrap() Store { return w.s }

func compositeWrite(generation string) error {
	return fmt.Errorf("%w: generation %q is a stack of layers; write to one layer by its own name", ErrInvalid, generation)
}

func (w *stacked) Put(ctx context.Context, generation, collection string, docs []Document) error {
	if isComposite(generation) {
		return compositeWrite(generation)
	}
	return w.s.Put(ctx, generation, collection, docs)
}

func (w *stacked) DropGeneration(ctx context.Context, generation string) error {
	if isComposite(generation) {
		return compositeWrite(generation)
	}
	return w.s.DropGeneration(ctx, generation)
}

// Load forwards a bulk load of a plain generation to the wrapped store, when it can load.
func (w *stacked) Load(ctx context.Context, generation, collection string) (Loading, error) {
	if isComposite(generation) {
		return nil, compositeWrite(generation)
	}
	l, ok := w.s.(Loader)
	if !ok {
		return nil, fmt.Errorf("store: the wrapped store cannot bulk-load: %w", errors.ErrUnsupported)
	}
	return l.Load(ctx, generation, collection)
}

// Ping forwards the wrapped store's cheap storage check when it has one (see
// internal/httpserver.Pinger); a store without one has nothing cheaper to check than a read.
func (w *stacked) Ping(ctx context.Context) error {
	if p, ok := w.s.(interface{ Ping(context.Context) error }); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Get reads the mask first: a masked id is answered by the top alone (present: changed;
// absent: deleted), an unmasked one by the view below, and only an id the view below lacks is
// looked for in the top (a new document). So a document of the view below or one the top
// changed costs one look-up more than on a plain generation.
func (w *stacked) Get(ctx context.Context, generation, collection, id string) (Document, error) {
	if !isComposite(generation) {
		return w.s.Get(ctx, generation, collection, id)
	}
	top, below, err := splitTop(generation)
	if err != nil {
		return Document{}, err
	}
	if err := ValidateName("collection", collection); err != nil {
		return Document{}, err
	}
	if err := ValidateID(id); err != nil {
		return Document{}, err
	}
	_, err = w.s.Get(ctx, top, MaskCollection(collection), id)
	switch {
	case err == nil:
		return w.s.Get(ctx, top, collection, id)
	case !errors.Is(err, ErrNotFound):
		return Document{}, err
	}
	d, err := w.Get(ctx, below, collection, id)
	if !errors.Is(err, ErrNotFound) {
		return d, err
	}
	return w.s.Get(ctx, top, collection, id)
}

// GetMany resolves the ids as Get does, with one GetMany per step for all of them.
func (w *stacked) GetMany(ctx context.Context, generation, collection string, ids []string, arena *Arena) ([]Document, error) {
	if !isComposite(generation) {
		return w.s.GetMany(ctx, generation, collection, ids, arena)
	}
	return w.readMany(ctx, generation, collection, ids, arena, Store.GetMany)
}

// GetBodies resolves the ids as GetMany does, reading each layer's documents without keys.
func (w *stacked) GetBodies(ctx context.Context, generation, collection string, ids []string, arena *Arena) ([]Document, error) {
	if !isComposite(generation) {
		return w.s.GetBodies(ctx, generation, collection, ids, arena)
	}
	return w.readMany(ctx, generation, collection, ids, arena, Store.GetBodies)
}

// readMany is GetMany and GetBodies over a stack, read being the one of the two asked for. The
// mask is read without keys either way: only which ids it holds matters here.
func (w *stacked) readMany(ctx context.Context, generation, collection string, ids []string, arena *Arena,
	read func(s Store, ctx context.Context, generation, collection string, ids []string, arena *Arena) ([]Document, error)) ([]Document, error) {
	top, below, err := splitTop(generation)
	if err != nil {
		return nil, err
	}
	ids, err = ValidateGetMany(top, collection, ids)
	if err != nil {
		return nil, err
	}
	masked, err := w.s.GetBodies(ctx, top, MaskCollection(collection), ids, arena)
	if err != nil {
		return nil, err
	}
	isMasked := idSet(masked)
	var unmasked []string
	for _, id := range ids {
		if !isMasked[id] {
			unmasked = append(unmasked, id)
		}
	}
	found := map[string]Document{}
	if len(unmasked) > 0 {
		docs, err := read(w, ctx, below, collection, unmasked, arena)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			found[d.ID] = d
		}
	}
	var fromTop []string
	for _, id := range ids {
		if _, ok := found[id]; !ok {
			fromTop = append(fromTop, id)
		}
	}
	if len(fromTop) > 0 {
		docs, err := read(w.s, ctx, top, collection, fromTop, arena)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			found[d.ID] = d
		}
	}
	out := make([]Document, 0, len(found))
	for _, id := range ids {
		if d, ok := found[id]; ok {
			out = append(out, d)
		}
	}
	return out, nil
}

func idSet(docs []Document) map[string]bool {
	set := make(map[string]bool, len(docs))
	for _, d := range docs {
		set[d.ID] = true
	}
	return set
}

// Count is the top's count plus the view below's, less the masked documents that match: the
// mask carries each masked document's keys as they were below, so the same query counts
// exactly the documents of the view below that the top hides.
func (w *stacked) Count(ctx context.Context, q Query) (int64, error) {
	if !isComposite(q.Generation) {
		return w.s.Count(ctx, q)
	}
	top, below, _, err := w.checkQuery(q)
	if err != nil {
		return 0, err
	}
	sub := q
	sub.Generation = top
	inTop, err := w.s.Count(ctx, sub)
	if err != nil {
		return 0, err
	}
	sub.Collection = MaskCollection(q.Collection)
	hidden, err := w.s.Count(ctx, sub)
	if err != nil {
		return 0, err
	}
	sub.Generation, sub.Collection = below, q.Collection
	inBelow, err := w.Count(ctx, sub)
	if err != nil {
		return 0, err
	}
	return inTop + inBelow - hidden, nil
}

// checkQuery validates a query on a composite generation as a backend would validate it on a
// plain one, cursor included, and returns the top layer, the view below and the page's limit.
func (w *stacked) checkQuery(q Query) (top, below string, limit int, err error) {
	if top, below, err = splitTop(q.Generation); err != nil {
		return "", "", 0, err
	}
	q.Generation = top
	if limit, err = ValidateQuery(q); err != nil {
		return "", "", 0, err
	}
	if q.After != "" {
		if _, err := DecodeCursor(q.After); err != nil {
			return "", "", 0, err
		}
	}
	return top, below, limit, nil
}

// Find merges the top's documents and the unmasked documents of the view below in the query's
// order. Both sides are read after the same cursor: a cursor is an order value and an id, a
// position that means the same in every layer. Each side is read a page at a time (the view
// below a little more, see belowLimit), and only as far as the merged page needs.
func (w *stacked) Find(ctx context.Context, q Query) (Page, error) {
	if !isComposite(q.Generation) {
		return w.s.Find(ctx, q)
	}
	if q.OrderBy == "" || !q.BodiesOnly && (len(q.KeysOf) == 0 || slices.Contains(q.KeysOf, q.OrderBy)) {
		return w.findStack(ctx, q)
	}
	// The layers' pages are merged by the key the page is ordered by: they are read with it.
	inner := q
	inner.KeysOf = append(slices.Clip(q.KeysOf), q.OrderBy)
	if q.BodiesOnly {
		inner.BodiesOnly, inner.KeysOf = false, []string{q.OrderBy}
	}
	page, err := w.findStack(ctx, inner)
	for i := range page.Docs {
		page.Docs[i].Keys = SelectKeys(page.Docs[i].Keys, q)
	}
	return page, err
}

// findStack is Find on a stack of generations: the layers' pages merged, the documents that the
// layer above masks left out.
func (w *stacked) findStack(ctx context.Context, q Query) (Page, error) {
	top, below, limit, err := w.checkQuery(q)
	if err != nil {
		return Page{}, err
	}
	q.Limit = limit
	upper := &layerStream{find: w.s.Find, q: q, next: q.After}
	upper.q.Generation = top
	lower := &layerStream{find: w.Find, q: q, next: q.After, mask: func(docs []Document) (map[string]bool, error) {
		masked, err := w.s.GetBodies(ctx, top, MaskCollection(q.Collection), ids(docs), q.Arena)
		return idSet(masked), err
	}}
	lower.q.Generation = below
	lower.q.Limit = belowLimit(limit)
	order := pageOrder{by: q.OrderBy, desc: q.Descending}

	var page Page
	for len(page.Docs) < limit {
		a, okA, err := upper.peek(ctx)
		if err != nil {
			return Page{}, err
		}
		b, okB, err := lower.peek(ctx)
		if err != nil {
			return Page{}, err
		}
		switch {
		case !okA && !okB:
			return page, nil
		case !okB || okA && order.compare(a, b) < 0:
			page.Docs = append(page.Docs, upper.pop())
		default:
			page.Docs = append(page.Docs, lower.pop())
		}
	}
	more, err := upper.more(ctx)
	if err == nil && !more {
		more, err = lower.more(ctx)
	}
	if err != nil {
		return Page{}, err
	}
	if more {
		last := page.Docs[len(page.Docs)-1]
		page.Next = Cursor{Value: order.value(last), ID: last.ID}.Encode()
	}
	return page, nil
}

// belowLimit is how many documents a stacked Find reads from the view below per page: the page
// and some more, so that a few masked documents and the look past the page's end (whether a
// next page exists) are usually served by the same read.
func belowLimit(limit int) int { return min(limit+limit/8+2, MaxLimit) }

func ids(docs []Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

// pageOrder is a query's order: by id, or by a key's smallest value and then id, either way up.
type pageOrder struct {
	by   string
	desc bool
}

// value is the order value of a document Find returned (it has a key for the order's param).
func (o pageOrder) value(d Document) string {
	if o.by == "" {
		return ""
	}
	v, _ := SmallestValue(d.Keys, o.by)
	return v
}

// compare says whether a comes before (<0) or after (>0) b in the order. Two sides of a stack
// never hold the same id (the mask hides the one below), so no two documents compare equal.
func (o pageOrder) compare(a, b Document) int {
	c := cmp.Or(strings.Compare(o.value(a), o.value(b)), strings.Compare(a.ID, b.ID))
	if o.desc {
		return -c
	}
	return c
}

// layerStream reads one side of a stacked Find a page at a time, leaving out the documents
// mask (when set) reports as masked.
type layerStream struct {
	find func(context.Context, Query) (Page, error)
	q    Query
	mask func([]Document) (map[string]bool, error)
	buf  []Document
	next string // cursor of the next page to read
	read bool   // whether a page was read, so that an empty next means the end
}

// peek returns the stream's next document without taking it, reading pages until it has one
// or the stream ends.
func (s *layerStream) peek(ctx context.Context) (Document, bool, error) {
	for len(s.buf) == 0 {
		if s.read && s.next == "" {
			return Document{}, false, nil
		}
		q := s.q
		q.After = s.next
		p, err := s.find(ctx, q)
		if err != nil {
			return Document{}, false, err
		}
		s.read, s.next, s.buf = true, p.Next, p.Docs
		if s.mask != nil && len(s.buf) > 0 {
			masked, err := s.mask(s.buf)
			if err != nil {
				return Document{}, false, err
			}
			s.buf = dropMasked(s.buf, masked)
		}
	}
	return s.buf[0], true, nil
}

// more reports whether the stream holds another document. A side with no mask answers from its
// last page's cursor (a backend's Next is exact), without reading.
func (s *layerStream) more(ctx context.Context) (bool, error) {
	if len(s.buf) > 0 || s.mask == nil && s.read {
		return len(s.buf) > 0 || s.next != "", nil
	}
	_, ok, err := s.peek(ctx)
	return ok, err
}

func (s *layerStream) pop() Document {
	d := s.buf[0]
	s.buf = s.buf[1:]
	return d
}

func dropMasked(docs []Document, masked map[string]bool) []Document {
	out := docs[:0]
	for _, d := range docs {
		if !masked[d.ID] {
			out = append(out, d)
		}
	}
	return out
}

func (w *stacked) Generations(ctx context.Context) ([]string, error) { return w.s.Generations(ctx) }

func (w *stacked) GetRecord(ctx context.Context, kind, id string) (Record, error) {
	return w.s.GetRecord(ctx, kind, id)
}

func (w *stacked) PutRecord(ctx context.Context, r Record) (Record, error) {
	return w.s.PutRecord(ctx, r)
}

func (w *stacked) DeleteRecord(ctx context.Context, kind, id string, version int64) error {
	return w.s.DeleteRecord(ctx, kind, id, version)
}

func (w *stacked) ListRecords(ctx context.Context, kind, after string, limit int) ([]Record, error) {
	return w.s.ListRecords(ctx, kind, after, limit)
}

func (w *stacked) Incr(ctx context.Context, name string, delta int64, expiresAt time.Time) (int64, error) {
	return w.s.Incr(ctx, name, delta, expiresAt)
}

func (w *stacked) Close() error { return w.s.Close() }
