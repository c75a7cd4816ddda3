package fhir_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"providerdir/ingest"
	"providerdir/smart"
	"providerdir/source/reference"
	"providerdir/webhook"
)

// storedSubscription reads the subscription behind Subscription/id of client clientID from the
// store, as the operator sees it.
func storedSubscription(t *testing.T, e *smartEnv, clientID, id string) webhook.Subscription {
	t.Helper()
	s, err := webhook.GetFHIR(context.Background(), e.st, webhook.FHIROwner(clientID), strings.Replace(id, "-", "_", 1))
	if err != nil {
		t.Fatalf("Subscription/%s: %v", id, err)
	}
	return s
}

// ingestNext runs the fan-out (so the change sets of the next ingest are new to it) and a real
// ingest of the evolved drop.
func ingestNext(t *testing.T, e *smartEnv, clk *testClock) {
	t.Helper()
	_, next := drops(t)
	if err := webhook.Fanout(context.Background(), e.st, clk.Now); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: e.st, Dir: next, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
}

// checkWithheld checks an event notification whose focus the client may not read: the focus
// reference and a focus entry without the resource, and no provenance delta (the record's
// field values).
func checkWithheld(t *testing.T, body []byte, focus string) {
	t.Helper()
	var b tnotification
	if err := json.Unmarshal(body, &b); err != nil || len(b.Entry) != 2 {
		t.Fatalf("event notification %s", body)
	}
	ev := statusOf(t, body).get("notification-event")
	parts := tparams{Parameter: ev.Part}
	if parts.get("focus").ValueReference == nil || parts.get("focus").ValueReference.Reference != focus {
		t.Errorf("focus reference in %s", b.Entry[0].Resource)
	}
	if b.Entry[1].FullURL != focus || len(b.Entry[1].Resource) > 0 {
		t.Errorf("focus entry carries the resource: %s", body)
	}
	if len(ev.Extension) != 0 || strings.Contains(string(body), "provenance-delta") {
		t.Errorf("notification carries what changed in the record: %s", body)
	}
}

