package fhir_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/webhook"
)

// A watched Practitioner that the next snapshot deactivates, whose read then answers 410, is
// notified as a deletion (Backport IG): the focus entry is a DELETE without a resource, under
// full-resource and id-only content alike, and the provenance delta says deactivated.
func TestSubscriptionDeactivatedFocus(t *testing.T) {
	e := subscriptionEnv(t)
	_, next := drops(t)
	reader := e.token(t, "system/*.read")
	writer := e.token(t, "system/Subscription.*", "system/*.read")
	npi := ""
	for _, c := range nextManifest.Changes.Deactivated {
		if get(t, e.url+"/fhir/Practitioner/"+c.Key, "Authorization", reader).status == http.StatusOK {
			npi = c.Key
			break
		}
	}
	if npi == "" {
		t.Fatal("the evolved drop deactivates no served Practitioner")
	}
	rv := newHookReceiver(t, nil)
	topic := e.url + "/fhir/SubscriptionTopic/practitioner-changed"
	filter := "Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|" + npi
	var ids []string
	for _, content := range []string{"full-resource", "id-only"} {
		r, c := createSubscription(t, e, writer, subscriptionBody(topic, rv.srv.URL+"/"+content, content, 0, filter))
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		ids = append(ids, c.ID)
	}
	clk := &testClock{t: time.Now().UTC()}
	startHookWorker(t, e, clk)
	for _, id := range ids {
		waitStatus(t, e, writer, id, "active")
	}
	if err := webhook.Fanout(context.Background(), e.st, clk.Now); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: e.st, Dir: next, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	if got := get(t, e.url+"/fhir/Practitioner/"+npi, "Authorization", reader); got.status != http.StatusGone {
		t.Fatalf("read of the deactivated Practitioner: %d", got.status)
	}
	for _, content := range []string{"full-resource", "id-only"} {
		body := rv.waitNotified(t, "/"+content, "event-notification", 1).body
		var b tnotification
		if err := json.Unmarshal(body, &b); err != nil || len(b.Entry) != 2 {
			t.Fatalf("%s: notification %s", content, body)
		}
		focus := b.Entry[1]
		if focus.Request == nil || focus.Request.Method != "DELETE" || focus.Request.URL != "Practitioner/"+npi || len(focus.Resource) != 0 {
			t.Errorf("%s: focus entry %+v", content, focus)
		}
		if !strings.Contains(string(body), `"url":"change","valueCode":"deactivated"`) {
			t.Errorf("%s: the provenance delta does not say deactivated: %s", content, body)
		}
	}
}
