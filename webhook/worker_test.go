package webhook

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/webhookreceiver"
)

// enqueueTest stores delivery n of a ping to sub and returns its id.
func enqueueTest(t testing.TB, st store.Store, clk *webhookreceiver.Clock, sub Subscription, n int) string {
	t.Helper()
	id := fmt.Sprintf("evt_test_%06d", n)
	payload := fmt.Appendf(nil, `{"event":"ping","n":%d}`, n)
	if _, err := enqueue(context.Background(), st, sub.ID, id, EventPing, payload, clk.Now()); err != nil {
		t.Fatal(err)
	}
	return sub.ID + "." + id
}

// A delivery reaches a real receiver signed, with its event id, and is logged as delivered.
func TestDeliverSigned(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, _ := b.Open(t)
		testDeliverSigned(t, s)
	})
}

func testDeliverSigned(t *testing.T, st store.Store) {
	clk := webhookreceiver.NewClock()
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	sub := subscribe(t, st, rv, rv.URL+"/hook", []string{EventSourceRefreshed})
	id := enqueueTest(t, st, clk, sub, 1)
	startWorker(t, WorkerOptions{Store: st, Now: clk.Now})
	d := drive(t, st, clk, id)
	if d.Status != DeliveryDelivered || d.Attempts != 1 || d.DeliveredAt == nil || len(d.Log) != 1 || d.Log[0].Status != http.StatusNoContent {
		t.Fatalf("delivery %+v", d)
	}
	if rec, err := st.GetRecord(context.Background(), deliveryKind, id); err != nil || !rec.ExpiresAt.Equal(clk.Now().Add(DeliveryRetention)) {
		t.Errorf("a finished delivery expires at %v (%v), want after the retention", rec.ExpiresAt, err)
	}
	got := rv.Requests()
	if len(got) != 1 || !got[0].Verified || got[0].EventID != "evt_test_000001" || got[0].Event != EventPing {
		t.Fatalf("received %+v", got)
	}
	var body map[string]any
	mustJSON(t, got[0].Body, &body)
	if body["n"] != 1.0 || body["delivered_at"] != clk.Now().Format(time.RFC3339) {
		t.Errorf("body %s", got[0].Body)
	}
	webhookreceiver.WaitFor(t, "the queue to empty", func() bool { return queueLen(t, st) == 0 })
}

// Receivers that fail in the ways receivers do: every event still arrives, signed, under one
// event id, as the schedule says.
func TestDeliveryFaults(t *testing.T) {
	for _, c := range []struct {
		name     string
		answer   func(n int, w http.ResponseWriter, r *http.Request)
		timeout  time.Duration
		attempts int
		status   string
		check    func(t *testing.T, d Delivery)
	}{
		{name: "500s then 200", attempts: 4, status: DeliveryDelivered,
			answer: func(n int, w http.ResponseWriter, _ *http.Request) {
				if n < 4 {
					w.WriteHeader(http.StatusInternalServerError)
				}
			},
			check: func(t *testing.T, d Delivery) {
				for i := 1; i < 3; i++ { // each delay within the schedule and its jitter
					gap := d.Log[i].At.Sub(d.Log[i-1].At)
					if want := Backoff(i); gap > want || gap < want-want/5 {
						t.Errorf("delay after attempt %d: %v, want %v less up to a fifth", i, gap, want)
					}
				}
			}},
		{name: "429 with Retry-After", attempts: 2, status: DeliveryDelivered,
			answer: func(n int, w http.ResponseWriter, _ *http.Request) {
				if n == 1 {
					w.Header().Set("Retry-After", "777")
					w.WriteHeader(http.StatusTooManyRequests)
				}
			},
			check: func(t *testing.T, d Delivery) {
				if gap := d.Log[1].At.Sub(d.Log[0].At); gap != 777*time.Second {
					t.Errorf("retried after %v, want the Retry-After of 777 s", gap)
				}
			}},
		{name: "slow past the timeout", attempts: 2, status: DeliveryDelivered, timeout: 200 * time.Millisecond,
			answer: func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					select {
					case <-r.Context().Done():
					case <-time.After(10 * time.Second):
					}
				}
			},
			check: func(t *testing.T, d Delivery) {
				if d.Log[0].Error != attemptNoResponse || d.Log[0].Status != 0 {
					t.Errorf("first attempt %+v, want no response", d.Log[0])
				}
			}},
		{name: "redirect not followed", attempts: 2, status: DeliveryDelivered,
			answer: func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
				}
			},
			check: func(t *testing.T, d Delivery) {
				if d.Log[0].Status != http.StatusTemporaryRedirect {
					t.Errorf("first attempt %+v, want the 307 logged", d.Log[0])
				}
			}},
		{name: "always 500: failed after 24 hours", status: DeliveryFailed,
			answer: func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) },
			check: func(t *testing.T, d Delivery) {
				last := d.Log[len(d.Log)-1].At
				if !last.Equal(d.CreatedAt.Add(RetryWindow)) {
					t.Errorf("last attempt at %v, want the end of the window %v", last, d.CreatedAt.Add(RetryWindow))
				}
				if d.Attempts < 15 || d.Attempts > 25 || d.FailReason == "" {
					t.Errorf("%d attempts, reason %q", d.Attempts, d.FailReason)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, clk := backends.Embedded(t), webhookreceiver.NewClock()
			rv := webhookreceiver.NewReceiver(t, signed, c.answer)
			sub := subscribe(t, st, rv, rv.URL, []string{EventSourceRefreshed})
			id := enqueueTest(t, st, clk, sub, 1)
			startWorker(t, WorkerOptions{Store: st, Now: clk.Now, AttemptTimeout: c.timeout})
			d := drive(t, st, clk, id)
			if d.Status != c.status || (c.attempts > 0 && d.Attempts != c.attempts) {
				t.Fatalf("status %s after %d attempts, want %s after %d; log %+v", d.Status, d.Attempts, c.status, c.attempts, d.Log)
			}
			for _, r := range rv.Requests() {
				if !r.Verified || r.EventID != "evt_test_000001" {
					t.Errorf("request %+v", r)
				}
			}
			c.check(t, d)
		})
	}
}

