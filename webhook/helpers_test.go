package webhook

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/testing/webhookreceiver"
)

// signed is how the worker names and signs a delivery, as a subscriber checks it.
var signed = webhookreceiver.Scheme{EventID: HeaderEventID, Event: HeaderEvent, Signature: HeaderSignature,
	Verify: func(sig string, body []byte, secret string) bool {
		return Verify(sig, body, secret, time.Time{}, 0) == nil
	}}

// subscribe stores an active subscription to url and tells rv its secret. A test with no
// receiver names a documentation address (192.0.2.0/24), which the address guard refuses, so
// nothing it subscribes could be delivered beyond the machine even if a worker ran.
func subscribe(t testing.TB, st store.Store, rv *webhookreceiver.Receiver, url string, events []string, npis ...string) Subscription {
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
		rv.SetSecrets(s.Secret)
	}
	return s
}

// startWorker runs a worker until the test ends (or stop is called) and returns stop, which
// waits for it to return.
func startWorker(t testing.TB, o WorkerOptions) (stop func()) {
	t.Helper()
	o.Policy.AllowLoopback = true
	if o.PollInterval == 0 {
		// Often enough that a test waits little for a delivery; seldom enough that an idle
		// worker on the mongo backend does not keep the shared server busy.
		o.PollInterval = 10 * time.Millisecond
	}
	if o.FanoutInterval == 0 {
		o.FanoutInterval = time.Hour
	}
	return webhookreceiver.Run(t, NewWorker(o).Run)
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
func drive(t testing.TB, st store.Store, clk *webhookreceiver.Clock, id string) Delivery {
	t.Helper()
	logged := 0
	for range 100 {
		var d Delivery
		webhookreceiver.WaitFor(t, "an attempt of "+id, func() bool {
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
