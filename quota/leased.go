package quota

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"providerdir/store"
)

// LeaseShare is the part of what a subject's windows have free that one lease may take: a
// replica leases at most 1/LeaseShare of the free slots, so that near a limit leases shrink to
// one slot and every decision is made on the store, as New makes it.
const LeaseShare = 16

// MaxLease bounds the slots of one lease, however much is free.
const MaxLease = 256

// NewLeased returns a limiter for a store that several processes share (replicas on one
// MongoDB) which, unlike New, does not read and write the store on every decision. A request
// that finds no slot of its subject in hand counts a lease in the store (the request's own cost
// and up to 1/LeaseShare of what the windows have free, MaxLease at most) in one
// compare-and-swap, as New counts one request; the subject's next requests in this process
// are admitted from the lease in memory until it is spent or the bucket it was counted in ends
// (the smallest step of the policy's windows, a second for a rolling minute).
//
// What stays as with New: every admitted request is counted in the bucket of the moment it was
// admitted (a lease only admits requests within the buckets it was counted in), so no interval
// of a window's length ever admits more than its limit, however many replicas lease. What
// changes: slots a replica has leased and not used count as used for the other replicas until
// it gives them back, at its next lease of the subject, at the next pass (every interval;
// WriteBehind when every is not positive), or at Close. So a request may be refused while
// another replica holds a few free slots; the leases shrink with what is free, so that is a
// few slots near the limit, for at most a step and an interval. A replica that crashes keeps
// its leftovers counted until they leave the windows. The X-RateLimit fields a replica sends
// count its own lease's leftovers as remaining and the other replicas' as used: exact with one
// replica, close with several. now is the clock (nil means time.Now); log receives the
// failures of the passes (nil discards them; Close returns its own).
func NewLeased(st store.Store, now func() time.Time, every time.Duration, log *slog.Logger) *Limiter {
	if every <= 0 {
		every = WriteBehind
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &leasedMeter{st: st, subjects: newSubjectTable[lease](), now: orNow(now)}
	m.bg.start(every, m.giveBack, log, "give back leased rate-limit slots; they stay counted until the next pass")
	return &Limiter{m: m, now: m.now}
}

// leasedMeter is NewLeased's meter: each subject's lease in this process.
type leasedMeter struct {
	st       store.Store
	subjects *subjectTable[lease]
	// now is the limiter's clock, by which a pass tells which leases have ended.
	now func() time.Time
	bg  background
}

// lease is one subject's slots in this process, guarded by mu.
type lease struct {
	mu      sync.Mutex
	dropped bool // removed from its shard: a request holding it looks it up again
	used    bool // metered since the last pass
	terms   leaseTerms
}

// leaseTerms is what a lease holds: slots counted in the store and not yet spent. Terms with
// nothing granted hold nothing.
type leaseTerms struct {
	policy  Policy
	at      time.Time // when the slots were counted: the buckets they are in
	until   time.Time // the first bucket boundary after at among the policy's windows
	granted int64
	spent   int64
	// counted is the decision of the store after it counted the whole lease; requests admitted
	// from the lease report it with the unspent slots added back as remaining.
	counted Decision
}

// leftover is how many leased slots are still unspent.
func (l *leaseTerms) leftover() int64 { return l.granted - l.spent }

// serves reports whether the lease admits a request of cost n under p at t.
func (l *leaseTerms) serves(p Policy, t time.Time, n int64) bool {
	return l.leftover() >= n && l.holds(p, t)
}

// holds reports whether the lease's slots are in the buckets of p that count a request made at
// t: those of every request the lease admits.
func (l *leaseTerms) holds(p Policy, t time.Time) bool {
	return !t.Before(l.at) && t.Before(l.until) && samePolicy(l.policy, p)
}

// decision is the decision of a request of cost n admitted from the lease at t.
func (l *leaseTerms) decision(t time.Time, n int64) Decision {
	d := l.counted
	d.At, d.Cost = t, n
	d.States = make([]State, len(l.counted.States))
	for i, s := range l.counted.States {
		s.Used -= l.leftover()
		s.Remaining += l.leftover()
		d.States[i] = s
	}
	return d
}

// samePolicy reports whether a and b are one policy with the same windows.
func samePolicy(a, b Policy) bool {
	return a.Name == b.Name && slices.Equal(a.Windows, b.Windows)
}

// hold returns subject id's lease, locked.
func (m *leasedMeter) hold(id string) (*lease, error) {
	if m.bg.closed.Load() {
		return nil, errClosed
	}
	sh := m.subjects.shard(id)
	for {
		l := sh.get(id)
		l.mu.Lock()
		if !l.dropped {
			l.used = true
			return l, nil
		}
		l.mu.Unlock()
	}
}

func (m *leasedMeter) count(ctx context.Context, p Policy, id string, n int64, now func() time.Time) (Decision, error) {
	l, err := m.hold(id)
	if err != nil {
		return Decision{}, err
	}
	defer l.mu.Unlock()
	if t := now(); l.terms.serves(p, t, n) {
		l.terms.spent += n
		return l.terms.decision(t, n), nil
	}
	return m.renew(ctx, l, p, id, n, now)
}

// renew gives back l's leftovers and, when the windows have room for n, counts a new lease of
// n and a share of what else is free, in one compare-and-swap of the subject's record.
func (m *leasedMeter) renew(ctx context.Context, l *lease, p Policy, id string, n int64, now func() time.Time) (Decision, error) {
	var d Decision
	var next leaseTerms
	err := updateWindows(ctx, m.st, id, func(rec store.Record) (store.Record, error) {
		states, err := decode(rec.Body, p)
		if err != nil {
			return rec, err
		}
		returned := giveBackTo(states, &l.terms)
		t := now()
		next = leaseTerms{}
		if d = evaluate(states, t, n); d.Allowed {
			free := d.States[0].Remaining
			for _, s := range d.States[1:] {
				free = min(free, s.Remaining)
			}
			granted := min(max(n, free/LeaseShare), max(n, MaxLease))
			for i := range states {
				states[i].add(t, granted)
			}
			next = leaseTerms{policy: p, at: t, until: nextBoundary(states, t), granted: granted, spent: n, counted: evaluate(states, t, granted).admitted()}
			d = next.decision(t, n)
		} else if !returned {
			return rec, store.SkipWrite
		}
		rec.Body, rec.ExpiresAt = encode(states), expiryAt(states, t)
		return rec, nil
	})
	if err != nil {
		return Decision{}, err
	}
	l.terms = next
	return d, nil
}

// giveBackTo takes l's leftovers out of the buckets they were counted in and reports whether
// there were any. Only the windows of the lease's policy held them (a policy may have changed
// under its name since), and windows that no longer hold those buckets have let them go.
func giveBackTo(states []windowState, l *leaseTerms) bool {
	if l.leftover() <= 0 {
		return false
	}
	for i := range states {
		for _, w := range l.policy.Windows {
			if w.Length == states[i].w.Length && w.Step == states[i].w.Step {
				states[i].remove(l.at, l.leftover())
				break
			}
		}
	}
	return true
}

// expiryAt is when the record of states expires: when its newest bucket stops counting, or at
// once (now) when giving back left it counting nothing.
func expiryAt(states []windowState, now time.Time) time.Time {
	if e := expiryOf(states); !e.IsZero() {
		return e
	}
	return now
}

// nextBoundary is the first moment after t at which any of the windows starts a new bucket.
func nextBoundary(states []windowState, t time.Time) time.Time {
	var first time.Time
	for i := range states {
		b := time.Unix(0, (states[i].bucketOf(t)+1)*int64(states[i].w.Step)).UTC()
		if i == 0 || b.Before(first) {
			first = b
		}
	}
	return first
}

func (m *leasedMeter) peek(ctx context.Context, p Policy, id string, now func() time.Time) (Decision, error) {
	l, err := m.hold(id)
	if err != nil {
		return Decision{}, err
	}
	defer l.mu.Unlock()
	return m.peekHeld(ctx, l, p, id, now)
}

// refund hands n requests counted at at back to the lease when it holds their buckets and is
// still serving: they become leftovers, used again or given back like the others. Otherwise
// they are taken out of the record, by the compare-and-swap New uses: counted under a lease
// given back since, or under one that has ended, whose leftovers are given back apart.
func (m *leasedMeter) refund(ctx context.Context, p Policy, id string, at time.Time, n int64, now func() time.Time) (Decision, error) {
	l, err := m.hold(id)
	if err != nil {
		return Decision{}, err
	}
	defer l.mu.Unlock()
	if l.terms.holds(p, at) && l.terms.holds(p, now()) && l.terms.spent >= n {
		l.terms.spent -= n
		return m.peekHeld(ctx, l, p, id, now)
	}
	err = updateWindows(ctx, m.st, id, func(rec store.Record) (store.Record, error) {
		states, err := decode(rec.Body, p)
		if err != nil {
			return rec, err
		}
		if !refundIn(states, at, n) {
			return rec, store.SkipWrite
		}
		rec.Body, rec.ExpiresAt = encode(states), expiryAt(states, now())
		return rec, nil
	})
	if err != nil {
		return Decision{}, err
	}
	return m.peekHeld(ctx, l, p, id, now)
}

// peekHeld is peek of the held lease l.
func (m *leasedMeter) peekHeld(ctx context.Context, l *lease, p Policy, id string, now func() time.Time) (Decision, error) {
	if t := now(); l.terms.serves(p, t, 1) {
		return l.terms.decision(t, 1), nil
	}
	states, _, err := readWindows(ctx, m.st, p, id)
	if err != nil {
		return Decision{}, err
	}
	return evaluate(states, now(), 1), nil
}

func (m *leasedMeter) close() error { return m.bg.close(m.giveBackAll) }

// giveBack is the periodic pass: it gives back the leftovers of every lease whose bucket has
// ended and drops the subjects that went a whole interval unmetered.
func (m *leasedMeter) giveBack(ctx context.Context) error {
	return m.settleAll(ctx, m.now(), false)
}

// giveBackAll gives back every lease's leftovers, ended or not: the limiter admits nothing more.
func (m *leasedMeter) giveBackAll(ctx context.Context) error {
	return m.settleAll(ctx, m.now(), true)
}

func (m *leasedMeter) settleAll(ctx context.Context, now time.Time, all bool) error {
	failed, first := m.subjects.settle(func(sh *subjectShard[lease], id string, l *lease) error {
		return m.settle(ctx, sh, id, l, now, all)
	})
	if failed > 0 {
		return fmt.Errorf("quota: %d subjects' leased slots not given back: %w", failed, first)
	}
	return nil
}

// settle gives back subject id's leftovers once its lease has ended (any lease, with all), and
// drops the subject from memory when it holds none and went unmetered since the last pass.
// Leftovers whose write fails stay with the lease and are given back by a later pass.
func (m *leasedMeter) settle(ctx context.Context, sh *subjectShard[lease], id string, l *lease, now time.Time, all bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.terms.leftover() > 0 && (all || !now.Before(l.terms.until)) {
		_, err := store.Update(ctx, m.st, RecordKind, id, func(rec store.Record) (store.Record, error) {
			states, err := decode(rec.Body, l.terms.policy)
			if err != nil {
				return rec, err
			}
			if !giveBackTo(states, &l.terms) {
				return rec, store.SkipWrite
			}
			rec.Body, rec.ExpiresAt = encode(states), expiryAt(states, now)
			return rec, nil
		}, store.UpdateAttempts(maxAttempts))
		if err != nil && !errors.Is(err, store.ErrNotFound) { // a record gone has let the slots go
			return fmt.Errorf("quota: give back %s: %w", id, err)
		}
		l.terms = leaseTerms{}
	}
	if l.terms.leftover() == 0 && !l.used {
		l.dropped = true
		sh.remove(id, l)
	}
	l.used = false
	return nil
}
