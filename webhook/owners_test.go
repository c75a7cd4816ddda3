package webhook

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/smart"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/liveserver"
	"providerdir/testing/webhookreceiver"
)

// ownerEnv is a store holding real owners, a live resolver key and an enabled SMART client,
// and the Owners a deployment wires over them.
type ownerEnv struct {
	st     store.Store
	clk    *webhookreceiver.Clock
	keys   *apikey.Manager
	key    apikey.Key
	client string
	owners Owners
}

func newOwnerEnv(t *testing.T) *ownerEnv {
	t.Helper()
	st := backends.Embedded(t)
	keys := apikey.NewManager(st, nil)
	_, k, err := keys.Create(context.Background(), apikey.TierStarter, t.Name(), apikey.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := liveserver.AddSMARTClient(t, st, t.Name(), "system/Subscription.cruds")
	return &ownerEnv{st: st, clk: webhookreceiver.NewClock(), keys: keys, key: k, client: c.ID,
		owners: Owners{Clients: smart.Registry{Store: st}, Keys: keys}}
}

// worker is a new worker over e's store and owners, so that it asks the owners afresh.
func (e *ownerEnv) worker() *Worker {
	return NewWorker(WorkerOptions{Store: e.st, Now: e.clk.Now, Policy: AddressPolicy{AllowLoopback: true}, Owners: e.owners})
}

// owned stores an active webhook of owner to rv.
func (e *ownerEnv) owned(t *testing.T, rv *webhookreceiver.Receiver, owner string) Subscription {
	t.Helper()
	s := subscribe(t, e.st, rv, rv.URL, []string{EventSourceRefreshed})
	s, err := updateSubscription(context.Background(), e.st, s.ID, func(s *Subscription) error { s.Owner = owner; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// deliverNow claims due delivery id and makes its attempt, as a sender of w does, and returns
// the delivery as recorded.
func deliverNow(t *testing.T, w *Worker, e *ownerEnv, id string) Delivery {
	t.Helper()
	entry := dueID(time.Time{}, id)
	d, ok, err := w.claim(context.Background(), entry, id, e.clk.Now())
	if err != nil || !ok {
		t.Fatalf("claim %s: %v %v", id, ok, err)
	}
	w.deliver(context.Background(), entry, d)
	return delivery(t, e.st, id)
}

// A delivery whose owner is no longer active (a revoked or expired key, a disabled or removed
// SMART client) is not sent: it fails with the owner's reason, and the subscription is disabled
// by its owner, with that reason.
func TestOwnerNotActiveNotDelivered(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		owner  func(e *ownerEnv) string
		stop   func(t *testing.T, e *ownerEnv)
		reason string // in the failure and the subscription's reason
	}{
		{"revoked key", func(e *ownerEnv) string { return e.key.ID },
			func(t *testing.T, e *ownerEnv) {
				if _, _, err := e.keys.Revoke(ctx, e.key.ID); err != nil {
					t.Fatal(err)
				}
			}, "is revoked"},
		{"disabled client", func(e *ownerEnv) string { return FHIROwner(e.client) },
			func(t *testing.T, e *ownerEnv) {
				if _, err := smart.SetClientEnabled(ctx, e.st, e.client, false); err != nil {
					t.Fatal(err)
				}
			}, "is disabled"},
		{"removed client", func(e *ownerEnv) string { return FHIROwner(e.client) },
			func(t *testing.T, e *ownerEnv) {
				if err := e.st.DeleteRecord(ctx, smart.ClientKind, e.client, 0); err != nil {
					t.Fatal(err)
				}
			}, "is no longer registered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOwnerEnv(t)
			rv := webhookreceiver.NewReceiver(t, signed, nil)
			sub := e.owned(t, rv, tt.owner(e))
			if d := deliverNow(t, e.worker(), e, enqueueTest(t, e.st, e.clk, sub, 1)); d.Status != DeliveryDelivered {
				t.Fatalf("delivery while the owner is active: %+v", d)
			}
			tt.stop(t, e)
			d := deliverNow(t, e.worker(), e, enqueueTest(t, e.st, e.clk, sub, 2))
			if d.Status != DeliveryFailed || !strings.HasPrefix(d.FailReason, "not delivered: ") || !strings.Contains(d.FailReason, tt.reason) || d.Attempts != 1 {
				t.Errorf("delivery after the owner stopped: %+v", d)
			}
			if n := len(rv.Requests()); n != 1 {
				t.Errorf("%d requests reached the receiver, want 1", n)
			}
			s, err := getSubscription(ctx, e.st, sub.ID)
			if err != nil || s.Status != StatusDisabled || s.DisabledBy != DisabledByOwner || !strings.Contains(s.DisabledReason, tt.reason) {
				t.Errorf("subscription %+v (%v), want disabled by its owner", s, err)
			}
		})
	}
}

// Following the owners disables the subscriptions of an owner that stopped and makes them
// active again when it is back, a FHIR subscription whose handshake never went out with a new
// handshake; a subscription the operator or its receiver disabled stays disabled.
func TestFollowOwners(t *testing.T) {
	ctx := context.Background()
	e := newOwnerEnv(t)
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	owner := FHIROwner(e.client)
	fhirSub, err := CreateFHIR(ctx, e.st, AddressPolicy{AllowLoopback: true}, owner, rv.URL, []string{"1234567893"},
		FHIRChannel{Topic: "https://directory.example/fhir/SubscriptionTopic/organization-changed", FocusType: "Organization", Content: "id-only"}, e.clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	hook := e.owned(t, rv, owner)
	byOperator := e.owned(t, rv, owner)
	if _, err := disableSubscription(ctx, e.st, byOperator.ID, DisabledByOperator, "maintenance"); err != nil {
		t.Fatal(err)
	}
	gone := e.owned(t, rv, owner)
	if _, err := disableSubscription(ctx, e.st, gone.ID, DisabledByReceiver, "the receiver answered 410 Gone"); err != nil {
		t.Fatal(err)
	}
	state := func(id string) Subscription {
		t.Helper()
		s, err := getSubscription(ctx, e.st, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	if _, err := smart.SetClientEnabled(ctx, e.st, e.client, false); err != nil {
		t.Fatal(err)
	}
	if err := e.worker().followOwners(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{fhirSub.ID, hook.ID} {
		if s := state(id); s.Status != StatusDisabled || s.DisabledBy != DisabledByOwner || !strings.Contains(s.DisabledReason, e.client+" is disabled") {
			t.Errorf("%s with its client disabled: %+v", id, s)
		}
	}
	// The handshake due since the creation is not sent while the client is disabled.
	if d := deliverNow(t, e.worker(), e, fhirSub.ID+".evt_handshake"); d.Status != DeliveryFailed || !strings.Contains(d.FailReason, "is disabled") {
		t.Errorf("handshake of a disabled client's subscription: %+v", d)
	}

	if _, err := smart.SetClientEnabled(ctx, e.st, e.client, true); err != nil {
		t.Fatal(err)
	}
	if err := e.worker().followOwners(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{fhirSub.ID, hook.ID} {
		if s := state(id); s.Status != StatusActive || s.DisabledBy != "" || s.DisabledReason != "" {
			t.Errorf("%s with its client enabled again: %+v", id, s)
		}
	}
	for id, by := range map[string]string{byOperator.ID: DisabledByOperator, gone.ID: DisabledByReceiver} {
		if s := state(id); s.Status != StatusDisabled || s.DisabledBy != by {
			t.Errorf("%s disabled by the %s: %+v", id, by, s)
		}
	}
	ds, err := listDeliveries(ctx, e.st, fhirSub.ID, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var handshakes []Delivery
	for _, d := range ds {
		if d.Event == EventHandshake {
			handshakes = append(handshakes, d)
		}
	}
	if len(handshakes) != 2 || handshakes[1].Status != DeliveryPending || state(fhirSub.ID).FHIR.State != FHIRRequested {
		t.Errorf("handshakes after the client came back: %+v", handshakes)
	}
}

// The operator disables any subscription and enables it again, but not while its owner is not
// active: a revoked key's webhook stays disabled.
func TestOperatorEnable(t *testing.T) {
	ctx := context.Background()
	e := newOwnerEnv(t)
	sv := NewService(e.st, AddressPolicy{AllowLoopback: true}, e.clk.Now)
	sub := e.owned(t, webhookreceiver.NewReceiver(t, signed, nil), e.key.ID)
	got, err := sv.Disable(ctx, sub.ID, "maintenance")
	if err != nil || got.Status != StatusDisabled || got.DisabledBy != DisabledByOperator || got.DisabledReason != "maintenance" {
		t.Fatalf("disable: %+v %v", got, err)
	}
	if got, changed, err := sv.Enable(ctx, sub.ID, e.owners); err != nil || !changed || got.Status != StatusActive {
		t.Fatalf("enable: %+v %v %v", got, changed, err)
	}
	if _, changed, err := sv.Enable(ctx, sub.ID, e.owners); err != nil || changed {
		t.Errorf("enable an active webhook: changed %v, %v", changed, err)
	}
	if _, _, err := e.keys.Revoke(ctx, e.key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := sv.Disable(ctx, sub.ID, "maintenance"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sv.Enable(ctx, sub.ID, e.owners); err == nil || !strings.Contains(err.Error(), "is revoked") {
		t.Errorf("enable a revoked key's webhook: %v", err)
	}
	for _, id := range []string{"wh_0000000000000000", "nope"} {
		if _, err := sv.Disable(ctx, id, "x"); !errors.Is(err, ErrNotFound) {
			t.Errorf("disable %s: %v, want ErrNotFound", id, err)
		}
	}
}
