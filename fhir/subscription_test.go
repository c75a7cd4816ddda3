package fhir_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/smart"
	"providerdir/source/reference"
	"providerdir/webhook"
)

// subscriptionEnv is the surface behind SMART with subscriptions offered to loopback
// endpoints, as providerd runs it with --webhook-allow-loopback.
func subscriptionEnv(t *testing.T) *smartEnv {
	return newSMARTEnvWith(t, false, func(c *fhir.Config) {
		c.Subscriptions = &webhook.AddressPolicy{AllowLoopback: true}
		c.SnapshotTTL = -1
	})
}

// hookReceiver is a real receiver on loopback that records each notification and answers 2xx,
// or the status answer gives for a path and the notification's type (0 for 2xx), told how many
// notifications of that path and type came before.
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []notified
	answer func(path, typ string, before int) int
}

type notified struct {
	path      string
	header    http.Header
	body      []byte
	signature string
}

func newHookReceiver(t *testing.T, answer func(path, typ string, before int) int) *hookReceiver {
	rv := &hookReceiver{answer: answer}
	rv.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		typ := statusOf(t, body).typ()
		before := len(rv.of(t, r.URL.Path, typ))
		rv.mu.Lock()
		rv.got = append(rv.got, notified{path: r.URL.Path, header: r.Header.Clone(), body: body, signature: r.Header.Get(webhook.HeaderSignature)})
		rv.mu.Unlock()
		if rv.answer != nil {
			if code := rv.answer(r.URL.Path, typ, before); code != 0 {
				w.WriteHeader(code)
				return
			}
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rv.srv.Close)
	return rv
}

// of returns the notifications sent to path whose status Parameters has type typ.
func (rv *hookReceiver) of(t *testing.T, path, typ string) []notified {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	var out []notified
	for _, n := range rv.got {
		if n.path == path && statusOf(t, n.body).typ() == typ {
			out = append(out, n)
		}
	}
	return out
}

