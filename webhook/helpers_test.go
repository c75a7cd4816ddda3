package webhook

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/store/embedded"
)

func openStore(t testing.TB) store.Store {
	t.Helper()
	s, err := embedded.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// clock is the test's clock: it stands still until the test moves it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now().UTC().Truncate(time.Second)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	if t.After(c.t) {
		c.t = t
	}
	c.mu.Unlock()
}

func (c *clock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// received is one request a receiver got.
type received struct {
	EventID  string
	Event    string
	Body     []byte
	Verified bool
}

// receiver is a real HTTP receiver on loopback that checks every delivery's signature as a
// subscriber should (Verify, constant time) and answers as answer says for the nth request
// (counted from 1).
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	got     []received
	secrets []string
	answer  func(n int, w http.ResponseWriter, r *http.Request)
}

func newReceiver(t testing.TB, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rv := &receiver{answer: answer}
	rv.srv = httptest.NewServer(http.HandlerFunc(rv.serve))
	t.Cleanup(rv.srv.Close)
	return rv
}

func (rv *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rv.mu.Lock()
	ok := false
	for _, s := range rv.secrets {
		if Verify(r.Header.Get(HeaderSignature), body, s, time.Time{}, 0) == nil {
			ok = true
		}
	}
	rv.got = append(rv.got, received{EventID: r.Header.Get(HeaderEventID), Event: r.Header.Get(HeaderEvent), Body: body, Verified: ok})
	n := len(rv.got)
	answer := rv.answer
	rv.mu.Unlock()
	if answer == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	answer(n, w, r)
}

func (rv *receiver) setSecrets(s ...string) {
	rv.mu.Lock()
	rv.secrets = s
	rv.mu.Unlock()
}

func (rv *receiver) requests() []received {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return append([]received(nil), rv.got...)
}

// subscribe stores an active subscription to url and tells rv its secret.
func subscribe(t testing.TB, st store.Store, rv *receiver, url string, events []string, npis ...string) Subscription {
	t.Helper()
	s := Subscription{ID: newSubscriptionID(), Owner: "key_test", URL: url, Events: events, NPIs: npis,
		Status: StatusActive, CreatedAt: time.Now().UTC(), Secret: NewSecret()}
	rec, err := s.record()
	if err == nil {
		_, err = st.PutRecord(context.Background(), rec)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rv != nil {
		rv.setSecrets(s.Secret)
	}
	return s
}

// startWorker runs a worker until the test ends (or stop is called) and returns stop, which
// waits for it to return.
func startWorker(t testing.TB, o WorkerOptions) (stop func()) {
	t.Helper()
	o.Policy.AllowLoopback = true
	if o.PollInterval == 0 {
		o.PollInterval = 2 * time.Millisecond
	}
	if o.FanoutInterval == 0 {
		o.FanoutInterval = time.Hour
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := NewWorker(o)
	go func() { defer close(done); w.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// waitFor polls cond until it holds, failing the test after a generous bound.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func delivery(t testing.TB, st store.Store, id string) Delivery {
	t.Helper()
	rec, err := st.GetRecord(context.Background(), deliveryKind, id)
	if err != nil {
		t.Fatalf("delivery %s: %v", id, err)
	}
	d, err := decodeDelivery(rec)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// drive runs a delivery's schedule on the test clock: each time an attempt has been recorded
// and another is due, it moves the clock to that time. It returns the delivery once it is
// delivered or failed.
func drive(t testing.TB, st store.Store, clk *clock, id string) Delivery {
	t.Helper()
	logged := 0
	for range 100 {
		var d Delivery
		waitFor(t, "an attempt of "+id, func() bool {
			d = delivery(t, st, id)
			return d.Status != DeliveryPending || (d.LeaseOwner == "" && d.Attempts > logged)
		})
		if d.Status != DeliveryPending {
			return d
		}
		logged = d.Attempts
		clk.Set(d.NextAttemptAt)
	}
	t.Fatalf("delivery %s still pending after 100 attempts", id)
	return Delivery{}
}

func mustJSON(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}
