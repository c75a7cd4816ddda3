package webhooks

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/testing/webhookreceiver"
	"providerdir/webhook"
)

// Revoking a key stops its webhooks: the worker, asking the key registry as providerd wires it,
// disables them with the reason and sends nothing more (an event enqueued after the revocation
// fails, logged with why). The key itself can no longer reach them (401); the operator can.
func TestRevokedKeyStopsWebhooks(t *testing.T) {
	ctx := context.Background()
	e := newAPIEnv(t)
	live := e.key(t, apikey.TierStarter)
	keyID := e.owners[len(e.owners)-1]
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	var created View
	body := fmt.Sprintf(`{"url":%q,"events":["source.refreshed","provider.changed"],"npis":["1234567893"]}`, rv.URL+"/in")
	if status, _ := e.do(t, http.MethodPost, "/webhooks", live, body, &created); status != http.StatusCreated {
		t.Fatalf("create: %d", status)
	}
	rv.SetSecrets(created.SigningSecret)
	webhookreceiver.Run(t, webhook.NewWorker(webhook.WorkerOptions{Store: e.st, Now: e.now, Policy: webhook.AddressPolicy{AllowLoopback: true},
		PollInterval: 2 * time.Millisecond, FanoutInterval: 5 * time.Millisecond, Owners: webhook.Owners{Keys: e.gate.Keys()}}).Run)
	if status, _ := e.do(t, http.MethodPost, "/webhooks/"+created.ID+"/test", live, "", nil); status != http.StatusAccepted {
		t.Fatalf("test: %d", status)
	}
	webhookreceiver.WaitFor(t, "the ping", func() bool { return len(rv.Requests()) == 1 })

	if _, _, err := e.gate.Keys().Revoke(ctx, keyID); err != nil {
		t.Fatal(err)
	}
	if status, _ := e.do(t, http.MethodDelete, "/webhooks/"+created.ID, live, "", nil); status != http.StatusUnauthorized {
		t.Errorf("delete with the revoked key: %d, want 401", status)
	}
	ops := webhook.NewService(e.st, webhook.AddressPolicy{}, e.now)
	var sub webhook.Subscription
	webhookreceiver.WaitFor(t, "the revoked key's webhook disabled", func() bool {
		var err error
		sub, err = ops.Find(ctx, created.ID)
		return err == nil && sub.Status == webhook.StatusDisabled
	})
	if sub.DisabledBy != webhook.DisabledByOwner || sub.DisabledReason != "the API key "+keyID+" is revoked" {
		t.Errorf("disabled by %q: %q", sub.DisabledBy, sub.DisabledReason)
	}
	event, err := ops.SendTest(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	var d webhook.Delivery
	webhookreceiver.WaitFor(t, "the event after the revocation to be failed", func() bool {
		ds, _, err := ops.Deliveries(ctx, sub, "", "")
		for _, x := range ds {
			if x.EventID == event {
				d = x
			}
		}
		return err == nil && d.Status == webhook.DeliveryFailed
	})
	if !strings.Contains(d.FailReason, keyID+" is revoked") || len(d.Log) != 0 || len(rv.Requests()) != 1 {
		t.Errorf("delivery after the revocation %+v; %d requests reached the receiver, want 1", d, len(rv.Requests()))
	}
	if err := ops.Delete(ctx, sub); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Find(ctx, created.ID); err != webhook.ErrNotFound {
		t.Errorf("find after the operator deleted it: %v", err)
	}
}
