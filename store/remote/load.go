package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"providerdir/store"
)

// Bulk loads across the socket. The serving process holds each load (its buffers and run files)
// under a random id; the client adds batches and commits by that id. A client that dies
// mid-load leaves it behind, holding its buffers and gigabytes of runs, so a load untouched for
// loadIdle is aborted then.

const loadIdle = 10 * time.Minute

// loadTable holds the loads in progress of one served store.
type loadTable struct {
	l     store.Loader // nil: the served store cannot load
	idle  time.Duration
	mu    sync.Mutex
	loads map[string]*servedLoad
}

type servedLoad struct {
	mu    sync.Mutex // one call at a time, as store.Loading requires
	ld    store.Loading
	used  time.Time
	timer *time.Timer // aborts the load once it has been idle for the table's idle time
}

func newLoadTable(st store.Store, idle time.Duration) *loadTable {
	l, _ := st.(store.Loader)
	return &loadTable{l: l, idle: idle, loads: map[string]*servedLoad{}}
}

func (t *loadTable) start(ctx context.Context, gen, coll string) (string, error) {
	if t.l == nil {
		return "", fmt.Errorf("remote: the served store cannot bulk-load: %w", errors.ErrUnsupported)
	}
	ld, err := t.l.Load(ctx, gen, coll)
	if err != nil {
		return "", err
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	key := hex.EncodeToString(id)
	s := &servedLoad{ld: ld, used: time.Now()}
	t.mu.Lock()
	t.loads[key] = s
	s.timer = time.AfterFunc(t.idle, func() { t.expire(key) })
	t.mu.Unlock()
	return key, nil
}

// with runs f on a load; end removes the load from the table first (commit, abort).
func (t *loadTable) with(id string, end bool, f func(store.Loading) error) error {
	t.mu.Lock()
	s := t.loads[id]
	if s != nil && end {
		delete(t.loads, id)
		s.timer.Stop()
	}
	t.mu.Unlock()
	if s == nil {
		return fmt.Errorf("%w: no load %q in progress (finished, or abandoned for %s)", store.ErrInvalid, id, t.idle)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := f(s.ld)
	s.used = time.Now()
	return err
}

// expire aborts a load if it has been idle for the table's idle time; a load in the middle of a
// call, or used since, gets its timer set again for the rest of that time.
func (t *loadTable) expire(id string) {
	t.mu.Lock()
	s := t.loads[id]
	if s == nil {
		t.mu.Unlock()
		return
	}
	if !s.mu.TryLock() {
		s.timer.Reset(t.idle)
		t.mu.Unlock()
		return
	}
	if rest := t.idle - time.Since(s.used); rest > 0 {
		s.timer.Reset(rest)
		s.mu.Unlock()
		t.mu.Unlock()
		return
	}
	delete(t.loads, id)
	t.mu.Unlock()
	defer s.mu.Unlock()
	s.ld.Abort()
}

// Load starts a bulk load in the serving process. It fails with errors.ErrUnsupported when the
// served store cannot load.
func (c *Client) Load(ctx context.Context, gen, coll string) (store.Loading, error) {
	r, err := c.call(ctx, "load", request{Generation: gen, Collection: coll})
	if err != nil {
		return nil, err
	}
	return &clientLoading{c: c, id: r.Load}, nil
}

type clientLoading struct {
	c    *Client
	id   string
	done bool
}

func (l *clientLoading) Add(ctx context.Context, docs []store.Document) error {
	_, err := l.c.call(ctx, "loadadd", request{Load: l.id, Docs: docs})
	return err
}

func (l *clientLoading) Commit(ctx context.Context) error {
	if l.done {
		return fmt.Errorf("%w: load already committed or aborted", store.ErrInvalid)
	}
	l.done = true
	_, err := l.c.call(ctx, "loadcommit", request{Load: l.id})
	return err
}

func (l *clientLoading) Abort() {
	if l.done {
		return
	}
	l.done = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = l.c.call(ctx, "loadabort", request{Load: l.id})
}
