package quota

import "time"

// State is one window as a decision left it.
type State struct {
	Window
	// Used counts the requests the window holds, including the one just admitted.
	Used int64
	// Remaining is how many more requests the window admits now (never negative).
	Remaining int64
	// Reset is the earliest moment Remaining grows: when enough of the oldest counted requests
	// have left the window. For a window that counts nothing it is now plus Length, the end of
	// the window a request made now would open.
	Reset time.Time
}

// Decision is the outcome of Allow or Peek.
type Decision struct {
	// Allowed is true when the request was admitted (Allow) or would be (Peek).
	Allowed bool
	// At is the limiter's time of the decision.
	At time.Time
	// States has one entry per window of the policy, in the policy's order.
	States []State
	// Cost is the number of units decided on (AllowN's n; 1 for Allow and Peek).
	Cost int64
	// ready holds, per window, when it has room for Cost (set by the limiter).
	ready []time.Time
}

// Binding returns the window closest to exhaustion: the one with the fewest requests
// remaining, since that is how many more requests can succeed now; between equals, the
// longer window, whose wait is the longer one. It is the window the X-RateLimit-* fields
// describe when a policy has several (the pilot tier's minute and day).
func (d Decision) Binding() State {
	var best State
	for i, s := range d.States {
		if i == 0 || s.Remaining < best.Remaining || s.Remaining == best.Remaining && s.Length > best.Length {
			best = s
		}
	}
	return best
}

// Longest returns the state of the policy's longest window (the pilot tier's rolling day).
func (d Decision) Longest() State {
	var best State
	for i, s := range d.States {
		if i == 0 || s.Length > best.Length {
			best = s
		}
	}
	return best
}

// RetryAfter is how long a refused request must wait until every window has room for its
// cost: for one request, the latest Reset among the full windows; for a cost of n, the latest
// moment a window that lacks n free slots has them. It is zero for an admitted request.
func (d Decision) RetryAfter() time.Duration {
	if d.Allowed {
		return 0
	}
	cost := max(d.Cost, 1)
	var wait time.Duration
	for i, s := range d.States {
		if s.Remaining < cost {
			ready := s.Reset
			if i < len(d.ready) {
				ready = d.ready[i]
			}
			wait = max(wait, ready.Sub(d.At))
		}
	}
	return wait
}
