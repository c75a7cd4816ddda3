package httpserver

import (
	"net/http"
	"strconv"
	"sync/atomic"
)

// RetryAfterSeconds is the Retry-After of the 503 answers of a server that is shutting down or
// has lost its store: long enough for a balancer to route elsewhere, short enough that a lone
// client comes back soon after a restart.
const RetryAfterSeconds = 5

// CodeUnavailable is the error code of a 503 from the router: the resolver contract's code for
// "retry with backoff", used on every surface so that one code means it.
const CodeUnavailable = "source_unavailable"

// Phases of a graceful shutdown.
const (
	phaseServing int32 = iota
	phaseNotReady
	phaseRefusing
)

// drain tracks a handler's shutdown phase and the requests it admitted. A request enters before
// it is served and leaves after; once the phase is refusing no request enters, and idle is
// signalled when the last admitted one leaves.
//
// enter increments before it reads the phase and refuseNew sets the phase before it reads the
// count (both sequentially consistent atomics), so either the request sees the refusal or the
// drain sees the request: none slips past a drain that thinks it is done.
type drain struct {
	phase    atomic.Int32
	inflight atomic.Int64
	idle     chan struct{} // buffered 1; a token means "the count reached zero while refusing"
}

func newDrain() *drain { return &drain{idle: make(chan struct{}, 1)} }

func (d *drain) enter() bool {
	d.inflight.Add(1)
	if d.phase.Load() == phaseRefusing {
		d.leave()
		return false
	}
	return true
}

func (d *drain) leave() {
	if d.inflight.Add(-1) == 0 && d.phase.Load() == phaseRefusing {
		select {
		case d.idle <- struct{}{}:
		default:
		}
	}
}

func (d *drain) ready() bool { return d.phase.Load() == phaseServing }

func (d *drain) notReady() { d.phase.CompareAndSwap(phaseServing, phaseNotReady) }

// refuseNew starts refusing and returns a channel closed when no admitted request remains.
func (d *drain) refuseNew() <-chan struct{} {
	d.phase.Store(phaseRefusing)
	done := make(chan struct{})
	go func() {
		// A request refused by enter also passes through leave; a token left by it or by an
		// earlier drain is harmless, since the count is read again each time.
		for d.inflight.Load() != 0 {
			<-d.idle
		}
		close(done)
	}()
	return done
}

func (h *Handler) notReady()                  { h.drain.notReady() }
func (h *Handler) refuseNew() <-chan struct{} { return h.drain.refuseNew() }

// refuseDraining answers a request that arrived after the server started refusing new work: 503
// in the surface's envelope, with Retry-After, and Connection: close so that the client's next
// request opens a connection the balancer can send elsewhere.
func (h *Handler) refuseDraining(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	w.Header().Set("Connection", "close")
	h.reject(w, r, http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down; retry shortly")
}
