package quota

import (
	"context"
	"hash/maphash"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// passTimeout bounds one background pass of a meter that holds subjects in memory.
const passTimeout = 30 * time.Second

// subjectTable holds the subjects a meter keeps in memory, in shards so that requests of
// different subjects rarely meet on a lock. S is the meter's state of one subject.
type subjectTable[S any] struct {
	seed   maphash.Seed
	shards [64]subjectShard[S]
}

type subjectShard[S any] struct {
	mu       sync.Mutex
	subjects map[string]*S
}

func newSubjectTable[S any]() *subjectTable[S] {
	t := &subjectTable[S]{seed: maphash.MakeSeed()}
	for i := range t.shards {
		t.shards[i].subjects = map[string]*S{}
	}
	return t
}

// shard is the shard id lives in.
func (t *subjectTable[S]) shard(id string) *subjectShard[S] {
	return &t.shards[maphash.String(t.seed, id)%uint64(len(t.shards))]
}

// get returns subject id, added in its zero state when the table lacks it.
func (sh *subjectShard[S]) get(id string) *S {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	s := sh.subjects[id]
	if s == nil {
		s = new(S)
		sh.subjects[id] = s
	}
	return s
}

// remove drops id from the shard if s is still its state.
func (sh *subjectShard[S]) remove(id string, s *S) {
	sh.mu.Lock()
	if sh.subjects[id] == s {
		delete(sh.subjects, id)
	}
	sh.mu.Unlock()
}

// heldSubject is one entry of a shard, taken out from under its lock.
type heldSubject[S any] struct {
	id string
	s  *S
}

// settle calls fn for every subject held when its shard is visited, outside the shard's lock
// (fn may take the subject's own lock and call the store), and returns how many calls failed
// and the first failure.
func (t *subjectTable[S]) settle(fn func(sh *subjectShard[S], id string, s *S) error) (failed int, first error) {
	var batch []heldSubject[S]
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		batch = batch[:0]
		for id, s := range sh.subjects {
			batch = append(batch, heldSubject[S]{id, s})
		}
		sh.mu.Unlock()
		for _, h := range batch {
			if err := fn(sh, h.id, h.s); err != nil {
				if failed++; first == nil {
					first = err
				}
			}
		}
	}
	return failed, first
}

// len is how many subjects the table holds.
func (t *subjectTable[S]) len() int {
	n := 0
	for i := range t.shards {
		t.shards[i].mu.Lock()
		n += len(t.shards[i].subjects)
		t.shards[i].mu.Unlock()
	}
	return n
}

// background runs a meter's pass over its subjects every interval on a goroutine of its own,
// and once more when the meter closes, after which the meter refuses decisions.
type background struct {
	closed    atomic.Bool
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// start runs pass every interval until close; a failed pass is logged with failure and the
// pass after it tries again.
func (b *background) start(every time.Duration, pass func(context.Context) error, log *slog.Logger, failure string) {
	b.stop, b.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(b.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), passTimeout)
				if err := pass(ctx); err != nil {
					log.Warn(failure, slog.Any("error", err))
				}
				cancel()
			}
		}
	}()
}

// close stops the periodic passes, runs last once, and returns its error, the same on every
// call.
func (b *background) close(last func(context.Context) error) error {
	b.closeOnce.Do(func() {
		b.closed.Store(true)
		close(b.stop)
		<-b.done
		ctx, cancel := context.WithTimeout(context.Background(), passTimeout)
		defer cancel()
		b.closeErr = last(ctx)
	})
	return b.closeErr
}
