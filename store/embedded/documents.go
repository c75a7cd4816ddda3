package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"

	"providerdir/store"
)

// preparedDoc is a document encoded outside the collection lock.
type preparedDoc struct {
	id      string
	key     []byte
	value   []byte
	entries []entry
}

// entry is one index entry: its key and whether it is its document's order entry for its param.
type entry struct {
	key   []byte
	order bool
}

func (e entry) value() []byte {
	if e.order {
		return entryOrder
	}
	return entryOther
}

// indexEntries returns a document's index entries: one per (param, value), marked as the order
// entry when the value is the document's smallest for its param. A key given twice gives the
// same entry twice; the batch drops the repeat.
func indexEntries(gen, coll, id string, keys []store.Key) []entry {
	// One buffer holds every entry's key.
	size := 0
	for _, k := range keys {
		size += 6 + len(gen) + len(coll) + len(k.Param) + len(k.Value) + len(id)
	}
	buf := make([]byte, 0, size)
	entries := make([]entry, 0, len(keys))
	for i, k := range keys {
		start := len(buf)
		buf = appendKey(buf, tagIndex, gen, coll, k.Param, k.Value, id)
		entries = append(entries, entry{key: buf[start:len(buf):len(buf)], order: isOrderEntry(keys, i)})
	}
	return entries
}

// isOrderEntry reports whether keys[i] is its document's order entry for its param: its value
// is the smallest the document has for that param. Put and bulk loads both mark entries by it.
func isOrderEntry(keys []store.Key, i int) bool {
	small, _ := store.SmallestValue(keys, keys[i].Param)
	return keys[i].Value == small
}

// op is one write of a Put's batch; value nil deletes.
type op struct {
	key, value []byte
}

// sortOps sorts writes by key and drops repeated keys (the first stays). Every key starts with
// the same skip bytes (tag, generation and collection), which the comparison passes over.
func sortOps(ops []op, skip int) []op {
	slices.SortFunc(ops, func(a, b op) int { return bytes.Compare(a.key[skip:], b.key[skip:]) })
	return slices.CompactFunc(ops, func(a, b op) bool { return bytes.Equal(a.key, b.key) })
}

// Put writes the batch as one Pebble batch, synced before it returns. Within a batch the last
// document with a given id wins, as if the documents were written one after the other.
//
// The writes go into the batch in key order: Pebble inserts a batch into its memtable skiplist
// in batch order and starts each insert from where the last one ended, so ordered keys cost a
// short step each instead of a search from the top. They are sorted here, before the
// collection's lock is taken.
func (s *Store) Put(ctx context.Context, gen, coll string, docs []store.Document) error {
	if err := store.ValidateDocuments(gen, coll, docs); err != nil {
		return err
	}
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.leave()
	if len(docs) == 0 {
		return nil
	}

	// Keep the last document of each id, in batch order.
	last := make(map[string]int, len(docs))
	for i, d := range docs {
		last[d.ID] = i
	}
	prepared := make([]preparedDoc, 0, len(last))
	nEntries := 0
	for i, d := range docs {
		if last[d.ID] != i {
			continue
		}
		p := preparedDoc{
			id:      d.ID,
			key:     docKey(gen, coll, d.ID),
			value:   encodeDoc(d),
			entries: indexEntries(gen, coll, d.ID, d.Keys),
		}
		nEntries += len(p.entries)
		prepared = append(prepared, p)
	}
	// Document keys (tag d) sort before index entries (tag i); each group after the prefix
	// its keys share.
	skip := len(docPrefix(gen, coll))
	docOps := make([]op, 0, len(prepared))
	entryOps := make([]op, 0, nEntries)
	for _, d := range prepared {
		docOps = append(docOps, op{key: d.key, value: d.value})
		for _, e := range d.entries {
			entryOps = append(entryOps, op{key: e.key, value: e.value()})
		}
	}
	sets := append(sortOps(docOps, skip), sortOps(entryOps, skip)...)

	lock := s.docLock(gen, coll)
	lock.Lock()
	b, err := s.putBatch(gen, coll, prepared, sets, skip)
	if err != nil {
		lock.Unlock()
		return err
	}
	return s.commit(b, lock.Unlock)
}