// waitNotified waits for the nth notification of type typ to path.
func (rv *hookReceiver) waitNotified(t *testing.T, path, typ string, n int) notified {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if got := rv.of(t, path, typ); len(got) >= n {
			return got[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s notification %d to %s", typ, n, path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// testClock is the worker's clock: it stands still until the test moves it.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// startHookWorker runs the webhook worker, with e's FHIR server rendering notifications and the
// client registry answering for the subscriptions' owners, as providerd wires it, until the
// test ends.
func startHookWorker(t *testing.T, e *smartEnv, clk *testClock) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := webhook.NewWorker(webhook.WorkerOptions{Store: e.st, Policy: webhook.AddressPolicy{AllowLoopback: true}, Now: clk.Now,
		PollInterval: 2 * time.Millisecond, FanoutInterval: 5 * time.Millisecond, Notifier: e.fhir,
		Owners: webhook.Owners{Clients: smart.Registry{Store: e.st}}})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// tparam is a Parameters.parameter as the tests read it.
type tparam struct {
	Name           string `json:"name"`
	ValueString    string `json:"valueString"`
	ValueCode      string `json:"valueCode"`
	ValueCanonical string `json:"valueCanonical"`
	ValueReference *struct {
		Reference string `json:"reference"`
	} `json:"valueReference"`
	Part      []tparam  `json:"part"`
	Extension []textExt `json:"extension"`
}

type textExt struct {
	URL         string    `json:"url"`
	ValueString string    `json:"valueString"`
	ValueCode   string    `json:"valueCode"`
	ValueDate   string    `json:"valueDate"`
	Extension   []textExt `json:"extension"`
}

type tparams struct {
	ResourceType string   `json:"resourceType"`
	Parameter    []tparam `json:"parameter"`
}

func (p tparams) get(name string) tparam {
	for _, x := range p.Parameter {
		if x.Name == name {
			return x
		}
	}
	return tparam{}
}

func (p tparams) typ() string { return p.get("type").ValueCode }

type tnotification struct {
	ResourceType string `json:"resourceType"`
	Type         string `json:"type"`
	Entry        []struct {
		FullURL  string          `json:"fullUrl"`
		Resource json.RawMessage `json:"resource"`
		Request  *struct {
			Method string `json:"method"`
			URL    string `json:"url"`
		} `json:"request"`
	} `json:"entry"`
}

// statusOf decodes a notification Bundle and returns its status Parameters, checking the
// shape the backport IG gives it: a history Bundle whose first entry is the Parameters.
func statusOf(t *testing.T, body []byte) tparams {
	var b tnotification
	var p tparams
	if err := json.Unmarshal(body, &b); err != nil || b.ResourceType != "Bundle" || len(b.Entry) == 0 {
		t.Errorf("not a Bundle: %s", body)
		return p
	}
	if err := json.Unmarshal(b.Entry[0].Resource, &p); err != nil || p.ResourceType != "Parameters" {
		t.Errorf("first entry is not Parameters: %s", body)
	}
	return p
}

// subscriptionBody is a Subscription to a topic with filters, as a client sends it.
func subscriptionBody(topic, endpoint, content string, heartbeat int, filters ...string) string {
	var fs []map[string]any
	for _, f := range filters {
		fs = append(fs, map[string]any{"url": "http://hl7.org/fhir/uv/subscriptions-backport/StructureDefinition/backport-filter-criteria", "valueString": f})
	}
	ch := map[string]any{"type": "rest-hook", "endpoint": endpoint, "payload": "application/fhir+json",
		"header":   []string{"Authorization: Bearer receiver-token"},
		"_payload": map[string]any{"extension": []map[string]any{{"url": "http://hl7.org/fhir/uv/subscriptions-backport/StructureDefinition/backport-payload-content", "valueCode": content}}}}
	if heartbeat > 0 {
		ch["extension"] = []map[string]any{{"url": "http://hl7.org/fhir/uv/subscriptions-backport/StructureDefinition/backport-heartbeat-period", "valueUnsignedInt": heartbeat}}
	}
	b, _ := json.Marshal(map[string]any{"resourceType": "Subscription", "status": "requested", "reason": "test",
		"criteria": topic, "_criteria": map[string]any{"extension": fs}, "channel": ch})
	return string(b)
}

// created is what the tests read of a created Subscription.
type created struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Error   string `json:"error"`
	Channel struct {
		Extension []textExt `json:"extension"`
	} `json:"channel"`
}

func (c created) secret() string {
	for _, e := range c.Channel.Extension {
		if strings.HasSuffix(e.URL, "/subscription-signing-secret") {
			return e.ValueString
		}
	}
	return ""
}

func createSubscription(t *testing.T, e *smartEnv, auth, body string) (response, created) {
	t.Helper()
	r := do(t, http.MethodPost, e.url+"/fhir/Subscription", strings.NewReader(body), "Authorization", auth, "Content-Type", "application/fhir+json")
	var c created
	if r.status == http.StatusCreated {
		if err := json.Unmarshal(r.body, &c); err != nil {
			t.Fatal(err)
		}
	}
	return r, c
}

func readSubscription(t *testing.T, e *smartEnv, auth, id string) created {
	t.Helper()
	r := get(t, e.url+"/fhir/Subscription/"+id, "Authorization", auth)
	var c created
	if r.status != http.StatusOK || json.Unmarshal(r.body, &c) != nil {
		t.Fatalf("read Subscription/%s: %d %s", id, r.status, r.body)
	}
	return c
}

// createOrgSubscription creates an id-only subscription to NPI 1234567893's Organization with
// heartbeat period heartbeat (0: none), which must be created.
func createOrgSubscription(t *testing.T, e *smartEnv, auth, endpoint string, heartbeat int) created {
	t.Helper()
	r, c := createSubscription(t, e, auth, subscriptionBody(e.url+"/fhir/SubscriptionTopic/organization-changed", endpoint, "id-only", heartbeat,
		"Organization?identifier=1234567893"))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	return c
}

// waitStatus reads Subscription/id until its status is status, and returns it then.
func waitStatus(t *testing.T, e *smartEnv, auth, id, status string) created {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c := readSubscription(t, e, auth, id)
		if c.Status == status {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("Subscription/%s: status %s, want %s", id, c.Status, status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// watchedPractitioner is an NPI the evolved drop changes that the base serves as a
// Practitioner.
func watchedPractitioner(t *testing.T, e *smartEnv, auth string) string {
	for _, c := range nextManifest.Changes.Moved {
		if get(t, e.url+"/fhir/Practitioner/"+c.Key, "Authorization", auth).status == http.StatusOK {
			return c.Key
		}
	}
	t.Fatal("the evolved drop moves no Practitioner")
	return ""
}

// A client with system/Subscription.* subscribes to a watched Practitioner; the receiver gets
// the handshake (and the subscription turns active), a heartbeat when the period has passed on
// the worker's clock, and after a real ingest of the evolved drop an event notification with
// the focus (full-resource or id-only) and the provenance delta; $status counts the events;
// delete ends it. A client without the scope is refused.
func TestSubscriptionLifecycle(t *testing.T) {
	e := subscriptionEnv(t)
	_, next := drops(t)
	reader := e.token(t, "system/*.read")
	writer := e.token(t, "system/Subscription.*", "system/*.read")
	npi := watchedPractitioner(t, e, reader)
	// The first event notification to /flaky fails; its retry must carry the same number.
	rv := newHookReceiver(t, func(path, typ string, before int) int {
		if path == "/flaky" && typ == "event-notification" && before == 0 {
			return http.StatusInternalServerError
		}
		return 0
	})
	topic := e.url + "/fhir/SubscriptionTopic/practitioner-changed"
	filter := "Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|" + npi

	r, _ := createSubscription(t, e, reader, subscriptionBody(topic, rv.srv.URL+"/full", "full-resource", 60, filter))
	if r.status != http.StatusForbidden || !strings.Contains(r.header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="system/Subscription.c"`) {
		t.Fatalf("create without the scope: %d %s %s", r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
	decodeOutcome(t, r)

	r, full := createSubscription(t, e, writer, subscriptionBody(topic, rv.srv.URL+"/full", "full-resource", 60, filter))
	if r.status != http.StatusCreated || full.Status != "requested" || full.secret() == "" || r.header.Get("Location") == "" {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if !fhirID.MatchString(full.ID) || r.header.Get("Location") != e.url+"/fhir/Subscription/"+full.ID {
		t.Errorf("id %q, Location %q", full.ID, r.header.Get("Location"))
	}
	fhirJSON(t, r.body)
	r, idOnly := createSubscription(t, e, writer, subscriptionBody(topic, rv.srv.URL+"/id", "id-only", 0, filter))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	fhirJSON(t, r.body)
	fhirJSON(t, get(t, e.url+"/fhir/Subscription/"+idOnly.ID, "Authorization", writer).body)
	r, flaky := createSubscription(t, e, writer, subscriptionBody(topic, rv.srv.URL+"/flaky", "empty", 0, filter))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if got := get(t, e.url+"/fhir/Subscription/"+full.ID, "Authorization", reader); got.status != http.StatusNotFound {
		t.Errorf("another client read the subscription: %d", got.status)
	}

	clk := &testClock{t: time.Now().UTC()} // after the creations, so their handshakes are due
	startHookWorker(t, e, clk)
	hs := rv.waitNotified(t, "/full", "handshake", 1)
	if err := webhook.Verify(hs.signature, hs.body, full.secret(), time.Time{}, 0); err != nil {
		t.Errorf("handshake signature: %v", err)
	}
	if hs.header.Get("Authorization") != "Bearer receiver-token" || !strings.HasPrefix(hs.header.Get("Content-Type"), "application/fhir+json") {
		t.Errorf("handshake headers %v", hs.header)
	}
	fhirJSON(t, hs.body)
	if p := statusOf(t, hs.body); p.get("topic").ValueCanonical != topic || p.get("events-since-subscription-start").ValueString != "0" {
		t.Errorf("handshake %s", hs.body)
	}
	rv.waitNotified(t, "/id", "handshake", 1)
	for _, id := range []string{full.ID, idOnly.ID, flaky.ID} {
		waitStatus(t, e, writer, id, "active")
	}

	if n := len(rv.of(t, "/full", "heartbeat")); n != 0 {
		t.Fatalf("%d heartbeats before the period passed", n)
	}
	clk.Advance(61 * time.Second)
	hb := rv.waitNotified(t, "/full", "heartbeat", 1)
	if err := webhook.Verify(hb.signature, hb.body, full.secret(), time.Time{}, 0); err != nil {
		t.Errorf("heartbeat signature: %v", err)
	}
	if n := len(rv.of(t, "/id", "heartbeat")); n != 0 {
		t.Errorf("a subscription without a heartbeat period got %d", n)
	}

	if err := webhook.Fanout(context.Background(), e.st, clk.Now); err != nil { // the fan-out starts before the next ingest
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: e.st, Dir: next, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	ev := rv.waitNotified(t, "/full", "event-notification", 1)
	if err := webhook.Verify(ev.signature, ev.body, full.secret(), time.Time{}, 0); err != nil {
		t.Errorf("event signature: %v", err)
	}
	fhirJSON(t, ev.body)
	checkEvent(t, ev.body, e.url+"/fhir/Practitioner/"+npi, true)
	checkEvent(t, rv.waitNotified(t, "/id", "event-notification", 1).body, e.url+"/fhir/Practitioner/"+npi, false)

	first := rv.waitNotified(t, "/flaky", "event-notification", 1)
	clk.Advance(webhook.FirstRetry)
	retry := rv.waitNotified(t, "/flaky", "event-notification", 2)
	for _, n := range []notified{first, retry} {
		var b tnotification
		_ = json.Unmarshal(n.body, &b)
		p := statusOf(t, n.body)
		ev := p.get("notification-event")
		parts := tparams{Parameter: ev.Part}
		if len(b.Entry) != 1 || parts.get("event-number").ValueString != "1" || parts.get("focus").ValueReference != nil {
			t.Errorf("empty-content notification %s", n.body)
		}
		if p.get("topic").ValueCanonical != "" || len(ev.Extension) != 0 { // the IG: SHOULD NOT with empty payloads
			t.Errorf("empty-content notification with a topic or the record's changes: %s", n.body)
		}
	}
	if first.header.Get(webhook.HeaderEventID) == "" || first.header.Get(webhook.HeaderEventID) != retry.header.Get(webhook.HeaderEventID) {
		t.Errorf("event ids %q and %q", first.header.Get(webhook.HeaderEventID), retry.header.Get(webhook.HeaderEventID))
	}

	st := get(t, e.url+"/fhir/Subscription/"+full.ID+"/$status", "Authorization", writer)
	fhirJSON(t, st.body)
	var sb tnotification
	if st.status != http.StatusOK || json.Unmarshal(st.body, &sb) != nil || sb.Type != "searchset" || len(sb.Entry) != 1 {
		t.Fatalf("$status: %d %s", st.status, st.body)
	}
	var sp tparams
	if err := json.Unmarshal(sb.Entry[0].Resource, &sp); err != nil || sp.typ() != "query-status" || sp.get("status").ValueCode != "active" ||
		sp.get("events-since-subscription-start").ValueString != "1" {
		t.Errorf("$status %s", st.body)
	}

	if r := do(t, http.MethodDelete, e.url+"/fhir/Subscription/"+full.ID, nil, "Authorization", reader); r.status != http.StatusForbidden {
		t.Errorf("delete without the scope: %d", r.status)
	}
	if r := do(t, http.MethodDelete, e.url+"/fhir/Subscription/"+full.ID, nil, "Authorization", writer); r.status != http.StatusNoContent {
		t.Errorf("delete: %d %s", r.status, r.body)
	}
	if r := get(t, e.url+"/fhir/Subscription/"+full.ID, "Authorization", writer); r.status != http.StatusNotFound {
		t.Errorf("read after delete: %d", r.status)
	}
}

// checkEvent checks an event notification: event number 1 focused on focus, the focus entry
// with the resource (full) or without it (id-only), and the provenance delta naming changed
// fields with both snapshots.
func checkEvent(t *testing.T, body []byte, focus string, full bool) {
	t.Helper()
	var b tnotification
	if err := json.Unmarshal(body, &b); err != nil || b.Type != "history" || len(b.Entry) != 2 {
		t.Fatalf("event notification %s", body)
	}
	p := statusOf(t, body)
	ev := p.get("notification-event")
	parts := tparams{Parameter: ev.Part}
	if p.get("events-since-subscription-start").ValueString != "1" || parts.get("event-number").ValueString != "1" ||
		parts.get("focus").ValueReference == nil || parts.get("focus").ValueReference.Reference != focus {
		t.Errorf("status %s", b.Entry[0].Resource)
	}
	if b.Entry[1].FullURL != focus || (len(b.Entry[1].Resource) > 0) != full {
		t.Errorf("focus entry %s (full-resource %v)", body, full)
	}
	if full {
		var res struct{ ResourceType, ID string }
		if json.Unmarshal(b.Entry[1].Resource, &res) != nil || res.ResourceType != "Practitioner" || !strings.HasSuffix(focus, "/"+res.ID) ||
			!strings.Contains(string(b.Entry[1].Resource), "/provenance/_snapshot") {
			t.Errorf("focus resource %s", b.Entry[1].Resource)
		}
	}
	if len(ev.Extension) != 1 || !strings.HasSuffix(ev.Extension[0].URL, "/provenance-delta") {
		t.Fatalf("no provenance delta in %s", b.Entry[0].Resource)
	}
	var fields, snapshots int
	var change string
	for _, x := range ev.Extension[0].Extension {
		switch x.URL {
		case "field":
			fields++
			var old, cur string
			for _, f := range x.Extension {
				if f.URL == "old" {
					old = f.ValueString
				} else if f.URL == "new" {
					cur = f.ValueString
				}
			}
			if old == cur {
				t.Errorf("field unchanged: %+v", x)
			}
		case "snapshot", "previousSnapshot":
			snapshots++
		case "change":
			change = x.ValueCode
		}
	}
	if change != "changed" || fields == 0 || snapshots != 2 {
		t.Errorf("provenance delta %+v", ev.Extension[0])
	}
}

// A subscription whose endpoint does not acknowledge the handshake, sent HandshakeAttempts
// times HandshakeRetry apart, goes to error, says why in $status (an error CodeableConcept, as
// the IG's profile has it), and gets no events or heartbeats.
func TestSubscriptionHandshakeRefused(t *testing.T) {
	e := subscriptionEnv(t)
	writer := e.token(t, "system/Subscription.cruds")
	rv := newHookReceiver(t, func(string, string, int) int { return http.StatusInternalServerError })
	c := createOrgSubscription(t, e, writer, rv.srv.URL+"/down", 60)
	clk := &testClock{t: time.Now().UTC()}
	startHookWorker(t, e, clk)
	for i := 1; i <= webhook.HandshakeAttempts; i++ {
		rv.waitNotified(t, "/down", "handshake", i)
		if got := readSubscription(t, e, writer, c.ID); i < webhook.HandshakeAttempts && got.Status != "requested" {
			t.Fatalf("after %d refused handshakes: status %s, want requested", i, got.Status)
		}
		clk.Advance(webhook.HandshakeRetry)
	}
	if got := waitStatus(t, e, writer, c.ID, "error"); !strings.Contains(got.Error, "500") {
		t.Errorf("error %q does not say why", got.Error)
	}
	st := get(t, e.url+"/fhir/Subscription/"+c.ID+"/$status", "Authorization", writer)
	var sb tnotification
	if json.Unmarshal(st.body, &sb) != nil || len(sb.Entry) != 1 || !strings.Contains(string(sb.Entry[0].Resource), `"name":"error","valueCodeableConcept":{"text":"handshake failed: `) {
		t.Errorf("$status of a subscription in error: %s", st.body)
	}
	clk.Advance(time.Hour)
	time.Sleep(50 * time.Millisecond)
	if n := len(rv.of(t, "/down", "heartbeat")); n != 0 {
		t.Errorf("%d heartbeats to a subscription in error", n)
	}
	if n := len(rv.of(t, "/down", "handshake")); n != webhook.HandshakeAttempts {
		t.Errorf("%d handshakes, want %d", n, webhook.HandshakeAttempts)
	}
}

// A receiver that starts listening only after the create has answered misses the first
// handshake; the next one, HandshakeRetry later, activates the subscription.
func TestSubscriptionHandshakeRetried(t *testing.T) {
	e := subscriptionEnv(t)
	writer := e.token(t, "system/Subscription.cruds")
	rv := newHookReceiver(t, func(_, typ string, before int) int {
		if typ == "handshake" && before == 0 {
			return http.StatusInternalServerError
		}
		return 0
	})
	c := createOrgSubscription(t, e, writer, rv.srv.URL+"/late", 0)
	clk := &testClock{t: time.Now().UTC()}
	startHookWorker(t, e, clk)
	rv.waitNotified(t, "/late", "handshake", 1)
	clk.Advance(webhook.HandshakeRetry)
	rv.waitNotified(t, "/late", "handshake", 2)
	waitStatus(t, e, writer, c.ID, "active")
}

// A channel may ask for application/json instead of application/fhir+json: the Subscription
// says so and the notifications are sent as it.
func TestSubscriptionPayloadJSON(t *testing.T) {
	e := subscriptionEnv(t)
	writer := e.token(t, "system/Subscription.cruds")
	rv := newHookReceiver(t, nil)
	body := strings.Replace(subscriptionBody(e.url+"/fhir/SubscriptionTopic/organization-changed", rv.srv.URL+"/json", "id-only", 0,
		"Organization?identifier=1234567893"), `"application/fhir+json"`, `"application/json"`, 1)
	r, c := createSubscription(t, e, writer, body)
	if r.status != http.StatusCreated || !strings.Contains(string(r.body), `"payload":"application/json"`) {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	startHookWorker(t, e, &testClock{t: time.Now().UTC()})
	if hs := rv.waitNotified(t, "/json", "handshake", 1); !strings.HasPrefix(hs.header.Get("Content-Type"), "application/json") {
		t.Errorf("handshake Content-Type %q", hs.header.Get("Content-Type"))
	}
	if got := get(t, e.url+"/fhir/Subscription/"+c.ID, "Authorization", writer); !strings.Contains(string(got.body), `"payload":"application/json"`) {
		t.Errorf("read: %s", got.body)
	}
}

// Subscriptions the server cannot honour are refused with an OperationOutcome and store
// nothing.
func TestSubscriptionValidation(t *testing.T) {
	e := subscriptionEnv(t)
	writer := e.token(t, "system/Subscription.*")
	topic := e.url + "/fhir/SubscriptionTopic/practitioner-changed"
	ok := "Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|1234567893"
	hook := "http://127.0.0.1:9/hook"
	tests := []struct {
		name, body string
		status     int
	}{
		{"not JSON", "{", 400},
		{"not a Subscription", `{"resourceType":"Patient"}`, 400},
		{"unknown topic", subscriptionBody(e.url+"/fhir/SubscriptionTopic/nope", hook, "id-only", 0, ok), 422},
		{"no filter", subscriptionBody(topic, hook, "id-only", 0), 422},
		{"filter of another type", subscriptionBody(topic, hook, "id-only", 0, "Organization?identifier=1234567893"), 422},
		{"filter by another parameter", subscriptionBody(topic, hook, "id-only", 0, "Practitioner?name=smith"), 422},
		{"filter with another system", subscriptionBody(topic, hook, "id-only", 0, "Practitioner?identifier=urn:x|1234567893"), 422},
		{"filter with a bad NPI", subscriptionBody(topic, hook, "id-only", 0, "Practitioner?identifier=1234567890"), 422},
		{"private endpoint", subscriptionBody(topic, "https://10.0.0.1/hook", "id-only", 0, ok), 422},
		{"plain http endpoint", subscriptionBody(topic, "http://93.184.215.14/hook", "id-only", 0, ok), 422},
		{"unknown payload content", subscriptionBody(topic, hook, "everything", 0, ok), 422},
		{"heartbeat too short", subscriptionBody(topic, hook, "id-only", 5, ok), 422},
		{"channel type", strings.Replace(subscriptionBody(topic, hook, "id-only", 0, ok), `"rest-hook"`, `"websocket"`, 1), 422},
		{"payload type", strings.Replace(subscriptionBody(topic, hook, "id-only", 0, ok), `"application/fhir+json"`, `"textExt/xml"`, 1), 422},
		{"reserved header", strings.Replace(subscriptionBody(topic, hook, "id-only", 0, ok), "Authorization: Bearer receiver-token", "X-Service-Signature: forged", 1), 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := createSubscription(t, e, writer, tt.body)
			if r.status != tt.status {
				t.Fatalf("%d, want %d: %s", r.status, tt.status, r.body)
			}
			decodeOutcome(t, r)
		})
	}
	recs, err := e.st.ListRecords(context.Background(), "webhook_subscription", "", 10)
	if err != nil || len(recs) != 0 {
		t.Errorf("refused subscriptions stored %d records (%v)", len(recs), err)
	}
	if r, _ := createSubscription(t, e, writer, subscriptionBody(topic, hook, "id-only", 0, ok)); r.status != http.StatusCreated {
		t.Errorf("the valid form of the table's subscriptions: %d %s", r.status, r.body)
	}
}

// The topics are listed and read at SubscriptionTopic and Basic under a SubscriptionTopic
// scope, and the CapabilityStatement lists Subscription, its topics and the backport IG.
func TestSubscriptionTopics(t *testing.T) {
	e := subscriptionEnv(t)
	reader := e.token(t, "system/*.read")
	practitioners := e.token(t, "system/Practitioner.read")
	practitionerTopic := e.url + "/fhir/SubscriptionTopic/practitioner-changed"
	tests := []struct {
		path, auth string
		status     int
		ids        []string
	}{
		{"/fhir/SubscriptionTopic", reader, 200, []string{"practitioner-changed", "organization-changed"}},
		{"/fhir/SubscriptionTopic?url=" + practitionerTopic, reader, 200, []string{"practitioner-changed"}},
		{"/fhir/Basic?code=SubscriptionTopic", reader, 200, []string{"practitioner-changed", "organization-changed"}},
		{"/fhir/Basic?code=Patient", reader, 200, nil},
		{"/fhir/SubscriptionTopic?_id=organization-changed", reader, 200, []string{"organization-changed"}},
		{"/fhir/SubscriptionTopic", practitioners, 403, nil},
		{"/fhir/SubscriptionTopic/practitioner-changed", practitioners, 403, nil},
	}
	for _, tt := range tests {
		r := get(t, e.url+tt.path, "Authorization", tt.auth)
		if r.status != tt.status {
			t.Errorf("%s: %d, want %d: %s", tt.path, r.status, tt.status, r.body)
			continue
		}
		if r.status != 200 {
			decodeOutcome(t, r)
			continue
		}
		fhirJSON(t, r.body)
		var b struct {
			Entry []struct {
				Resource struct {
					ResourceType, ID string
				}
			}
		}
		_ = json.Unmarshal(r.body, &b)
		var ids []string
		for _, en := range b.Entry {
			if en.Resource.ResourceType != "Basic" {
				t.Errorf("%s: a %s", tt.path, en.Resource.ResourceType)
			}
			ids = append(ids, en.Resource.ID)
		}
		if !slices.Equal(ids, tt.ids) {
			t.Errorf("%s: %v, want %v", tt.path, ids, tt.ids)
		}
	}
	r := get(t, e.url+"/fhir/SubscriptionTopic/practitioner-changed", "Authorization", reader)
	if r.status != 200 || !strings.Contains(string(r.body), `"valueUri":"`+practitionerTopic+`"`) {
		t.Errorf("topic read: %d %s", r.status, r.body)
	}
	for _, want := range []string{`"url":"` + topicExt + `name","valueString":"PractitionerChanged"`, `"url":"` + topicExt + `title","valueString":"Practitioner changed"`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("topic read lacks %s: %s", want, r.body)
		}
	}

	var cs struct {
		ImplementationGuide []string
		Rest                []struct {
			Resource []struct {
				Type        string
				Extension   []struct{ URL, ValueCanonical string }
				Operation   []struct{ Name string }
				Interaction []struct {
					Code string
				}
			}
		}
	}
	meta := get(t, e.url+"/fhir/metadata").body
	if err := json.Unmarshal(meta, &cs); err != nil || len(cs.Rest) != 1 {
		t.Fatal(err)
	}
	fhirJSON(t, meta)
	if !slices.ContainsFunc(cs.ImplementationGuide, func(s string) bool { return strings.Contains(s, "subscriptions-backport") }) {
		t.Errorf("implementationGuide %v", cs.ImplementationGuide)
	}
	found := map[string]bool{}
	for _, res := range cs.Rest[0].Resource {
		var codes []string
		for _, i := range res.Interaction {
			codes = append(codes, i.Code)
		}
		found[res.Type] = true
		switch res.Type {
		case "Subscription":
			var topics []string
			for _, x := range res.Extension {
				topics = append(topics, x.ValueCanonical)
			}
			if !slices.Equal(codes, []string{"create", "read", "delete"}) || len(res.Operation) != 1 || res.Operation[0].Name != "status" ||
				!slices.Contains(topics, practitionerTopic) {
				t.Errorf("Subscription entry: %v %v %v", codes, res.Operation, topics)
			}
		case "Basic":
			if !slices.Equal(codes, []string{"read", "search-type"}) {
				t.Errorf("Basic entry: %v", codes)
			}
		}
	}
	if !found["Subscription"] || !found["Basic"] {
		t.Errorf("CapabilityStatement resources %v", found)
	}
}

// Without subscriptions configured the surface neither routes nor advertises them.
func TestSubscriptionsOff(t *testing.T) {
	e := newSMARTEnv(t, false)
	auth := e.token(t, "system/Subscription.*", "system/*.read")
	if r := get(t, e.url+"/fhir/SubscriptionTopic", "Authorization", auth); r.status != http.StatusNotFound {
		t.Errorf("SubscriptionTopic: %d", r.status)
	}
	if strings.Contains(string(get(t, e.url+"/fhir/metadata").body), "subscriptions-backport") {
		t.Error("the CapabilityStatement claims the backport IG")
	}
}

// fhirID is the shape of a FHIR id.
var fhirID = regexp.MustCompile(`^[A-Za-z0-9\-.]{1,64}$`)

// fhirJSON fails the test when body holds what FHIR JSON forbids: null, an empty array or an
// empty object.
func fhirJSON(t *testing.T, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case nil:
			t.Errorf("%s is null in %.300s", path, body)
		case []any:
			if len(x) == 0 {
				t.Errorf("%s is an empty array in %.300s", path, body)
			}
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		case map[string]any:
			if len(x) == 0 {
				t.Errorf("%s is an empty object in %.300s", path, body)
			}
			for k, e := range x {
				walk(path+"."+k, e)
			}
		}
	}
	walk("$", v)
}

// Notification shapes each kind of change and payload content as the backport IG has it: the
// focus entry's request method follows the change, empty content has no focus, and handshakes
// and heartbeats carry no event.
func TestNotificationShapes(t *testing.T) {
	e := subscriptionEnv(t)
	sub := webhook.Subscription{ID: "wh_0123456789abcdef", FHIR: &webhook.FHIRChannel{Topic: e.url + "/fhir/SubscriptionTopic/organization-changed",
		FocusType: "Organization", State: webhook.FHIRActive, Events: 7}}
	snap := "2025-07-08"
	tests := []struct {
		event, change, content string
		method                 string // of the focus entry; "" for none
		typ                    string
	}{
		{webhook.EventHandshake, "", "id-only", "", "handshake"},
		{webhook.EventHeartbeat, "", "full-resource", "", "heartbeat"},
		{webhook.EventProviderChanged, "changed", "id-only", "PUT", "event-notification"},
		{webhook.EventProviderChanged, "added", "id-only", "POST", "event-notification"},
		{webhook.EventProviderChanged, "removed", "full-resource", "DELETE", "event-notification"},
		{webhook.EventProviderChanged, "changed", "empty", "", "event-notification"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.change+" "+tt.content, func(t *testing.T) {
			c := *sub.FHIR
			c.Content = tt.content
			s := sub
			s.FHIR = &c
			payload, _ := json.Marshal(webhook.ProviderChanged{Event: webhook.EventProviderChanged, NPI: "1234567893", Change: tt.change,
				Fields: map[string]webhook.FieldChange{}, Snapshot: &snap, Provenance: json.RawMessage(`{"_snapshot":"2025-07-08"}`)})
			d := webhook.Delivery{EventID: "evt_x", Event: tt.event, Payload: payload, EventNumber: 7, CreatedAt: time.Now()}
			body, err := e.fhir.Notification(context.Background(), s, d, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			fhirJSON(t, body)
			var b tnotification
			_ = json.Unmarshal(body, &b)
			p := statusOf(t, body)
			if b.Type != "history" || p.typ() != tt.typ || p.get("subscription").ValueReference.Reference != e.url+"/fhir/Subscription/wh-0123456789abcdef" {
				t.Errorf("%s", body)
			}
			hasEvent := len(p.get("notification-event").Part) > 0
			if hasEvent != (tt.typ == "event-notification") {
				t.Errorf("notification-event present %v in %s", hasEvent, body)
			}
			switch {
			case tt.method == "" && len(b.Entry) != 1:
				t.Errorf("%d entries, want the status alone", len(b.Entry))
			case tt.method != "" && (len(b.Entry) != 2 || b.Entry[1].Request == nil || b.Entry[1].Request.Method != tt.method ||
				b.Entry[1].Request.URL != "Organization/1234567893" || len(b.Entry[1].Resource) != 0):
				t.Errorf("focus entry of %s", body)
			}
		})
	}
	if _, err := e.fhir.Notification(context.Background(), sub, webhook.Delivery{Event: webhook.EventPing}, time.Now()); err == nil {
		t.Error("a ping rendered as a FHIR notification")
	}
}

// topicExt is the R5 SubscriptionTopic cross-version extension's URL prefix.
const topicExt = "http://hl7.org/fhir/5.0/StructureDefinition/extension-SubscriptionTopic."
