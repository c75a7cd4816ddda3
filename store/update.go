package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// DefaultUpdateAttempts is how many times Update reads and compare-and-swaps a record before it
// gives up with ErrConflict, unless told otherwise (UpdateAttempts). Every lost race is another
// writer's success, so reaching it takes that many writers winning one after another.
const DefaultUpdateAttempts = 100

// SkipWrite is returned by an Update's change function to leave the record as it is: Update then
// returns the record as read (a zero Record with Kind and ID set when there was none) and no
// error. It is how a change that finds nothing to do, or a decision that must not be recorded,
// ends the update without writing.
//
//lint:ignore ST1012 a signal to stop, like fs.SkipDir, not a failure
var SkipWrite = errors.New("store: skip write")

// UpdateOption adjusts one Update.
type UpdateOption func(*updateConfig)

type updateConfig struct {
	create   bool
	attempts int
}

// CreateIfAbsent makes Update create the record when there is none (or it has expired): change
// is then called with a Record holding only Kind and ID (Version 0, no Body), and what it
// returns is written as a create, which loses to a concurrent create like any other race.
// Without it, Update on an absent record returns ErrNotFound and never calls change.
func CreateIfAbsent() UpdateOption {
	return func(c *updateConfig) { c.create = true }
}

// UpdateAttempts sets how many read-and-swap rounds Update tries before it returns ErrConflict
// (DefaultUpdateAttempts when n is less than 1). One attempt makes Update a single
// read-modify-write that reports a lost race instead of redoing the change on newer data.
func UpdateAttempts(n int) UpdateOption {
	return func(c *updateConfig) { c.attempts = n }
}

// Update changes the record (kind, id) by compare-and-swap: it reads the record, hands it to
// change, and writes what change returns at the version it read. When another writer wrote in
// between, it waits a short random time (growing with each lost race, so racing writers spread
// out) and does it all again on the newer record. So change may be called several times and
// must be pure: it may compute from old and from values it captures, and record its outcome in
// captured variables (the last call's outcome is the one that was written), but must have no
// other effect.
//
// What is written:
//   - Body and ExpiresAt are those change returns; Kind, ID and Version it returns are ignored
//     (the key is the one given, the version the one read). A change that starts from old keeps
//     the record's expiry; one that builds a Record afresh sets it (zero: never expires).
//   - A record that expires between the read and the write is gone: the write loses, and the
//     next round reads it as absent.
//
// Outcomes:
//   - the record as stored, with its new Version, after a write;
//   - the record as read and no error when change returns SkipWrite;
//   - ErrNotFound (change not called) when the record is absent, unless CreateIfAbsent;
//   - change's own error, as it returned it, with nothing written;
//   - ErrConflict after the attempts (DefaultUpdateAttempts or UpdateAttempts) all lost;
//   - the context's error when ctx ends between attempts, and any other store error as is.
func Update(ctx context.Context, s Store, kind, id string, change func(old Record) (Record, error), opts ...UpdateOption) (Record, error) {
	cfg := updateConfig{attempts: DefaultUpdateAttempts}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.attempts < 1 {
		cfg.attempts = DefaultUpdateAttempts
	}
	for attempt := range cfg.attempts {
		if attempt > 0 {
			if err := updateBackoff(ctx, attempt-1); err != nil {
				return Record{}, err
			}
		}
		rec, err := updateOnce(ctx, s, kind, id, change, cfg.create)
		if !errors.Is(err, ErrConflict) {
			return rec, err
		}
	}
	return Record{}, ErrConflict
}

// updateOnce is one round of Update: read, change, compare-and-swap.
func updateOnce(ctx context.Context, s Store, kind, id string, change func(Record) (Record, error), create bool) (Record, error) {
	old, err := s.GetRecord(ctx, kind, id)
	switch {
	case errors.Is(err, ErrNotFound) && create:
		old = Record{Kind: kind, ID: id}
	case err != nil:
		return Record{}, err
	}
	next, err := change(old)
	if errors.Is(err, SkipWrite) {
		return old, nil
	}
	if err != nil {
		return Record{}, err
	}
	next.Kind, next.ID, next.Version = kind, id, old.Version
	return s.PutRecord(ctx, next)
}

// updateBackoff waits a random time below a ceiling that doubles with each lost race, up to
// 128 times the first, so that writers who collided do not collide again in step.
func updateBackoff(ctx context.Context, lost int) error {
	ceiling := 100 * time.Microsecond << min(lost, 7)
	t := time.NewTimer(rand.N(ceiling) + time.Microsecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