// putBatch builds the batch of a Put from its sorted writes. The caller holds the collection's
// lock, so the documents it reads (to delete their old index entries) and the count it adjusts
// cannot change under it. Ids the collection's fresh filter has never seen are new, and are not
// read (see fresh.go).
func (s *Store) putBatch(gen, coll string, docs []preparedDoc, sets []op, skip int) (*pebble.Batch, error) {
	count, err := s.readCount(s.db, gen, coll)
	if err != nil {
		return nil, err
	}
	filter, err := s.fresh.get(gen, coll, func() (bool, error) { return count == 0, nil })
	if err != nil {
		return nil, err
	}
	var deletes []op
	added := int64(0)
	for _, d := range docs {
		if filter != nil {
			isNew := !filter.mayHave(d.id)
			filter.add(d.id)
			if isNew {
				added++
				continue
			}
		}
		old, closer, err := s.db.Get(d.key)
		if errors.Is(err, pebble.ErrNotFound) {
			added++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("embedded: read %q: %w", d.id, err)
		}
		oldKeys, _, derr := decodeKeys(old)
		_ = closer.Close()
		if derr != nil {
			return nil, fmt.Errorf("%w: document %q", derr, d.id)
		}
		kept := make(map[string]bool, len(d.entries))
		for _, e := range d.entries {
			kept[string(e.key)] = true
		}
		for _, k := range oldKeys {
			if ik := indexKey(gen, coll, k.Param, k.Value, d.id); !kept[string(ik)] {
				deletes = append(deletes, op{key: ik})
			}
		}
	}
	// Merge the deletes into the writes, in key order. Their keys are distinct from every write
	// (a deleted entry is one the new version does not write).
	deletes = sortOps(deletes, skip)
	b := s.db.NewBatch()
	for len(sets) > 0 || len(deletes) > 0 {
		var o op
		if len(deletes) == 0 || (len(sets) > 0 && bytes.Compare(sets[0].key, deletes[0].key) < 0) {
			o, sets = sets[0], sets[1:]
		} else {
			o, deletes = deletes[0], deletes[1:]
		}
		if o.value == nil {
			_ = b.Delete(o.key, nil)
		} else {
			_ = b.Set(o.key, o.value, nil)
		}
	}
	if added > 0 {
		_ = b.Set(countKey(gen, coll), binary.AppendVarint(nil, count+added), nil)
	}
	return b, nil
}

// readCount returns the number of documents of a collection.
func (s *Store) readCount(r reader, gen, coll string) (int64, error) {
	v, closer, err := r.Get(countKey(gen, coll))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("embedded: read count: %w", err)
	}
	defer closer.Close()
	n, w := binary.Varint(v)
	if w <= 0 {
		return 0, fmt.Errorf("%w: count of %s/%s", errCorrupt, gen, coll)
	}
	return n, nil
}

func (s *Store) Get(ctx context.Context, gen, coll, id string) (store.Document, error) {
	if err := validateLocation(gen, coll); err != nil {
		return store.Document{}, err
	}
	if err := store.ValidateID(id); err != nil {
		return store.Document{}, err
	}
	if err := s.enter(ctx); err != nil {
		return store.Document{}, err
	}
	defer s.leave()
	d, found, err := loadDoc(s.db, gen, coll, id)
	if err != nil {
		return store.Document{}, err
	}
	if !found {
		return store.Document{}, fmt.Errorf("%w: document %s/%s/%q", store.ErrNotFound, gen, coll, id)
	}
	return d, nil
}

// loadDoc reads one document from r.
func loadDoc(r reader, gen, coll, id string) (store.Document, bool, error) {
	return loadWith(r, gen, coll, id, nil, allKeys)
}

// loadWith reads one document from r and decodes it with the keys of k, its body into a.
func loadWith(r reader, gen, coll, id string, a *store.Arena, k keySet) (store.Document, bool, error) {
	v, closer, err := r.Get(docKey(gen, coll, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return store.Document{}, false, nil
	}
	if err != nil {
		return store.Document{}, false, fmt.Errorf("embedded: read %q: %w", id, err)
	}
	defer closer.Close()
	d, err := k.decode(a, id, v)
	return d, err == nil, err
}

func validateLocation(gen, coll string) error {
	if err := store.ValidateName("generation", gen); err != nil {
		return err
	}
	return store.ValidateName("collection", coll)
}

// Generations seeks from one generation's documents to the next, so it costs one seek per
// generation however many documents each holds.
func (s *Store) Generations(ctx context.Context) ([]string, error) {
	if err := s.enter(ctx); err != nil {
		return nil, err
	}
	defer s.leave()
	lo := []byte{tagDoc, 0}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: prefixEnd(lo)})
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	defer it.Close()
	var gens []string
	for valid := it.First(); valid; {
		rest := it.Key()[2:]
		j := bytes.IndexByte(rest, 0)
		if j < 0 {
			return nil, fmt.Errorf("%w: document key %q", errCorrupt, it.Key())
		}
		gen := string(rest[:j])
		gens = append(gens, gen)
		valid = it.SeekGE(prefixEnd(genPrefix(tagDoc, gen)))
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("embedded: list generations: %w", err)
	}
	return gens, nil
}

