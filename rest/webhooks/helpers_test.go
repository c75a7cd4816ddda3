package webhooks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/store/embedded"
	"providerdir/webhook"
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

// standingClock returns a clock that stays at the moment it was made, so that ids and due
// times made by the endpoints and the worker follow from what the test does alone.
func standingClock() func() time.Time {
	t := time.Now().UTC().Truncate(time.Second)
	return func() time.Time { return t }
}

// received is one request a receiver got.
type received struct {
	EventID  string
	Event    string
	Verified bool
}

// receiver is a real HTTP receiver on loopback that checks every delivery's signature as a
// subscriber should (webhook.Verify) against the secrets it was told, and answers 204.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	got     []received
	secrets []string
}

func newReceiver(t testing.TB) *receiver {
	t.Helper()
	rv := &receiver{}
	rv.srv = httptest.NewServer(http.HandlerFunc(rv.serve))
	t.Cleanup(rv.srv.Close)
	return rv
}

func (rv *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rv.mu.Lock()
	ok := false
	for _, s := range rv.secrets {
		if webhook.Verify(r.Header.Get(webhook.HeaderSignature), body, s, time.Time{}, 0) == nil {
			ok = true
		}
	}
	rv.got = append(rv.got, received{EventID: r.Header.Get(webhook.HeaderEventID), Event: r.Header.Get(webhook.HeaderEvent), Verified: ok})
	rv.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
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

// startWorker runs a delivery worker over st, allowed to reach loopback receivers, until the
// test ends.
func startWorker(t testing.TB, st store.Store, now func() time.Time) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := webhook.NewWorker(webhook.WorkerOptions{Store: st, Now: now, Policy: webhook.AddressPolicy{AllowLoopback: true},
		PollInterval: 2 * time.Millisecond, FanoutInterval: time.Hour})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
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