// A receiver that is down (connection refused) for most of a day gets the delivery once it is
// back.
func TestReceiverDown(t *testing.T) {
	st, clk := backends.Embedded(t), webhookreceiver.NewClock()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // down
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	sub := subscribe(t, st, rv, "http://"+addr+"/hook", []string{EventSourceRefreshed})
	id := enqueueTest(t, st, clk, sub, 1)
	startWorker(t, WorkerOptions{Store: st, Now: clk.Now})
	refused := 0
	for {
		var d Delivery
		webhookreceiver.WaitFor(t, "a refused attempt", func() bool {
			d = delivery(t, st, id)
			return d.LeaseOwner == "" && len(d.Log) == refused+1
		})
		refused++
		if d.Status != DeliveryPending || d.Log[refused-1].Error != attemptNoResponse {
			t.Fatalf("attempt %d: %+v", refused, d)
		}
		if d.NextAttemptAt.Sub(d.CreatedAt) > 23*time.Hour {
			break // the receiver comes back before this attempt falls due
		}
		clk.Set(d.NextAttemptAt)
	}
	up, err := net.Listen("tcp", addr) // back up on the same address
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	srv := &http.Server{Handler: rv}
	go srv.Serve(up)
	defer srv.Close()
	d := drive(t, st, clk, id)
	if d.Status != DeliveryDelivered || d.Attempts != refused+1 || len(rv.Requests()) != 1 || !rv.Requests()[0].Verified {
		t.Fatalf("delivery %+v, requests %+v", d, rv.Requests())
	}
}

