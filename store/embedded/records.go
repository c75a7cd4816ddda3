package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"providerdir/store"
)

func validateRecordID(kind, id string) error {
	if err := store.ValidateName("kind", kind); err != nil {
		return err
	}
	return store.ValidateID(id)
}

// readStored reads a record or counter, live or expired.
func (s *Store) readStored(key []byte) (stored, bool, error) {
	if !s.records.mayHold(key) {
		return stored{}, false, nil
	}
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return stored{}, false, nil
	}
	if err != nil {
		return stored{}, false, fmt.Errorf("embedded: read %q: %w", key, err)
	}
	defer closer.Close()
	st, err := decodeStored(v)
	if err != nil {
		return stored{}, false, fmt.Errorf("%w: %q", err, key)
	}
	return st, true, nil
}

func toRecord(kind, id string, st stored) store.Record {
	return store.Record{Kind: kind, ID: id, Version: st.version, Body: st.body, ExpiresAt: expiryTime(st.expires)}
}

func (s *Store) GetRecord(ctx context.Context, kind, id string) (store.Record, error) {
	if err := validateRecordID(kind, id); err != nil {
		return store.Record{}, err
	}
	if err := s.enter(ctx); err != nil {
		return store.Record{}, err
	}
	defer s.leave()
	st, found, err := s.readStored(recordKey(kind, id))
	if err != nil {
		return store.Record{}, err
	}
	if !found || !live(st.expires, time.Now()) {
		return store.Record{}, fmt.Errorf("%w: record %s/%q", store.ErrNotFound, kind, id)
	}
	return toRecord(kind, id, st), nil
}

// PutRecord creates or compare-and-swaps a record under recMu. A compare-and-swap on a record
// that is absent (or expired) is ErrConflict: the version the caller read is not there, which
// is what a caller retrying a read-modify-write needs to hear to read again.
func (s *Store) PutRecord(ctx context.Context, r store.Record) (store.Record, error) {
	if err := validateRecordID(r.Kind, r.ID); err != nil {
		return store.Record{}, err
	}
	if r.Version < 0 {
		return store.Record{}, fmt.Errorf("%w: negative record version %d", store.ErrInvalid, r.Version)
	}
	if err := s.enter(ctx); err != nil {
		return store.Record{}, err
	}
	defer s.leave()
	key := recordKey(r.Kind, r.ID)
	next := stored{version: 1, expires: expiryNanos(r.ExpiresAt), body: bytes.Clone(r.Body)}

	s.recMu.Lock()
	cur, found, err := s.readStored(key)
	if err != nil {
		s.recMu.Unlock()
		return store.Record{}, err
	}
	isLive := found && live(cur.expires, time.Now())
	switch {
	case r.Version == 0 && isLive:
		s.recMu.Unlock()
		return store.Record{}, fmt.Errorf("%w: record %s/%q exists", store.ErrConflict, r.Kind, r.ID)
	case r.Version != 0 && (!isLive || cur.version != r.Version):
		s.recMu.Unlock()
		return store.Record{}, fmt.Errorf("%w: record %s/%q is not at version %d", store.ErrConflict, r.Kind, r.ID, r.Version)
	case r.Version != 0:
		next.version = r.Version + 1
	}
	b := s.db.NewBatch()
	s.replaceStored(b, key, cur, found, next)
	if err := s.commitRecord(b, next); err != nil {
		return store.Record{}, err
	}
	return toRecord(r.Kind, r.ID, next), nil
}

// replaceStored writes next at key into b, moving its expiry index entry from old's. A key not
// found goes into the record filter first (see recordfilter.go); the caller holds recMu and
// commits b.
func (s *Store) replaceStored(b *pebble.Batch, key []byte, old stored, found bool, next stored) {
	if !found {
		s.records.add(key)
	}
	if found && old.expires != 0 && old.expires != next.expires {
		_ = b.Delete(expiryKey(old.expires, key), nil)
	}
	_ = b.Set(key, encodeStored(next), nil)
	if next.expires != 0 {
		_ = b.Set(expiryKey(next.expires, key), nil, nil)
	}
}

func (s *Store) DeleteRecord(ctx context.Context, kind, id string, version int64) error {
	if err := validateRecordID(kind, id); err != nil {
		return err
	}
	if version < 0 {
		return fmt.Errorf("%w: negative record version %d", store.ErrInvalid, version)
	}
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.leave()
	key := recordKey(kind, id)

	s.recMu.Lock()
	cur, found, err := s.readStored(key)
	switch {
	case err != nil:
		s.recMu.Unlock()
		return err
	case !found || !live(cur.expires, time.Now()):
		s.recMu.Unlock()
		return fmt.Errorf("%w: record %s/%q", store.ErrNotFound, kind, id)
	case version != 0 && cur.version != version:
		s.recMu.Unlock()
		return fmt.Errorf("%w: record %s/%q is at version %d, not %d", store.ErrConflict, kind, id, cur.version, version)
	}
	b := s.db.NewBatch()
	_ = b.Delete(key, nil)
	if cur.expires != 0 {
		_ = b.Delete(expiryKey(cur.expires, key), nil)
	}
	return s.commit(b, s.recMu.Unlock)
}

