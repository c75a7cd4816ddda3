package quota

import (
	"context"
	"errors"
	"fmt"
	"time"

	"providerdir/store"
)

// RecordKind is the store record kind of the window records.
const RecordKind = "quota"

// Limiter decides requests against policies. Where the counts are held is its meter's concern:
// in the store on every decision (New), so that any number of limiters (one per replica) on
// one store enforce one quota, or in this process and written to the store behind the
// decisions (NewLocal), for a store one process owns.
type Limiter struct {
	m   meter
	now func() time.Time
}

// meter holds the windows of the subjects a limiter decides on. count decides a request of
// cost n on record id under p and counts it when admitted; peek decides one of cost 1 and
// counts nothing; refund takes n requests counted at at back out of the windows and then peeks.
// All read the clock only once they hold the subject's current windows, so that a decision is
// never made on a time older than the counts it sees.
type meter interface {
	count(ctx context.Context, p Policy, id string, n int64, now func() time.Time) (Decision, error)
	peek(ctx context.Context, p Policy, id string, now func() time.Time) (Decision, error)
	refund(ctx context.Context, p Policy, id string, at time.Time, n int64, now func() time.Time) (Decision, error)
	close() error
}

// New returns a limiter that reads and writes the windows in st on every decision: every
// process on st enforces one quota with it. now is its clock; nil means time.Now.
func New(st store.Store, now func() time.Time) *Limiter {
	return &Limiter{m: newStoredMeter(st), now: orNow(now)}
}

func orNow(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// Close ends the limiter: a local limiter writes what it has counted since its last write to
// the store and stops writing. Decisions after Close are an error. Close is safe to call more
// than once.
func (l *Limiter) Close() error { return l.m.close() }

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
	return l.m.count(ctx, p, p.Name+"/"+subject, n, l.now)
}

// Peek reports what Allow would decide, counting nothing. Responses that must describe a
// quota without spending it (public endpoints, authentication failures) use it.
func (l *Limiter) Peek(ctx context.Context, p Policy, subject string) (Decision, error) {
	if err := p.Validate(); err != nil {
		return Decision{}, err
	}
	return l.m.peek(ctx, p, p.Name+"/"+subject, l.now)
}

// Refund takes back a request that Allow or AllowN admitted as d (of subject under p) and that
// a later check refused after all (a resolver batch over its per-NPI ceiling): its d.Cost units
// leave the bucket they were counted in, so that a refused request is counted nowhere. It
// returns what Peek would after it, for the rate-limit fields of the refusal. Between the
// admission and the refund the units count as used, for this process and every replica, like a
// lease's leftovers: a request of the same subject in that instant may be refused with the last
// slot, and none is ever admitted beyond the limit. A refund after the bucket has left every
// window has nothing left to take back. d must be an admitted decision of p for subject,
// refunded once.
func (l *Limiter) Refund(ctx context.Context, p Policy, subject string, d Decision) (Decision, error) {
	if err := p.Validate(); err != nil {
		return Decision{}, err
	}
	if !d.Allowed || d.Cost < 1 {
		return Decision{}, fmt.Errorf("quota: policy %s: only an admitted request can be refunded", p.Name)
	}
	return l.m.refund(ctx, p, p.Name+"/"+subject, d.At, d.Cost, l.now)
}

// refundIn takes n requests counted at at out of every window of states and reports whether
// any window held them.
func refundIn(states []windowState, at time.Time, n int64) bool {
	took := false
	for i := range states {
		before := states[i].used()
		states[i].remove(at, n)
		took = took || states[i].used() != before
	}
	return took
}

// readWindows returns the windows of the record id under p and the record's version (none
// counted, version 0, when there is no record).
func readWindows(ctx context.Context, st store.Store, p Policy, id string) ([]windowState, int64, error) {
	rec, err := st.GetRecord(ctx, RecordKind, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, 0, fmt.Errorf("quota: read %s: %w", id, err)
	}
	states, err := decode(rec.Body, p)
	if err != nil {
		return nil, 0, fmt.Errorf("quota: %s: %w", id, err)
	}
	return states, rec.Version, nil
}

// countIn decides a request of cost n against states at now and counts it in every window
// when it is admitted; counted says whether it was, and so whether states changed.
func countIn(states []windowState, now time.Time, n int64) (d Decision, counted bool) {
	if d = evaluate(states, now, n); !d.Allowed {
		return d, false
	}
	for i := range states {
		states[i].add(now, n)
	}
	return evaluate(states, now, n).admitted(), true
}

// expiryOf is when the newest bucket of any window stops counting: the record of states holds
// nothing after it.
func expiryOf(states []windowState) time.Time {
	var expires time.Time
	for i := range states {
		if e := states[i].expiry(); e.After(expires) {
			expires = e
		}
	}
	return expires
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
