package quota

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"providerdir/store"
)

// WriteBehind is how often a local limiter writes the windows it has counted in to its store.
const WriteBehind = time.Second

// errClosed is a decision asked of a local or leasing limiter after Close.
var errClosed = errors.New("quota: the limiter is closed")

// NewLocal returns a limiter for a store that one process owns (the embedded store, which
// Pebble locks to one process). It holds the windows of the subjects it meters in memory, so a
// decision is a lock and a few additions where New's is a read and a write of the store, and it
// writes each subject it counted in to st every interval (WriteBehind when every is not
// positive) and at Close. A subject's windows are read from st when it is first metered and
// dropped from memory once it has gone a whole interval unmetered, so memory holds the
// subjects of the last interval or two.
//
// What a crash forgets: a restart after Close forgets nothing, and a crash of the process
// forgets what was counted since the last write, at most one interval of it, as a crash of the
// machine forgets the last moments of New's unsynced writes. Processes sharing a store must all
// use New or NewLeased: two local limiters on one store would each count alone. now is the
// clock (nil means time.Now); log receives the failures of the writes behind the decisions (nil
// discards them; Close returns its own).
func NewLocal(st store.Store, now func() time.Time, every time.Duration, log *slog.Logger) *Limiter {
	if every <= 0 {
		every = WriteBehind
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &localMeter{st: st, subjects: newSubjectTable[subject]()}
	m.bg.start(every, m.writeBehind, log, "write the rate-limit windows; the counts stay in memory and are written again")
	return &Limiter{m: m, now: orNow(now)}
}

// localMeter is NewLocal's meter: the subjects in use and the pass that writes them behind.
type localMeter struct {
	st       store.Store
	subjects *subjectTable[subject]
	// writing is held by a write-behind pass, so that passes never overlap: a subject's stored
	// version is only changed under it.
	writing sync.Mutex
	bg      background
}

// subject is one record's windows as this process holds them, guarded by mu.
type subject struct {
	mu      sync.Mutex
	loaded  bool  // states and version were read from the store
	dropped bool  // removed from its shard: a request holding it looks it up again
	version int64 // of the stored record; 0 when there is none
	states  []windowState
	dirty   bool // counted in since it was last written
	used    bool // metered since the last write-behind pass
}

func (m *localMeter) count(ctx context.Context, p Policy, id string, n int64, now func() time.Time) (Decision, error) {
	s, err := m.hold(ctx, p, id)
	if err != nil {
		return Decision{}, err
	}
	defer s.mu.Unlock()
	d, counted := countIn(s.states, now(), n)
	if counted {
		s.dirty = true
	}
	return d, nil
}

func (m *localMeter) refund(ctx context.Context, p Policy, id string, at time.Time, n int64, now func() time.Time) (Decision, error) {
	s, err := m.hold(ctx, p, id)
	if err != nil {
		return Decision{}, err
	}
	defer s.mu.Unlock()
	if refundIn(s.states, at, n) {
		s.dirty = true
	}
	return evaluate(s.states, now(), 1), nil
}

func (m *localMeter) peek(ctx context.Context, p Policy, id string, now func() time.Time) (Decision, error) {
	s, err := m.hold(ctx, p, id)
	if err != nil {
		return Decision{}, err
	}
	defer s.mu.Unlock()
	return evaluate(s.states, now(), 1), nil
}

// hold returns subject id locked, its windows read from the store if this process does not
// hold them yet and matched to p's windows.
func (m *localMeter) hold(ctx context.Context, p Policy, id string) (*subject, error) {
	if m.bg.closed.Load() {
		return nil, errClosed
	}
	sh := m.subjects.shard(id)
	for {
		s := sh.get(id)
		s.mu.Lock()
		if s.dropped {
			s.mu.Unlock()
			continue
		}
		switch {
		case !s.loaded:
			states, version, err := readWindows(ctx, m.st, p, id)
			if err != nil {
				s.mu.Unlock()
				return nil, err
			}
			s.states, s.version, s.loaded = states, version, true
		case !sameWindows(s.states, p):
			// The policy was changed under its name: carry the counts over as a stored record's
			// are (decode cannot fail on what encode wrote).
			s.states, _ = decode(encode(s.states), p)
		}
		s.used = true
		return s, nil
	}
}

// sameWindows reports whether states are p's windows, in p's order.
func sameWindows(states []windowState, p Policy) bool {
	if len(states) != len(p.Windows) {
		return false
	}
	for i := range states {
		if states[i].w != p.Windows[i] {
			return false
		}
	}
	return true
}

func (m *localMeter) close() error { return m.bg.close(m.writeBehind) }

// writeBehind writes every subject counted in since its last write, and drops from memory the
// subjects that were neither metered nor counted in since the previous pass. A subject whose
// write fails stays dirty and is written again by the next pass.
func (m *localMeter) writeBehind(ctx context.Context) error {
	m.writing.Lock()
	defer m.writing.Unlock()
	failed, first := m.subjects.settle(func(sh *subjectShard[subject], id string, s *subject) error {
		return m.settle(ctx, sh, id, s)
	})
	if failed > 0 {
		return fmt.Errorf("quota: %d subjects' windows not written: %w", failed, first)
	}
	return nil
}

// settle writes subject id if it is dirty, or drops it from its shard if it went unused.
func (m *localMeter) settle(ctx context.Context, sh *subjectShard[subject], id string, s *subject) error {
	s.mu.Lock()
	if !s.dirty {
		if !s.used {
			s.dropped = true
			sh.remove(id, s)
		}
		s.used = false
		s.mu.Unlock()
		return nil
	}
	rec := store.Record{Kind: RecordKind, ID: id, Version: s.version, Body: encode(s.states), ExpiresAt: expiryOf(s.states)}
	s.dirty, s.used = false, false
	s.mu.Unlock()
	version, err := m.write(ctx, rec)
	s.mu.Lock()
	if err != nil {
		s.dirty = true
	} else {
		s.version = version
	}
	s.mu.Unlock()
	return err
}

// write stores rec over whatever record id holds and returns the version written. The record
// may not be the one this process last wrote: it expired while its subject stood idle in
// memory, or it was deleted. This process's windows are the current ones either way. Windows
// that no longer count anything delete the record rather than store one that never expires.
func (m *localMeter) write(ctx context.Context, rec store.Record) (int64, error) {
	if rec.ExpiresAt.IsZero() {
		if rec.Version == 0 {
			return 0, nil
		}
		if err := m.st.DeleteRecord(ctx, RecordKind, rec.ID, 0); err != nil && !errors.Is(err, store.ErrNotFound) {
			return 0, fmt.Errorf("quota: delete %s: %w", rec.ID, err)
		}
		return 0, nil
	}
	for attempt := 1; ; attempt++ {
		got, err := m.st.PutRecord(ctx, rec)
		if err == nil {
			return got.Version, nil
		}
		if !errors.Is(err, store.ErrConflict) || attempt == 3 {
			return 0, fmt.Errorf("quota: write %s: %w", rec.ID, err)
		}
		cur, err := m.st.GetRecord(ctx, RecordKind, rec.ID)
		switch {
		case err == nil:
			rec.Version = cur.Version
		case errors.Is(err, store.ErrNotFound):
			rec.Version = 0
		default:
			return 0, fmt.Errorf("quota: read %s: %w", rec.ID, err)
		}
	}
}