// ListRecords treats limit as Query treats Limit: 0 or less is DefaultLimit, above MaxLimit is
// ErrInvalid.
func (s *Store) ListRecords(ctx context.Context, kind, after string, limit int) ([]store.Record, error) {
	if err := store.ValidateName("kind", kind); err != nil {
		return nil, err
	}
	switch {
	case strings.IndexByte(after, 0) >= 0:
		return nil, fmt.Errorf("%w: after may not hold NUL", store.ErrInvalid)
	case limit > store.MaxLimit:
		return nil, fmt.Errorf("%w: limit %d above %d", store.ErrInvalid, limit, store.MaxLimit)
	case limit <= 0:
		limit = store.DefaultLimit
	}
	if err := s.enter(ctx); err != nil {
		return nil, err
	}
	defer s.leave()
	p := recordPrefix(kind)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	defer it.Close()
	valid := it.First()
	if after != "" {
		valid = it.SeekGE(successor(recordKey(kind, after)))
	}
	now := time.Now()
	var out []store.Record
	for ; valid && len(out) < limit; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, fmt.Errorf("embedded: %w", err)
		}
		st, err := decodeStored(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %q", err, it.Key())
		}
		if live(st.expires, now) {
			out = append(out, toRecord(kind, string(it.Key()[len(p):]), st))
		}
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	return out, nil
}

// Incr adds delta to a counter under recMu. A counter that is absent or expired starts from
// zero with the given expiry; a live one keeps its first expiry.
func (s *Store) Incr(ctx context.Context, name string, delta int64, expiresAt time.Time) (int64, error) {
	if err := store.ValidateName("counter", name); err != nil {
		return 0, err
	}
	if err := s.enter(ctx); err != nil {
		return 0, err
	}
	defer s.leave()
	key := counterKey(name)

	s.recMu.Lock()
	cur, found, err := s.readStored(key)
	if err != nil {
		s.recMu.Unlock()
		return 0, err
	}
	next := stored{version: delta, expires: expiryNanos(expiresAt)}
	if found && live(cur.expires, time.Now()) {
		next = stored{version: cur.version + delta, expires: cur.expires}
	}
	b := s.db.NewBatch()
	s.replaceStored(b, key, cur, found, next)
	if err := s.commitRecord(b, next); err != nil {
		return 0, err
	}
	return next.version, nil
}

// sweepBatch bounds how many expired entries one sweep step deletes while holding recMu.
const sweepBatch = 512

func (s *Store) sweepLoop() {
	defer s.sweeper.Done()
	t := time.NewTicker(s.cfg.sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if _, err := s.sweep(time.Now()); err != nil && !errors.Is(err, store.ErrClosed) {
				quietLogger{}.Errorf("sweep of expired records: %v", err)
			}
			if s.records.due() {
				if err := s.rebuildRecordFilter(); err != nil && !errors.Is(err, store.ErrClosed) {
					quietLogger{}.Errorf("rebuild of the record filter: %v", err)
				}
			}
		}
	}
}

// rebuildRecordFilter builds the record filter again from the store, which sweeps and deletions
// have left with fewer keys than the filter holds.
func (s *Store) rebuildRecordFilter() error {
	if err := s.enter(context.Background()); err != nil {
		return err
	}
	defer s.leave()
	return s.buildRecordFilter()
}

// sweep deletes the records and counters that expired before now, with their expiry index
// entries, a bounded step at a time. It returns how many it deleted. Losing a sweep to a crash
// costs nothing (the entries are still expired and are swept again), so it does not sync.
func (s *Store) sweep(now time.Time) (int, error) {
	if err := s.enter(context.Background()); err != nil {
		return 0, err
	}
	defer s.leave()
	lo := []byte{tagExpiry, 0}
	hi := expiryKey(now.UnixNano(), nil)
	deleted := 0
	for {
		keys, err := s.expiredKeys(lo, hi)
		if err != nil || len(keys) == 0 {
			return deleted, err
		}
		s.recMu.Lock()
		b := s.db.NewBatch()
		for _, xk := range keys {
			exp, primary, ok := splitExpiryKey(xk)
			if !ok {
				continue
			}
			_ = b.Delete(xk, nil)
			cur, found, err := s.readStored(primary)
			if err != nil {
				s.recMu.Unlock()
				_ = b.Close()
				return deleted, err
			}
			// The entry is only stale if the record was rewritten with another expiry, which
			// removes the old entry anyway; check rather than trust it.
			if found && cur.expires == exp && !live(cur.expires, now) {
				_ = b.Delete(primary, nil)
				deleted++
			}
		}
		err = s.db.Apply(b, pebble.NoSync)
		s.recMu.Unlock()
		_ = b.Close()
		if err != nil {
			return deleted, fmt.Errorf("embedded: sweep: %w", err)
		}
		lo = successor(keys[len(keys)-1])
	}
}

// expiredKeys returns up to sweepBatch expiry index keys in [lo, hi).
func (s *Store) expiredKeys(lo, hi []byte) ([][]byte, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	defer it.Close()
	var keys [][]byte
	for valid := it.First(); valid && len(keys) < sweepBatch; valid = it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
	}
	return keys, it.Error()
}
