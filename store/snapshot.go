package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Snapshot is the serving pointer: which generation of each data collection readers see. It is
// one small record, so a switch (and a rollback) is one compare-and-swap of one record: atomic on
// every backend without multi-document transactions, and shared by every replica.
//
// Each collection has its own generation so that an ingest of one source family (say, only the
// exclusion list) switches that family's collections and leaves the others serving as they were.
type Snapshot struct {
	// Version is the pointer record's version; Switch and Rollback compare-and-swap on it.
	Version int64 `json:"-"`
	// Collections maps a collection name to the generation served for it.
	Collections map[string]string `json:"collections"`
	// Previous is the mapping before the last switch; Rollback restores it.
	Previous   map[string]string `json:"previous,omitempty"`
	SwitchedAt time.Time         `json:"switched_at"`
	// Label says what the last switch was (for example "ingest nppes 2025-06-08").
	Label string `json:"label,omitempty"`
}

const (
	systemKind      = "system"
	servingID       = "serving"
	generationCount = "generation"
)

// Generation returns the generation served for a collection, or "" when none is.
func (s Snapshot) Generation(collection string) string { return s.Collections[collection] }

// Serving reads the serving pointer. Before the first switch it is an empty Snapshot (Version 0).
func Serving(ctx context.Context, s Store) (Snapshot, error) {
	return ServingSince(ctx, s, Snapshot{})
}

// ServingSince is Serving for a reader that keeps the snapshot it read last: while the pointer is
// still at last's version, last is returned as it is, without decoding the pointer again. The
// pointer record is only ever updated, each time to a new version, so an equal version is an
// equal pointer. The holders of last share its maps and must not change them.
func ServingSince(ctx context.Context, s Store, last Snapshot) (Snapshot, error) {
	rec, err := s.GetRecord(ctx, systemKind, servingID)
	if errors.Is(err, ErrNotFound) {
		return Snapshot{Collections: map[string]string{}}, nil
	}
	if err != nil {
		return Snapshot{}, err
	}
	if rec.Version != 0 && rec.Version == last.Version {
		return last, nil
	}
	return decodeServing(rec)
}

// decodeServing reads the serving pointer out of its record; a bare record (Version 0) is the
// empty Snapshot served before the first switch.
func decodeServing(rec Record) (Snapshot, error) {
	snap := Snapshot{Collections: map[string]string{}}
	if rec.Version == 0 {
		return snap, nil
	}
	if err := json.Unmarshal(rec.Body, &snap); err != nil {
		return Snapshot{}, fmt.Errorf("store: decode serving pointer: %w", err)
	}
	if snap.Collections == nil {
		snap.Collections = map[string]string{}
	}
	snap.Version = rec.Version
	return snap, nil
}

// NewGeneration allocates a fresh generation id. Ids sort in allocation order.
func NewGeneration(ctx context.Context, s Store) (string, error) {
	n, err := s.Incr(ctx, generationCount, 1, time.Time{})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("g%010d", n), nil
}

// Switch makes the generations in changes serving for their collections, keeping every other
// collection as in from. It fails with ErrConflict if the pointer moved since from was read.
func Switch(ctx context.Context, s Store, from Snapshot, changes map[string]string, label string) (Snapshot, error) {
	next := Snapshot{
		Version:     from.Version,
		Collections: maps.Clone(from.Collections),
		Previous:    maps.Clone(from.Collections),
		SwitchedAt:  time.Now().UTC(),
		Label:       label,
	}
	if next.Collections == nil {
		next.Collections = map[string]string{}
	}
	maps.Copy(next.Collections, changes)
	return putServing(ctx, s, next)
}

