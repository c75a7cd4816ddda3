// Package quota meters requests against rolling windows whose counts are kept in the store, so
// that every replica sharing a store enforces one quota and a restart forgets nothing; on a
// store one process owns they are counted in memory and written to it behind the decisions
// (see Local metering).
//
// # Semantics
//
// A Window has a Length W, a Limit and a Step g (W a whole multiple of g). Time is cut into
// buckets of g aligned on the Unix epoch; bucket b covers [b·g, (b+1)·g). A request admitted at
// time t is counted in bucket b(t) and keeps its slot until
//
//	release(t) = (b(t)+1)·g + W
//
// that is, at least W and less than W+g after it was admitted. At time now the window counts
// the buckets b(now)-W/g ... b(now) (W/g+1 buckets), exactly the requests whose release is
// after now. A request is admitted when every window of its policy counts fewer than Limit;
// otherwise it is refused and not counted.
//
// What this guarantees, and how the boundaries fall:
//
//   - In any interval of length W, closed at both ends, at most Limit requests are admitted: a
//     request admitted at t is still counted at every now <= t+W, because release(t) > t+W.
//   - A slot is never held longer than W+g: the Limit+1st request inside a rolling W is refused,
//     and once the oldest counted request's bucket has left the window (at release(t), to the
//     nanosecond) the next request is admitted. With the steps used here (1 s for a minute,
//     10 s for an hour, 1 min for 24 hours) a slot comes back at most that late.
//   - A refused request costs nothing: it writes nothing, so a client hammering at a full
//     quota does not extend its own wait. A request admitted here and refused by a later check
//     (a resolver batch over its per-NPI ceiling) is taken back with Refund, out of the bucket
//     it was counted in.
//
// # Storage and concurrency
//
// One record per (policy, subject) holds the non-empty buckets of all the policy's windows and
// is updated by compare-and-swap: read, decide, write back with the version read; a lost race
// reads again. All windows of a policy are decided in one write, so the per-minute and per-day
// limits of the pilot tier can never disagree, and under any number of racing requests and
// replicas exactly as many are admitted as there are free slots: each admission is one
// successful conditional write, made only after seeing a free slot in the version it replaces.
// A refusal writes nothing, so there is nothing to release.
//
// Counters with Incr were the other candidate: one counter per bucket, reserve with +1, release
// with -1 on refusal. They do not fit. A window is the sum of up to 1,441 buckets and the store
// reads counters one at a time (and only by writing), and with two windows a reservation held
// in one by a request the other will refuse makes a racing request see a full window that is
// not: "exactly the quota succeeds" fails. One small record costs one read and one write.
//
// # Local metering
//
// A limiter from New reads and writes the record on every decision. On a store one process
// owns (the embedded store), NewLocal's limiter decides in memory instead: it reads a subject's
// record the first time it meets the subject, counts there under a lock of the subject's own,
// and writes every subject it counted in back to the store once a second and at Close, dropping
// from memory the subjects that went a second unmetered. The decisions are the same ones (the
// same windows, pruned and counted by the same code); what changes is what a crash of the
// process forgets: the counts of its last second, which on New's records only a crash of the
// machine forgets (the store writes them unsynced). That buys the metered read most of its cost
// back: a decision is a map look-up and a few additions instead of a read and a write of the
// store, and a busy subject is written once a second, not once a request.
//
// # Leased metering
//
// Replicas sharing a MongoDB store cannot count in memory, and New's read and write on every
// decision is a round trip or two added to every request. NewLeased's limiter takes slots in
// advance instead: the request that finds none of its subject's in hand counts a lease in the
// record by the same compare-and-swap (its own cost and a sixteenth of what is free, at most
// MaxLease), and the subject's next requests in that process are admitted from the lease in
// memory. A lease admits only within the buckets it was counted in, so every request is counted
// where New would have counted it and the first guarantee above holds as it is; what it gives
// up is exactness when replicas race, since one replica's unspent slots count as used for the
// others until it gives them back (with its next lease, at the next pass, at Close). Leases
// shrink with what is free, so near a limit they are one slot and decisions are New's.
//
// The record expires when its newest bucket leaves every window, so idle subjects leave no
// trace. Expiry only reclaims space; correctness never depends on it (buckets are pruned by
// time on every read), which also means a limiter may run on a clock of its own (tests) as long
// as that clock does not run behind the real one.
package quota

import (
	"errors"
	"fmt"
	"time"

	"providerdir/store"
)

// Window is one rolling limit: at most Limit requests in any interval of Length.
type Window struct {
	// Name identifies the window to clients: the supply API's X-RateLimit-Window value and the
	// policy identifier of the RateLimit and RateLimit-Policy fields.
	Name   string
	Length time.Duration
	// Step is the bucket size: the resolution at which slots come back (see the package
	// comment). Length must be a whole multiple of it.
	Step  time.Duration
	Limit int64
}

// Standard window names, as clients see them.
const (
	NameMinute = "rolling-1m"
	NameHour   = "rolling-1h"
	NameDay    = "rolling-24h"
)

// RollingMinute is a limit per rolling 60 seconds, at one-second resolution.
func RollingMinute(limit int64) Window {
	return Window{Name: NameMinute, Length: time.Minute, Step: time.Second, Limit: limit}
}

// RollingHour is a limit per rolling hour, at ten-second resolution.
func RollingHour(limit int64) Window {
	return Window{Name: NameHour, Length: time.Hour, Step: 10 * time.Second, Limit: limit}
}

// RollingDay is a limit per rolling 24 hours, at one-minute resolution.
func RollingDay(limit int64) Window {
	return Window{Name: NameDay, Length: 24 * time.Hour, Step: time.Minute, Limit: limit}
}

// Policy is a named set of windows that all apply to the same requests.
type Policy struct {
	// Name scopes the counts: the same subject under two policies is counted twice, apart.
	// Letters, digits, '-', '_' and '.'.
	Name    string
	Windows []Window
}

// maxBuckets bounds Length/Step, which bounds a record's size.
const maxBuckets = 10000

// Validate reports a policy the limiter cannot enforce as described.
func (p Policy) Validate() error {
	if err := store.ValidateName("quota policy", p.Name); err != nil {
		return err
	}
	if len(p.Windows) == 0 {
		return fmt.Errorf("quota: policy %s has no window", p.Name)
	}
	for _, w := range p.Windows {
		switch {
		case w.Name == "":
			return fmt.Errorf("quota: policy %s has a window without a name", p.Name)
		case w.Step <= 0 || w.Length < w.Step || w.Length%w.Step != 0:
			return fmt.Errorf("quota: window %s: length %s is not a positive multiple of step %s", w.Name, w.Length, w.Step)
		case w.Length/w.Step > maxBuckets:
			return fmt.Errorf("quota: window %s: more than %d steps", w.Name, maxBuckets)
		case w.Limit < 0:
			return fmt.Errorf("quota: window %s: negative limit", w.Name)
		}
	}
	return nil
}

var errCorrupt = errors.New("quota: corrupt window record")