// A notification carries the focus resource, or what changed in its record, only to a client
// whose scopes read the focus type. full-resource is refused at creation to a token that cannot
// read it (403 and the scope needed, as for an _include); a client that may not read it gets
// references alone; a client whose scopes the operator narrowed after creation gets references
// alone from its next notification on; a client that reads it gets the resource.
func TestSubscriptionFocusNeedsRead(t *testing.T) {
	e := subscriptionEnv(t)
	npi := watchedPractitioner(t, e, e.token(t, "system/*.read"))
	rv := newHookReceiver(t, nil)
	topic := e.url + "/fhir/SubscriptionTopic/practitioner-changed"
	filter := "Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|" + npi
	focus := e.url + "/fhir/Practitioner/" + npi
	subscriptionsOnly := e.token(t, "system/Subscription.cruds")
	narrowedID, narrowed := e.client(t, "system/Subscription.cruds", "system/Practitioner.rs")
	reads := e.token(t, "system/Subscription.cruds", "system/Practitioner.read")

	r, _ := createSubscription(t, e, subscriptionsOnly, subscriptionBody(topic, rv.srv.URL+"/refused", "full-resource", 0, filter))
	if r.status != http.StatusForbidden || !strings.Contains(r.header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="system/Subscription.c system/Practitioner.r"`) {
		t.Fatalf("full-resource without the read scope: %d %q %s", r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
	if oo := decodeOutcome(t, r); oo.Issue[0].Code != "forbidden" || !strings.Contains(oo.Issue[0].Diagnostics, "read of Practitioner") ||
		!strings.Contains(oo.Issue[0].Diagnostics, "full-resource") {
		t.Errorf("outcome %+v", oo)
	}
	if recs, err := e.st.ListRecords(context.Background(), "webhook_subscription", "", 10); err != nil || len(recs) != 0 {
		t.Fatalf("the refused subscription stored %d records (%v)", len(recs), err)
	}

	subs := map[string]struct{ auth, content, id string }{ // by receiver path
		"/id-only":  {auth: subscriptionsOnly, content: "id-only"},
		"/narrowed": {auth: narrowed, content: "full-resource"},
		"/reads":    {auth: reads, content: "full-resource"},
	}
	for path, c := range subs {
		r, sub := createSubscription(t, e, c.auth, subscriptionBody(topic, rv.srv.URL+path, c.content, 0, filter))
		if r.status != http.StatusCreated {
			t.Fatalf("create %s: %d %s", path, r.status, r.body)
		}
		c.id = sub.ID
		subs[path] = c
	}
	clk := &testClock{t: time.Now().UTC()}
	startHookWorker(t, e, clk)
	for path, c := range subs {
		rv.waitNotified(t, path, "handshake", 1)
		waitStatus(t, e, c.auth, c.id, "active")
	}
	if _, err := smart.SetClientScopes(context.Background(), e.st, narrowedID, []string{"system/Subscription.cruds"}); err != nil {
		t.Fatal(err)
	}

	ingestNext(t, e, clk)
	checkWithheld(t, rv.waitNotified(t, "/id-only", "event-notification", 1).body, focus)
	checkWithheld(t, rv.waitNotified(t, "/narrowed", "event-notification", 1).body, focus)
	checkEvent(t, rv.waitNotified(t, "/reads", "event-notification", 1).body, focus, true)
}

// A disabled client's subscriptions stop: status off with the reason, and the next ingest's
// events are not delivered to them (another client's subscription to the same focus gets
// its event). Enabled again, they are active and notified (a heartbeat once its period has
// passed). The operator's disabling shows as off with its reason in the Subscription and
// $status.
func TestSubscriptionClientDisabled(t *testing.T) {
	ctx := context.Background()
	e := subscriptionEnv(t)
	npi := watchedPractitioner(t, e, e.token(t, "system/*.read"))
	rv := newHookReceiver(t, nil)
	topic := e.url + "/fhir/SubscriptionTopic/practitioner-changed"
	filter := "Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|" + npi
	clientID, writer := e.client(t, "system/Subscription.cruds", "system/Practitioner.rs")
	other := e.token(t, "system/Subscription.cruds", "system/Practitioner.rs")
	r, sub := createSubscription(t, e, writer, subscriptionBody(topic, rv.srv.URL+"/client", "full-resource", 60, filter))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if r, _ := createSubscription(t, e, other, subscriptionBody(topic, rv.srv.URL+"/other", "id-only", 0, filter)); r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	clk := &testClock{t: time.Now().UTC()}
	startHookWorker(t, e, clk)
	rv.waitNotified(t, "/client", "handshake", 1)
	rv.waitNotified(t, "/other", "handshake", 1)
	waitStatus(t, e, writer, sub.ID, "active")

	if _, err := smart.SetClientEnabled(ctx, e.st, clientID, false); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for s := storedSubscription(t, e, clientID, sub.ID); s.Status != webhook.StatusDisabled; s = storedSubscription(t, e, clientID, sub.ID) {
		if time.Now().After(deadline) {
			t.Fatalf("the disabled client's subscription is still %s", s.Status)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if s := storedSubscription(t, e, clientID, sub.ID); s.DisabledBy != webhook.DisabledByOwner || !strings.Contains(s.DisabledReason, clientID+" is disabled") {
		t.Errorf("disabled by %q: %q", s.DisabledBy, s.DisabledReason)
	}
	ingestNext(t, e, clk)
	rv.waitNotified(t, "/other", "event-notification", 1) // the ingest's events are fanned out
	ds, _, err := webhook.NewService(e.st, webhook.AddressPolicy{}, nil).Deliveries(ctx, storedSubscription(t, e, clientID, sub.ID), "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Event != webhook.EventHandshake {
			t.Errorf("a %s %s for the disabled client's subscription", d.Status, d.Event)
		}
	}

	if _, err := smart.SetClientEnabled(ctx, e.st, clientID, true); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
		// The client's token works again once SMART has read that it is enabled.
		if r := get(t, e.url+"/fhir/Subscription/"+sub.ID, "Authorization", writer); r.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the client's token is refused after it was enabled again")
		}
	}
	waitStatus(t, e, writer, sub.ID, "active")
	clk.Advance(61 * time.Second)
	rv.waitNotified(t, "/client", "heartbeat", 1)
	if n := len(rv.of(t, "/client", "event-notification")); n != 0 {
		t.Errorf("%d event notifications reached the client's receiver", n)
	}

	hooks := webhook.NewService(e.st, webhook.AddressPolicy{}, nil)
	if _, err := hooks.Disable(ctx, strings.Replace(sub.ID, "-", "_", 1), "paused by the operator"); err != nil {
		t.Fatal(err)
	}
	if got := readSubscription(t, e, writer, sub.ID); got.Status != "off" || got.Error != "paused by the operator" {
		t.Errorf("Subscription disabled by the operator: status %q, error %q", got.Status, got.Error)
	}
	st := get(t, e.url+"/fhir/Subscription/"+sub.ID+"/$status", "Authorization", writer)
	var sb tnotification
	if json.Unmarshal(st.body, &sb) != nil || len(sb.Entry) != 1 {
		t.Fatalf("$status: %d %s", st.status, st.body)
	}
	var sp tparams
	if err := json.Unmarshal(sb.Entry[0].Resource, &sp); err != nil || sp.get("status").ValueCode != "off" ||
		!strings.Contains(string(sb.Entry[0].Resource), `"name":"error","valueCodeableConcept":{"text":"paused by the operator"}`) {
		t.Errorf("$status of a subscription the operator disabled: %s", st.body)
	}
	if _, _, err := hooks.Enable(ctx, strings.Replace(sub.ID, "-", "_", 1), webhook.Owners{Clients: smart.Registry{Store: e.st}}); err != nil {
		t.Fatal(err)
	}
	if got := readSubscription(t, e, writer, sub.ID); got.Status != "active" || got.Error != "" {
		t.Errorf("Subscription enabled again: status %q, error %q", got.Status, got.Error)
	}
}