// Rollback restores the mapping that served before the last switch. Rolling back twice returns to
// where it started. It fails with ErrNotFound when there is nothing to roll back to, and with
// ErrConflict when the pointer moves while it rolls back: it never undoes a switch it did not see.
func Rollback(ctx context.Context, s Store) (Snapshot, error) {
	return updateServing(ctx, s, func(cur Snapshot) (Snapshot, error) {
		if cur.Version == 0 || cur.Previous == nil {
			return cur, fmt.Errorf("store: no previous snapshot to roll back to: %w", ErrNotFound)
		}
		return Snapshot{
			Collections: cur.Previous,
			Previous:    cur.Collections,
			SwitchedAt:  time.Now().UTC(),
			Label:       "rollback",
		}, nil
	})
}

func putServing(ctx context.Context, s Store, snap Snapshot) (Snapshot, error) {
	body, err := json.Marshal(snap)
	if err != nil {
		return Snapshot{}, err
	}
	rec, err := s.PutRecord(ctx, Record{Kind: systemKind, ID: servingID, Version: snap.Version, Body: body})
	if err != nil {
		return Snapshot{}, err
	}
	snap.Version = rec.Version
	return snap, nil
}

// updateServing is one read-modify-write of the serving pointer through Update, in a single
// attempt: a pointer that moved meanwhile is ErrConflict, for the caller to decide on, because
// a change decided on one snapshot is not to be applied to another. change returning
// SkipWrite leaves the pointer as it is.
func updateServing(ctx context.Context, s Store, change func(cur Snapshot) (Snapshot, error)) (Snapshot, error) {
	rec, err := Update(ctx, s, systemKind, servingID, func(old Record) (Record, error) {
		cur, err := decodeServing(old)
		if err != nil {
			return old, err
		}
		next, err := change(cur)
		if err != nil {
			return old, err
		}
		old.Body, err = json.Marshal(next)
		return old, err
	}, CreateIfAbsent(), UpdateAttempts(1))
	if err != nil {
		return Snapshot{}, err
	}
	return decodeServing(rec)
}

// ReleasePrevious forgets the previous mapping once the last switch is at least window old, so
// that the generations only it referenced can be collected: the previous snapshot serves a
// rollback and the FHIR pages of searches begun before the switch for that long, and then stops
// holding a whole generation's disk. It reports whether it released a mapping; a pointer that
// moved meanwhile is left as it is (ErrConflict is not an error here: the next call decides).
func ReleasePrevious(ctx context.Context, s Store, window time.Duration, now time.Time) (bool, error) {
	released := false
	_, err := updateServing(ctx, s, func(cur Snapshot) (Snapshot, error) {
		if released = cur.Previous != nil && now.Sub(cur.SwitchedAt) >= window; !released {
			return cur, SkipWrite
		}
		cur.Previous = nil
		return cur, nil
	})
	if errors.Is(err, ErrConflict) {
		return false, nil
	}
	return released && err == nil, err
}

// Reclaim releases a previous mapping older than window (ReleasePrevious) and collects the
// generations nothing references any more (CollectGenerations). It returns the generations
// dropped.
func Reclaim(ctx context.Context, s Store, window time.Duration, now time.Time) ([]string, error) {
	if _, err := ReleasePrevious(ctx, s, window, now); err != nil {
		return nil, err
	}
	return CollectGenerations(ctx, s)
}

