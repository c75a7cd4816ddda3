// Package webhookreceiver gives the tests of webhook delivery what they share: a real receiver on
// loopback that checks every delivery's signature as a subscriber should, a clock the test
// moves, a worker run until the test ends, and a wait with a generous bound. It imports no webhook
// package, so that the webhook package's own tests can use it too: the caller says how a
// delivery is named and signed (Scheme). Only tests import it.
package webhookreceiver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Scheme is how a delivery names its event and is signed.
type Scheme struct {
	// EventID, Event and Signature are the names of the headers carrying them.
	EventID, Event, Signature string
	// Verify reports whether signature signs body with secret.
	Verify func(signature string, body []byte, secret string) bool
}

// Received is one request a receiver got.
type Received struct {
	EventID  string
	Event    string
	Body     []byte
	Verified bool // the signature verified with one of the receiver's secrets at the time
}

// Receiver is a real HTTP receiver on loopback that checks every delivery's signature against
// the secrets it was told, and answers as its answer function says (204 without one).
type Receiver struct {
	URL     string
	scheme  Scheme
	answer  func(n int, w http.ResponseWriter, r *http.Request)
	mu      sync.Mutex
	got     []Received
	secrets []string
}

// NewReceiver serves a receiver until the test ends. answer, when not nil, answers the nth
// request (counted from 1).
func NewReceiver(tb testing.TB, scheme Scheme, answer func(n int, w http.ResponseWriter, r *http.Request)) *Receiver {
	tb.Helper()
	rv := &Receiver{scheme: scheme, answer: answer}
	srv := httptest.NewServer(rv)
	tb.Cleanup(srv.Close)
	rv.URL = srv.URL
	return rv
}

// ServeHTTP records the request and answers it.
func (rv *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rv.mu.Lock()
	ok := false
	for _, s := range rv.secrets {
		if rv.scheme.Verify(r.Header.Get(rv.scheme.Signature), body, s) {
			ok = true
		}
	}
	rv.got = append(rv.got, Received{EventID: r.Header.Get(rv.scheme.EventID), Event: r.Header.Get(rv.scheme.Event), Body: body, Verified: ok})
	n := len(rv.got)
	rv.mu.Unlock()
	if rv.answer == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	rv.answer(n, w, r)
}

// SetSecrets replaces the secrets signatures are checked against.
func (rv *Receiver) SetSecrets(s ...string) {
	rv.mu.Lock()
	rv.secrets = s
	rv.mu.Unlock()
}

// Requests returns the requests received so far.
func (rv *Receiver) Requests() []Received {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return append([]Received(nil), rv.got...)
}

// Clock is the test's clock: it stands still until the test moves it, and never moves back.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at the current second.
func NewClock() *Clock { return &Clock{t: time.Now().UTC().Truncate(time.Second)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t, if t is later.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	if t.After(c.t) {
		c.t = t
	}
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Run runs fn until the test ends or stop is called; stop cancels fn's context and waits for fn
// to return.
func Run(tb testing.TB, fn func(ctx context.Context)) (stop func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); fn(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	tb.Cleanup(stop)
	return stop
}

// WaitFor polls cond until it holds, failing the test after a generous bound. The first looks
// come 2 ms apart and the pause doubles up to 20 ms: a condition that holds soon is seen soon,
// and one that reads a store over the network is not asked hundreds of times a second while
// the work it waits for needs the same server.
func WaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	pause := 2 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// HostileURLs are receiver URLs the address guard must refuse at registration, for webhooks and
// FHIR subscription endpoints alike: IPv6 addresses with a zone (which would reach an interface
// of this host), IPv6 forms of loopback, private and metadata IPv4 addresses, multicast, and
// IPv4 hosts in nonstandard numeric forms. port is a loopback receiver's port, which those that
// name this host would reach were they admitted.
func HostileURLs(port string) []string {
	return []string{
		"https://[::%25lo]:" + port + "/hook",
		"http://[::%25lo]:" + port + "/hook",
		"http://[::1%25lo]:" + port + "/hook",
		"https://[fd00::2%25eth0]/hook",
		"https://[fe80::1%25eth0]:" + port + "/hook",
		"https://[ff02::1%25eth0]/hook",
		"https://[fd00:ec2::254%25eth0]/latest/meta-data",
		"https://[::127.0.0.1]:" + port + "/hook",
		"https://[::ffff:10.0.0.1]/hook",
		"https://[64:ff9b::a9fe:a9fe]/latest/meta-data",
		"https://[2002:a9fe:a9fe::]/hook",
		"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook",
		"https://[ff02::1]/hook",
		"https://2130706433:" + port + "/hook",
		"https://0x7f.1:" + port + "/hook",
	}
}
