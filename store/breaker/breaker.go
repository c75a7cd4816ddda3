// Package breaker fails store calls fast while the store cannot be reached. A networked
// backend that is down makes every call wait out its timeouts before failing; with a circuit
// breaker in front, after Threshold calls in a row failed with store.ErrUnavailable the next
// calls fail at once with store.ErrUnavailable for a cool-down, then one call is let through as
// a probe: if the store answers it the circuit closes and calls flow again, otherwise it stays
// open for another cool-down. So clients get their 503 at once instead of after the timeouts,
// the store is not hammered while it restarts, and service resumes without a restart.
//
// Only unavailability counts. An answer of any kind (a document, ErrNotFound, ErrConflict) shows
// the store is there; a call whose caller went away tells nothing and changes nothing.
package breaker

import (
	"fmt"
	"sync"
	"time"

	"providerdir/store"
)

// Defaults of New.
const (
	// DefaultThreshold is how many calls in a row must fail with store.ErrUnavailable to open
	// the circuit: enough that one dropped connection does not, few enough that a dead store is
	// noticed within the first handful of requests.
	DefaultThreshold = 5
	// DefaultCoolDown is how long an open circuit refuses calls before it probes the store; the
	// Retry-After clients are told is the same (store.RetryAfter).
	DefaultCoolDown = store.RetryAfter
)

// State is the circuit's state.
type State int

const (
	// Closed lets every call through.
	Closed State = iota
	// Open refuses every call until the cool-down has passed.
	Open
	// Probing lets one call through to try the store and refuses the others until it ends.
	Probing
)

func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case Probing:
		return "probing"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Outcome is what a call's result says about the store.
type Outcome int

const (
	// Answered: the store answered, whatever it said.
	Answered Outcome = iota
	// Unavailable: the store could not be reached or did not answer in time.
	Unavailable
	// Unknown: the call ended without telling either (its caller gave up first).
	Unknown
)

// Breaker is the state machine of one circuit. It is safe for concurrent use.
type Breaker struct {
	threshold int
	coolDown  time.Duration
	now       func() time.Time

	mu       sync.Mutex
	state    State
	failures int       // consecutive Unavailable outcomes while closed
	openedAt time.Time // when the circuit last opened
}

// New returns a closed circuit that opens after threshold consecutive failures and stays open
// for coolDown. now is the clock (nil means time.Now); tests pass a fake one.
func New(threshold int, coolDown time.Duration, now func() time.Time) *Breaker {
	if now == nil {
		now = time.Now
	}
	return &Breaker{threshold: max(threshold, 1), coolDown: coolDown, now: now}
}

// State returns the circuit's state. An open circuit whose cool-down has passed reports Open
// until a call comes to probe.
func (b *Breaker) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// Allow admits a call or refuses it with an error wrapping store.ErrUnavailable. An admitted
// call must be ended with Done, passing probe on: probe is true when the call is the one that
// tries the store after a cool-down.
func (b *Breaker) Allow() (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case Closed:
		return false, nil
	case Open:
		if wait := b.openedAt.Add(b.coolDown).Sub(b.now()); wait > 0 {
			return false, fmt.Errorf("%w: the store could not be reached; the next try is in %s", store.ErrUnavailable, wait.Round(time.Millisecond))
		}
		b.state = Probing
		return true, nil
	}
	return false, fmt.Errorf("%w: a call is trying whether the store is back", store.ErrUnavailable)
}

// Done records how an admitted call ended.
func (b *Breaker) Done(probe bool, o Outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		switch o {
		case Answered:
			b.state, b.failures = Closed, 0
		case Unavailable:
			b.state, b.openedAt = Open, b.now()
		default:
			// The probe told nothing: the next call probes again, at once.
			b.state = Open
		}
		return
	}
	// Calls admitted before the circuit opened may end while it is open or probing; only the
	// probe decides then.
	if b.state != Closed {
		return
	}
	switch o {
	case Answered:
		b.failures = 0
	case Unavailable:
		b.failures++
		if b.failures >= b.threshold {
			b.state, b.openedAt, b.failures = Open, b.now(), 0
		}
	}
}