// 410 Gone fails the delivery and disables the subscription; its other deliveries are failed
// without being sent.
func TestGoneDisables(t *testing.T) {
	st, clk := backends.Embedded(t), webhookreceiver.NewClock()
	rv := webhookreceiver.NewReceiver(t, signed, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) })
	sub := subscribe(t, st, rv, rv.URL, []string{EventSourceRefreshed})
	first := enqueueTest(t, st, clk, sub, 1)
	startWorker(t, WorkerOptions{Store: st, Now: clk.Now})
	if d := drive(t, st, clk, first); d.Status != DeliveryFailed || d.Attempts != 1 {
		t.Fatalf("delivery %+v", d)
	}
	s, err := getSubscription(context.Background(), st, sub.ID)
	if err != nil || s.Status != StatusDisabled || s.DisabledReason == "" {
		t.Fatalf("subscription %+v, %v", s, err)
	}
	second := enqueueTest(t, st, clk, sub, 2)
	if d := drive(t, st, clk, second); d.Status != DeliveryFailed || d.FailReason != "subscription disabled: "+s.DisabledReason {
		t.Fatalf("delivery %+v", d)
	}
	if n := len(rv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// During a secret rotation's overlap each delivery carries two v1 values, one per secret; a
// receiver holding either verifies it.
func TestRotationOverlapSignsTwice(t *testing.T) {
	st, clk := backends.Embedded(t), webhookreceiver.NewClock()
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	sub := subscribe(t, st, rv, rv.URL, []string{EventSourceRefreshed})
	old := sub.Secret
	until := clk.Now().Add(RotationOverlap)
	sub, err := updateSubscription(context.Background(), st, sub.ID, func(s *Subscription) error {
		s.PreviousSecret, s.PreviousUntil, s.Secret = s.Secret, &until, NewSecret()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rv.SetSecrets(old) // a receiver that has not switched yet
	startWorker(t, WorkerOptions{Store: st, Now: clk.Now})
	drive(t, st, clk, enqueueTest(t, st, clk, sub, 1))
	rv.SetSecrets(sub.Secret) // one that has
	drive(t, st, clk, enqueueTest(t, st, clk, sub, 2))
	clk.Set(until)
	rv.SetSecrets(old) // after the overlap the old secret no longer verifies
	drive(t, st, clk, enqueueTest(t, st, clk, sub, 3))
	got := rv.Requests()
	if len(got) != 3 || !got[0].Verified || !got[1].Verified || got[2].Verified {
		t.Fatalf("verified %v %v %v, want true true false", got[0].Verified, got[1].Verified, got[2].Verified)
	}
}

// A worker killed after it claimed a delivery and while the receiver holds the request: the
// delivery is taken over once the lease lapses and delivered under the same event id.
func TestKilledWorkerClaimTakenOver(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, _ := b.Open(t)
		testKilledWorker(t, s)
	})
}

func testKilledWorker(t *testing.T, st store.Store) {
	clk := webhookreceiver.NewClock()
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	rv := webhookreceiver.NewReceiver(t, signed, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			once.Do(func() { close(arrived) })
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	})
	sub := subscribe(t, st, rv, rv.URL, []string{EventSourceRefreshed})
	id := enqueueTest(t, st, clk, sub, 1)
	kill := startWorker(t, WorkerOptions{Store: st, Now: clk.Now, ID: "doomed"})
	<-arrived
	kill()
	close(release)
	d := delivery(t, st, id)
	if d.Status != DeliveryPending || d.LeaseOwner != "doomed" {
		t.Fatalf("after the kill: %+v", d)
	}
	startWorker(t, WorkerOptions{Store: st, Now: clk.Now, ID: "heir"})
	time.Sleep(50 * time.Millisecond) // the heir must not take a live lease
	if n := len(rv.Requests()); n != 1 {
		t.Fatalf("%d requests before the lease lapsed, want 1", n)
	}
	clk.Set(d.LeaseUntil)
	d = drive(t, st, clk, id)
	got := rv.Requests()
	if d.Status != DeliveryDelivered || len(got) != 2 || got[0].EventID != got[1].EventID || !got[1].Verified {
		t.Fatalf("delivery %+v, requests %+v", d, got)
	}
}

// Two workers on one store, a receiver failing a third of the requests: every event arrives at
// least once, none is lost, and any duplicate carries the same event id.
func TestTwoWorkersOneStore(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, _ := b.Open(t)
		testTwoWorkers(t, s)
	})
}