// ReclaimEvery runs Reclaim at once and then every interval until ctx is done, handing each
// round's outcome to report (nil: ignored). A server runs it so that a retired generation's disk
// is freed while it keeps the store open, whichever process switched the snapshot.
func ReclaimEvery(ctx context.Context, s Store, window, interval time.Duration, report func(dropped []string, err error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		dropped, err := Reclaim(ctx, s, window, time.Now())
		if report != nil && (err == nil || ctx.Err() == nil) { // not the error of its own stop
			report(dropped, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// CollectGenerations drops generations that neither the serving nor the previous mapping nor
// a live hold (Hold) references (a stacked generation references each of its layers) and that
// are older than the newest referenced one and than every live hold's newest. Newer
// unreferenced generations are left alone: an ingest may be writing one right now, or a holder
// has still to read one that was switched in and out since its hold. A crashed ingest's leftover
// is collected after the next successful switch that every holder has caught up with. It returns
// the generations dropped.
func CollectGenerations(ctx context.Context, s Store) ([]string, error) {
	snap, err := Serving(ctx, s)
	if err != nil {
		return nil, err
	}
	holds, err := liveHolds(ctx, s, time.Now())
	if err != nil {
		return nil, err
	}
	referenced := map[string]bool{}
	newest := ""
	for _, m := range []map[string]string{snap.Collections, snap.Previous} {
		for _, g := range m {
			for _, layer := range Layers(g) { // every layer of a stack is read
				referenced[layer] = true
				newest = max(newest, layer)
			}
		}
	}
	for _, h := range holds {
		held := ""
		for _, g := range h.Collections {
			for _, layer := range Layers(g) {
				referenced[layer] = true
				held = max(held, layer)
			}
		}
		if held != "" {
			newest = min(newest, held)
		}
	}
	gens, err := s.Generations(ctx)
	if err != nil {
		return nil, err
	}
	var dropped []string
	for _, g := range gens {
		if referenced[g] || g > newest {
			continue
		}
		if err := s.DropGeneration(ctx, g); err != nil {
			return dropped, err
		}
		dropped = append(dropped, g)
	}
	slices.Sort(dropped)
	return dropped, nil
}

// MaxHoldAge is how long a hold keeps generations after it was last written: a holder that
// stopped (a service no longer running its webhook fan-out) does not keep every later
// generation's disk for ever.
const MaxHoldAge = 24 * time.Hour

// holdPrefix begins the ids of hold records.
const holdPrefix = "hold."

// HoldRecord is what a holder keeps from collection: the generations of a mapping it has still
// to compare against, and, through CollectGenerations, every generation newer than them.
type HoldRecord struct {
	Collections map[string]string `json:"collections"`
	HeldAt      time.Time         `json:"held_at"`
}

// Hold records holder's hold on the generations of collections (a snapshot's mapping) and every
// generation made after them, replacing its previous hold: a reader that compares each switch
// with the one before (the webhook fan-out) holds the mapping it last compared, so that switches
// made before it reads them again are still there to compare. A hold not written again within
// MaxHoldAge holds nothing.
func Hold(ctx context.Context, s Store, holder string, collections map[string]string, now time.Time) error {
	body, err := json.Marshal(HoldRecord{Collections: collections, HeldAt: now.UTC()})
	if err != nil {
		return err
	}
	_, err = Update(ctx, s, systemKind, holdPrefix+holder, func(old Record) (Record, error) {
		var h HoldRecord
		if json.Unmarshal(old.Body, &h) == nil && maps.Equal(h.Collections, collections) && now.Sub(h.HeldAt) < holdRefresh {
			return old, SkipWrite
		}
		old.Body = body
		return old, nil
	}, CreateIfAbsent())
	return err
}

// holdRefresh is how often a hold on the same mapping is written again, well within MaxHoldAge.
const holdRefresh = time.Hour

// liveHolds reads the holds written within MaxHoldAge of now.
func liveHolds(ctx context.Context, s Store, now time.Time) ([]HoldRecord, error) {
	var out []HoldRecord
	after := holdPrefix
	for {
		recs, err := s.ListRecords(ctx, systemKind, after, MaxLimit)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if !strings.HasPrefix(r.ID, holdPrefix) {
				return out, nil
			}
			var h HoldRecord
			if err := json.Unmarshal(r.Body, &h); err != nil {
				return nil, fmt.Errorf("store: hold %s: %w", r.ID, err)
			}
			if now.Sub(h.HeldAt) < MaxHoldAge {
				out = append(out, h)
			}
		}
		if len(recs) < MaxLimit {
			return out, nil
		}
		after = recs[len(recs)-1].ID
	}
}