// DropGeneration deletes a generation with three range deletions (documents, index entries,
// counts), applied in one synced batch, so the generation disappears whole and at once: constant
// work however large the generation. It then excises the three ranges from the LSM, which frees
// the generation's tables in the same step: the range deletions alone free nothing until they
// are flushed from the memtable and compacted, which a server idle between ingests may never
// get to.
//
// The excise keeps what readers already hold: an iterator open on the database (each Find and
// Count reads through one, see view) pins the tables it reads, and Pebble deletes them only once
// the last such iterator is closed. The range deletions come first so that a failed or
// interrupted excise leaves the generation dropped, only its space not yet reclaimed; retrying
// the drop reclaims it.
func (s *Store) DropGeneration(ctx context.Context, gen string) error {
	if err := store.ValidateName("generation", gen); err != nil {
		return err
	}
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.leave()
	// Hold every collection lock so that no Put is between reading and writing this
	// generation's documents or counts while they are dropped, and none writes into the
	// generation between the range deletions and the excise that would take its write away.
	for i := range s.docLocks {
		s.docLocks[i].Lock()
	}
	defer func() {
		for i := range s.docLocks {
			s.docLocks[i].Unlock()
		}
	}()
	s.fresh.dropGeneration(gen)
	b := s.db.NewBatch()
	for _, tag := range generationTags {
		p := genPrefix(tag, gen)
		_ = b.DeleteRange(p, prefixEnd(p), nil)
	}
	if err := s.commit(b, func() {}); err != nil {
		return err
	}
	for _, tag := range generationTags {
		p := genPrefix(tag, gen)
		if err := s.db.Excise(ctx, pebble.KeyRange{Start: p, End: prefixEnd(p)}); err != nil {
			return fmt.Errorf("embedded: reclaim the space of generation %s: %w", gen, err)
		}
	}
	return nil
}

// GetMany reads the documents in id order through one view's point iterator (query.go), so
// they are consistent with each other and the tables' iterators are opened once, not once a
// document as a point read of the database opens them; its prefix seeks consult each table's
// Bloom filter as a point read does, and seeks in ascending order move forward from where the
// last one stopped.
func (s *Store) GetMany(ctx context.Context, gen, coll string, ids []string, a *store.Arena) ([]store.Document, error) {
	return s.getMany(ctx, gen, coll, ids, a, allKeys)
}

// GetBodies reads as GetMany does and passes over each document's keys without decoding them.
func (s *Store) GetBodies(ctx context.Context, gen, coll string, ids []string, a *store.Arena) ([]store.Document, error) {
	return s.getMany(ctx, gen, coll, ids, a, noKeys)
}

// getMany reads the documents of GetMany, each with the keys of k.
func (s *Store) getMany(ctx context.Context, gen, coll string, ids []string, a *store.Arena, k keySet) ([]store.Document, error) {
	ids, err := store.ValidateGetMany(gen, coll, ids)
	if err != nil {
		return nil, err
	}
	if err := s.enter(ctx); err != nil {
		return nil, err
	}
	defer s.leave()
	v, err := newView(s.db)
	if err != nil {
		return nil, err
	}
	defer v.close()
	// Each distinct id is read once, in ascending order so that the seeks move forward, into the
	// place it first has in ids (the sort is stable: a repeated id's first place comes first).
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(ids[x], ids[y]) })
	docs := make([]store.Document, len(ids))
	found := make([]bool, len(ids))
	for n, i := range order {
		if n > 0 && ids[order[n-1]] == ids[i] {
			continue
		}
		if n%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d, ok, err := loadWith(v, gen, coll, ids[i], a, k)
		if err != nil {
			return nil, err
		}
		docs[i], found[i] = d, ok
	}
	out := docs[:0]
	for i := range docs {
		if found[i] {
			out = append(out, docs[i])
		}
	}
	return out, nil
}
