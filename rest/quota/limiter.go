package quota

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"providerdir/store"
)

// RecordKind is the store record kind of the window records.
const RecordKind = "quota"

// Limiter decides requests against policies. It holds no state of its own: everything is in the
// store, so any number of limiters (one per replica) on one store enforce one quota.
type Limiter struct {
	st  store.Store
	now func() time.Time
	// turns serialise the Allow calls of one subject within this process (striped by a hash of
	// the record id). Correctness does not need them: the compare-and-swap does. They keep a
	// burst of one key's requests on one replica from racing each other for the same record,
	// which on a networked store costs a round trip per lost race; what is left to race is one
	// request per replica.
	turns [256]chan struct{}
}

// New returns a limiter on st. now is its clock; nil means time.Now.
func New(st store.Store, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	l := &Limiter{st: st, now: now}
	for i := range l.turns {
		l.turns[i] = make(chan struct{}, 1)
	}
	return l
}

// turn waits for id's turn in this process; the returned function ends it.
func (l *Limiter) turn(ctx context.Context, id string) (func(), error) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	c := l.turns[h.Sum32()%uint32(len(l.turns))]
	select {
	case c <- struct{}{}:
		return func() { <-c }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// maxAttempts bounds the compare-and-swap retries of one Allow. Every lost race is another
// request's success, so the bound is only reached by more than this many requests racing for
// one subject at once, far beyond what one key sends.
const maxAttempts = 1000

// Allow admits one request of subject under p, counting it in every window, or refuses it
// without counting it. subject names who is metered ("key:...", "ip:..."); the record id is
// the policy name and the subject.
func (l *Limiter) Allow(ctx context.Context, p Policy, subject string) (Decision, error) {
	return l.AllowN(ctx, p, subject, 1)
}

// AllowN is Allow for something that costs n units at once (a batch of n identifiers metered
// one by one): admitted and counted n times when every window has n free slots, else refused
// and counted not at all. n must be at least 1 and at most every window's limit.
func (l *Limiter) AllowN(ctx context.Context, p Policy, subject string, n int64) (Decision, error) {
	if err := p.Validate(); err != nil {
		return Decision{}, err
	}
	for _, w := range p.Windows {
		if n < 1 || n > w.Limit {
			return Decision{}, fmt.Errorf("quota: policy %s: a cost of %d never fits window %s of %d", p.Name, n, w.Name, w.Limit)
		}
	}
	id := p.Name + "/" + subject
	done, err := l.turn(ctx, id)
	if err != nil {
		return Decision{}, err
	}
	defer done()
	var d Decision
	_, err = store.Update(ctx, l.st, RecordKind, id, func(rec store.Record) (store.Record, error) {
		states, err := decode(rec.Body, p)
		if err != nil {
			return rec, err
		}
		now := l.now()
		if d = evaluate(states, now, n); !d.Allowed {
			return rec, store.SkipWrite
		}
		var expires time.Time
		for i := range states {
			states[i].add(now, n)
			if e := states[i].expiry(); e.After(expires) {
				expires = e
			}
		}
		rec.Body, rec.ExpiresAt = encode(states), expires
		d = evaluate(states, now, n).admitted()
		return rec, nil
	}, store.CreateIfAbsent(), store.UpdateAttempts(maxAttempts))
	switch {
	case errors.Is(err, store.ErrConflict):
		return Decision{}, fmt.Errorf("quota: %s: gave up after %d lost races", id, maxAttempts)
	case err != nil:
		return Decision{}, fmt.Errorf("quota: %s: %w", id, err)
	}
	return d, nil
}

// Peek reports what Allow would decide, counting nothing. Responses that must describe a
// quota without spending it (public endpoints, authentication failures) use it.
func (l *Limiter) Peek(ctx context.Context, p Policy, subject string) (Decision, error) {
	if err := p.Validate(); err != nil {
		return Decision{}, err
	}
	states, err := l.read(ctx, p, p.Name+"/"+subject)
	if err != nil {
		return Decision{}, err
	}
	return evaluate(states, l.now(), 1), nil
}

// read returns the windows of the record id (none counted when there is no record).
func (l *Limiter) read(ctx context.Context, p Policy, id string) ([]windowState, error) {
	rec, err := l.st.GetRecord(ctx, RecordKind, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("quota: read %s: %w", id, err)
	}
	states, err := decode(rec.Body, p)
	if err != nil {
		return nil, fmt.Errorf("quota: %s: %w", id, err)
	}
	return states, nil
}

// evaluate prunes the windows to now and decides whether cost more requests fit in all of them.
func evaluate(states []windowState, now time.Time, cost int64) Decision {
	d := Decision{Allowed: true, At: now, States: make([]State, len(states)), Cost: cost, ready: make([]time.Time, len(states))}
	for i := range states {
		states[i].prune(now)
		d.States[i] = states[i].state(now)
		d.ready[i] = states[i].readyFor(now, cost)
		if d.States[i].Remaining < cost {
			d.Allowed = false
		}
	}
	return d
}

// admitted marks a decision computed after counting the request as an admission: the windows
// may be full now, and that is the next request's concern.
func (d Decision) admitted() Decision {
	d.Allowed = true
	return d
}