func testTwoWorkers(t *testing.T, st store.Store) {
	clk := webhookreceiver.NewClock()
	rv := webhookreceiver.NewReceiver(t, signed, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n%3 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	subs := []Subscription{
		subscribe(t, st, nil, rv.URL+"/a", []string{EventSourceRefreshed}),
		subscribe(t, st, nil, rv.URL+"/b", []string{EventSourceRefreshed}),
	}
	rv.SetSecrets(subs[0].Secret, subs[1].Secret)
	const perSub = 150
	want := map[string]bool{}
	var ids []string
	for i := range perSub {
		for _, s := range subs {
			ids = append(ids, enqueueTest(t, st, clk, s, i))
			want[fmt.Sprintf("evt_test_%06d", i)] = true
		}
	}
	startWorker(t, WorkerOptions{Store: st, Now: clk.Now, ID: "w1", Concurrency: 8})
	startWorker(t, WorkerOptions{Store: st, Now: clk.Now, ID: "w2", Concurrency: 8})
	// A minute passes for every 25 ms the workers have, so that retries fall due as the day
	// passes while a claim (a lease of DefaultLease) lapses only when a delivery takes longer
	// than 50 ms. A clock racing ahead of every look would have claims lapse on a busy machine
	// and their deliveries made again, more work that proves nothing more.
	webhookreceiver.WaitFor(t, "every delivery to finish", func() bool {
		time.Sleep(25 * time.Millisecond)
		clk.Advance(time.Minute)
		return queueLen(t, st) == 0
	})
	acked := map[string]int{}
	for _, r := range rv.Requests() {
		if !r.Verified || !want[r.EventID] {
			t.Fatalf("request %+v", r)
		}
		acked[r.EventID]++
	}
	if len(acked) != len(want) {
		t.Fatalf("%d event ids received, want %d", len(acked), len(want))
	}
	for _, id := range ids {
		d := delivery(t, st, id)
		if d.Status != DeliveryDelivered {
			t.Errorf("%s: %s", id, d.Status)
		}
		// An attempt whose worker lost its lease (the test clock runs fast) is counted and not
		// logged: the worker that took over logs its own.
		if n := d.Attempts; len(d.Log) < 1 || n < len(d.Log) {
			t.Errorf("%s: %d attempts, %d logged", id, n, len(d.Log))
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0}, {"0", 0}, {"-5", 0}, {"x", 0}, {"120", 120 * time.Second},
		{strconv.Itoa(int(3 * MaxRetryAfter / time.Second)), MaxRetryAfter},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	} {
		if got := parseRetryAfter(c.v, now); got != c.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", c.v, got, c.want)
		}
	}
}

// A receiver's Retry-After of any shape gives a delay that is never negative, and one in
// seconds never more than MaxRetryAfter.
func FuzzParseRetryAfter(f *testing.F) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, v := range []string{"", "0", "-5", "120", " 7 ", "99999999999999999999", "1e3", "0x10",
		now.Add(90 * time.Second).Format(http.TimeFormat), "Fri, 31 Dec 9999 23:59:59 GMT", "Thu, 01 Jan 1970 00:00:00 GMT"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := parseRetryAfter(v, now)
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %v", v, d)
		}
		if _, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && d > MaxRetryAfter {
			t.Fatalf("parseRetryAfter(%q) = %v, above %v", v, d, MaxRetryAfter)
		}
	})
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute,
		16 * time.Minute, 32 * time.Minute, 64 * time.Minute, 2 * time.Hour, 2 * time.Hour, 2 * time.Hour}
	for i, w := range want {
		if got := Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

func TestWithDeliveredAt(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]string{
		`{"event":"x"}`: `{"event":"x","delivered_at":"2026-01-02T03:04:05Z"}`,
		`{}`:            `{"delivered_at":"2026-01-02T03:04:05Z"}`,
		"{\"a\":1}\n":   `{"a":1,"delivered_at":"2026-01-02T03:04:05Z"}`,
	} {
		if got := string(withDeliveredAt([]byte(in), at)); got != want {
			t.Errorf("withDeliveredAt(%s) = %s, want %s", in, got, want)
		}
	}
}

// queueLen counts the due-queue entries.
func queueLen(t testing.TB, st store.Store) int {
	t.Helper()
	n, after := 0, ""
	for {
		recs, err := st.ListRecords(context.Background(), dueKind, after, store.MaxLimit)
		if err != nil {
			t.Fatal(err)
		}
		n += len(recs)
		if len(recs) < store.MaxLimit {
			return n
		}
		after = recs[len(recs)-1].ID
	}
}

// The address policy holds at connect time too: a subscription whose host now resolves to a
// refused address (here loopback, stored past the registration check) is never connected to;
// the attempt is logged as one without an answer and retried by the schedule.
func TestDeliveryRefusesAddressAtConnect(t *testing.T) {
	st, clk := backends.Embedded(t), webhookreceiver.NewClock()
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	sub := subscribe(t, st, rv, strings.Replace(rv.URL, "127.0.0.1", "localhost", 1), []string{EventSourceRefreshed})
	id := enqueueTest(t, st, clk, sub, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		NewWorker(WorkerOptions{Store: st, Now: clk.Now, PollInterval: 2 * time.Millisecond, FanoutInterval: time.Hour}).Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	var d Delivery
	webhookreceiver.WaitFor(t, "a refused attempt", func() bool {
		d = delivery(t, st, id)
		return len(d.Log) == 1 && d.LeaseOwner == ""
	})
	if d.Status != DeliveryPending || d.Log[0].Error != attemptNoResponse || len(rv.Requests()) != 0 {
		t.Fatalf("delivery %+v, %d requests", d, len(rv.Requests()))
	}
}
