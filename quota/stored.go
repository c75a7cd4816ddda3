package quota

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"providerdir/store"
)

// storedMeter keeps every subject's windows in the store and nothing in memory: each decision
// is a read and, when it admits, a compare-and-swap write (see the package comment).
type storedMeter struct {
	st store.Store
	// turns serialise the decisions of one subject within this process (striped by a hash of
	// the record id). Correctness does not need them: the compare-and-swap does. They keep a
	// burst of one key's requests on one replica from racing each other for the same record,
	// which on a networked store costs a round trip per lost race; what is left to race is one
	// request per replica.
	turns [256]chan struct{}
}

func newStoredMeter(st store.Store) *storedMeter {
	m := &storedMeter{st: st}
	for i := range m.turns {
		m.turns[i] = make(chan struct{}, 1)
	}
	return m
}

// turn waits for id's turn in this process; the returned function ends it.
func (m *storedMeter) turn(ctx context.Context, id string) (func(), error) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	c := m.turns[h.Sum32()%uint32(len(m.turns))]
	select {
	case c <- struct{}{}:
		return func() { <-c }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// maxAttempts bounds the compare-and-swap retries of one decision. Every lost race is another
// request's success, so the bound is only reached by more than this many requests racing for
// one subject at once, far beyond what one key sends.
const maxAttempts = 1000

func (m *storedMeter) count(ctx context.Context, p Policy, id string, n int64, now func() time.Time) (Decision, error) {
	return m.change(ctx, p, id, func(states []windowState) (Decision, time.Time, bool) {
		d, counted := countIn(states, now(), n)
		return d, expiryOf(states), counted
	})
}

func (m *storedMeter) refund(ctx context.Context, p Policy, id string, at time.Time, n int64, now func() time.Time) (Decision, error) {
	return m.change(ctx, p, id, func(states []windowState) (Decision, time.Time, bool) {
		took := refundIn(states, at, n)
		t := now()
		return evaluate(states, t, 1), expiryAt(states, t), took
	})
}

// change applies apply to the subject's windows in its turn, by compare-and-swap: apply returns
// the decision, the record's new expiry and whether the windows changed; unchanged windows are
// not written.
func (m *storedMeter) change(ctx context.Context, p Policy, id string, apply func([]windowState) (Decision, time.Time, bool)) (Decision, error) {
	done, err := m.turn(ctx, id)
	if err != nil {
		return Decision{}, err
	}
	defer done()
	var d Decision
	err = updateWindows(ctx, m.st, id, func(rec store.Record) (store.Record, error) {
		states, err := decode(rec.Body, p)
		if err != nil {
			return rec, err
		}
		var expires time.Time
		var changed bool
		if d, expires, changed = apply(states); !changed {
			return rec, store.SkipWrite
		}
		rec.Body, rec.ExpiresAt = encode(states), expires
		return rec, nil
	})
	if err != nil {
		return Decision{}, err
	}
	return d, nil
}

// updateWindows changes the record id by compare-and-swap (store.Update), creating it when it
// is absent, and names the record in its error.
func updateWindows(ctx context.Context, st store.Store, id string, change func(store.Record) (store.Record, error)) error {
	_, err := store.Update(ctx, st, RecordKind, id, change, store.CreateIfAbsent(), store.UpdateAttempts(maxAttempts))
	switch {
	case errors.Is(err, store.ErrConflict):
		return fmt.Errorf("quota: %s: gave up after %d lost races", id, maxAttempts)
	case err != nil:
		return fmt.Errorf("quota: %s: %w", id, err)
	}
	return nil
}

func (m *storedMeter) peek(ctx context.Context, p Policy, id string, now func() time.Time) (Decision, error) {
	states, _, err := readWindows(ctx, m.st, p, id)
	if err != nil {
		return Decision{}, err
	}
	return evaluate(states, now(), 1), nil
}

func (m *storedMeter) close() error { return nil }
