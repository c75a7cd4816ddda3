package fhir_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"providerdir/testing/webhookreceiver"
	"providerdir/webhook"
)

// An endpoint whose host is, or carries, an address of this host or its networks is refused
// with 422 and an OperationOutcome, and nothing is stored, even where loopback endpoints are
// allowed (as here): a zone names an interface of this host whatever the address, and the
// IPv6 forms of an IPv4 address and the nonstandard IPv4 forms are not the address checked.
func TestSubscriptionRefusesHostileEndpoints(t *testing.T) {
	e := subscriptionEnv(t)
	writer := e.token(t, "system/Subscription.*")
	topic := e.url + "/fhir/SubscriptionTopic/practitioner-changed"
	ok := "Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|1234567893"
	rv := newHookReceiver(t, nil)
	u, err := url.Parse(rv.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	for _, endpoint := range webhookreceiver.HostileURLs(port) {
		t.Run(endpoint, func(t *testing.T) {
			r, _ := createSubscription(t, e, writer, subscriptionBody(topic, endpoint, "id-only", 0, ok))
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("%d, want 422: %s", r.status, r.body)
			}
			if oo := decodeOutcome(t, r); !strings.Contains(string(r.body), "channel.endpoint") {
				t.Errorf("the outcome does not name the endpoint: %+v", oo)
			}
		})
	}
	recs, err := e.st.ListRecords(context.Background(), "webhook_subscription", "", 10)
	if err != nil || len(recs) != 0 {
		t.Errorf("refused subscriptions stored %d records (%v)", len(recs), err)
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if len(rv.got) != 0 {
		t.Errorf("the receiver got %d notifications", len(rv.got))
	}
}

// A handshake refused at connect time (an endpoint on loopback, which this worker may not
// reach) puts the subscription in error; $status says only that the handshake got no
// response, as for any failed connection. Nothing leaves loopback.
func TestSubscriptionHandshakeNoResponse(t *testing.T) {
	e := subscriptionEnv(t)
	writer := e.token(t, "system/Subscription.cruds")
	rv := newHookReceiver(t, nil)
	c := createOrgSubscription(t, e, writer, rv.srv.URL+"/hook", 0)
	clk := &testClock{t: time.Now().UTC()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := webhook.NewWorker(webhook.WorkerOptions{Store: e.st, Policy: webhook.AddressPolicy{}, Now: clk.Now,
		PollInterval: 2 * time.Millisecond, FanoutInterval: time.Hour, Notifier: e.fhir})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(2 * time.Minute)
	for readSubscription(t, e, writer, c.ID).Status != "error" {
		if time.Now().After(deadline) {
			t.Fatal("the subscription is not in error")
		}
		clk.Advance(webhook.HandshakeRetry)
		time.Sleep(5 * time.Millisecond)
	}
	r := get(t, e.url+"/fhir/Subscription/"+c.ID+"/$status", "Authorization", writer)
	var sb tnotification
	if json.Unmarshal(r.body, &sb) != nil || len(sb.Entry) != 1 {
		t.Fatalf("$status: %s", r.body)
	}
	status := string(sb.Entry[0].Resource)
	if !strings.Contains(status, `"name":"error","valueCodeableConcept":{"text":"handshake failed: no response"}`) {
		t.Errorf("$status of a subscription whose handshake got no response: %s", status)
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if len(rv.got) != 0 {
		t.Errorf("the receiver got %d notifications", len(rv.got))
	}
}
