// Package handclock gives tests a clock they move by hand, so that a 24-hour window is crossed
// in a microsecond and a boundary is hit to the nanosecond instead of slept past.
package handclock

import (
	"sync"
	"time"
)

// Clock is a clock the test moves. It starts on a whole minute a little after the real time:
// the stores decide record expiry by the real clock, so a test clock must never run behind it,
// and a whole-minute start makes bucket boundaries fall where a reader of the test expects.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock at the next whole minute (UTC).
func New() *Clock {
	return &Clock{t: time.Now().UTC().Truncate(time.Minute).Add(time.Minute)}
}

// Now returns the clock's time. It has the signature the packages take as their clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t, which must not be before the real time (see Clock).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}
