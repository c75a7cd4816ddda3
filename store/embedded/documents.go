package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"providerdir/store"
)

// preparedDoc is a document encoded outside the collection lock.
type preparedDoc struct {
	id      string
	key     []byte
	value   []byte
	entries map[string][]byte // index key -> entry value
}

// indexEntries returns a document's index entries: one per distinct (param, value), marked as
// the order entry when the value is the document's smallest for its param.
func indexEntries(gen, coll, id string, keys []store.Key) map[string][]byte {
	entries := make(map[string][]byte, len(keys))
	for _, k := range keys {
		small, _ := store.SmallestValue(keys, k.Param)
		v := entryOther
		if k.Value == small {
			v = entryOrder
		}
		entries[string(indexKey(gen, coll, k.Param, k.Value, id))] = v
	}
	return entries
}

// Put writes the batch as one Pebble batch, synced before it returns. Within a batch the last
// document with a given id wins, as if the documents were written one after the other.
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
	for i, d := range docs {
		if last[d.ID] != i {
			continue
		}
		prepared = append(prepared, preparedDoc{
			id:      d.ID,
			key:     docKey(gen, coll, d.ID),
			value:   encodeDoc(d),
			entries: indexEntries(gen, coll, d.ID, d.Keys),
		})
	}

	lock := s.docLock(gen, coll)
	lock.Lock()
	b, err := s.putBatch(gen, coll, prepared)
	if err != nil {
		lock.Unlock()
		return err
	}
	return s.commit(b, lock.Unlock)
}

// putBatch builds the batch of a Put. The caller holds the collection's lock, so the documents
// it reads (to delete their old index entries) and the count it adjusts cannot change under it.
func (s *Store) putBatch(gen, coll string, docs []preparedDoc) (*pebble.Batch, error) {
	b := s.db.NewBatch()
	added := int64(0)
	for _, d := range docs {
		old, closer, err := s.db.Get(d.key)
		switch {
		case err == nil:
			oldKeys, _, derr := decodeKeys(old)
			_ = closer.Close()
			if derr != nil {
				_ = b.Close()
				return nil, fmt.Errorf("%w: document %q", derr, d.id)
			}
			for _, k := range oldKeys {
				ik := indexKey(gen, coll, k.Param, k.Value, d.id)
				if _, kept := d.entries[string(ik)]; !kept {
					_ = b.Delete(ik, nil)
				}
			}
		case errors.Is(err, pebble.ErrNotFound):
			added++
		default:
			_ = b.Close()
			return nil, fmt.Errorf("embedded: read %q: %w", d.id, err)
		}
		_ = b.Set(d.key, d.value, nil)
		for k, v := range d.entries {
			_ = b.Set([]byte(k), v, nil)
		}
	}
	if added > 0 {
		n, err := s.readCount(s.db, gen, coll)
		if err != nil {
			_ = b.Close()
			return nil, err
		}
		_ = b.Set(countKey(gen, coll), binary.AppendVarint(nil, n+added), nil)
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
	v, closer, err := r.Get(docKey(gen, coll, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return store.Document{}, false, nil
	}
	if err != nil {
		return store.Document{}, false, fmt.Errorf("embedded: read %q: %w", id, err)
	}
	defer closer.Close()
	d, err := decodeDoc(id, v)
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
// counts): constant work however large the generation, with the space reclaimed by compaction.
func (s *Store) DropGeneration(ctx context.Context, gen string) error {
	if err := store.ValidateName("generation", gen); err != nil {
		return err
	}
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.leave()
	// Hold every collection lock so that no Put is between reading and writing this
	// generation's documents or counts while they are dropped.
	for i := range s.docLocks {
		s.docLocks[i].Lock()
	}
	unlock := func() {
		for i := range s.docLocks {
			s.docLocks[i].Unlock()
		}
	}
	b := s.db.NewBatch()
	for _, tag := range []byte{tagDoc, tagIndex, tagCount} {
		p := genPrefix(tag, gen)
		_ = b.DeleteRange(p, prefixEnd(p), nil)
	}
	return s.commit(b, unlock)
}
