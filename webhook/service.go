package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"providerdir/store"
)

// Service manages the webhooks of resolver keys: what the registration endpoints (package
// rest/webhooks) do, with the validation and error codes of the contract, and no HTTP. A
// caller's mistake comes back as an *InputError carrying the error code; anything else is a
// failure of the store.
type Service struct {
	st     store.Store
	policy AddressPolicy
	now    func() time.Time
}

// NewService returns the service over st; URLs are checked against policy; now is the clock
// (nil: time.Now).
func NewService(st store.Store, policy AddressPolicy, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{st: st, policy: policy, now: now}
}

// Now is the service's clock, which also says which secrets a subscription signs with.
func (sv *Service) Now() time.Time { return sv.now() }

// Create registers a webhook for owner (a live key's id). Bad events or NPIs, a URL the
// address policy refuses, or an owner already at MaxSubscriptionsPerKey give an *InputError
// (CodeLimitReached for the last). The subscription returned holds its signing secret, to be
// shown once.
func (sv *Service) Create(ctx context.Context, owner string, reg Registration) (Subscription, error) {
	events, npis, err := reg.normalize()
	if err != nil {
		return Subscription{}, err
	}
	u, err := sv.policy.CheckURL(ctx, reg.URL)
	if err != nil {
		return Subscription{}, &InputError{CodeInvalidURL, err.Error()}
	}
	mine, err := sv.List(ctx, owner)
	if err != nil {
		return Subscription{}, err
	}
	if len(mine) >= MaxSubscriptionsPerKey {
		return Subscription{}, &InputError{CodeLimitReached, fmt.Sprintf("A key may hold at most %d webhooks; delete one first.", MaxSubscriptionsPerKey)}
	}
	s := Subscription{ID: newSubscriptionID(), Owner: owner, URL: u.String(), Events: events, NPIs: npis,
		Status: StatusActive, CreatedAt: sv.now().UTC(), Secret: NewSecret()}
	rec, err := s.record()
	if err == nil {
		_, err = sv.st.PutRecord(ctx, rec)
	}
	if err != nil {
		return Subscription{}, err
	}
	return s, nil
}

// List returns the subscriptions owner holds, by id.
func (sv *Service) List(ctx context.Context, owner string) ([]Subscription, error) {
	all, err := allSubscriptions(ctx, sv.st)
	if err != nil {
		return nil, err
	}
	var out []Subscription
	for _, s := range all {
		if s.Owner == owner {
			out = append(out, s)
		}
	}
	return out, nil
}

// Get reads owner's subscription id: ErrNotFound when id is malformed, unknown or another
// owner's (the cases are not told apart, so ids of others cannot be probed).
func (sv *Service) Get(ctx context.Context, owner, id string) (Subscription, error) {
	if !validSubscriptionID(id) {
		return Subscription{}, ErrNotFound
	}
	s, err := getSubscription(ctx, sv.st, id)
	if err == nil && s.Owner != owner {
		return Subscription{}, ErrNotFound
	}
	return s, err
}

// Delete removes subscription s, as Get returned it; deleting one already gone succeeds. Its
// pending deliveries are failed by the worker when it next comes to them; their log stays
// readable by id until then.
func (sv *Service) Delete(ctx context.Context, s Subscription) error {
	err := sv.st.DeleteRecord(ctx, subscriptionKind, s.ID, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// The operator's view: every subscription of every owner, webhooks and FHIR subscriptions
// alike, by id, with no owner to match (package cmd/providerctl, webhooks).

// All returns every subscription, by id.
func (sv *Service) All(ctx context.Context) ([]Subscription, error) {
	return allSubscriptions(ctx, sv.st)
}

// Find reads subscription id whoever owns it; ErrNotFound when id is malformed or unknown.
func (sv *Service) Find(ctx context.Context, id string) (Subscription, error) {
	if !validSubscriptionID(id) {
		return Subscription{}, ErrNotFound
	}
	return getSubscription(ctx, sv.st, id)
}

// Disable stops subscription id for the operator, with reason: nothing more is delivered to it
// (its pending deliveries fail) until Enable, whatever becomes of its owner.
func (sv *Service) Disable(ctx context.Context, id, reason string) (Subscription, error) {
	if !validSubscriptionID(id) {
		return Subscription{}, ErrNotFound
	}
	return disableSubscription(ctx, sv.st, id, DisabledByOperator, reason)
}

// ErrOwnerInactive: Enable refused a subscription whose owner is not active.
var ErrOwnerInactive = errors.New("webhook: the owner of the subscription is not active")

// Enable makes subscription id active again, however it was disabled, once owners says its
// owner is active (else ErrOwnerInactive, wrapped with the owner's reason); a FHIR subscription
// whose handshake had not been acknowledged is sent a new one. changed is false when it was
// active already.
func (sv *Service) Enable(ctx context.Context, id string, owners Owners) (s Subscription, changed bool, err error) {
	if s, err = sv.Find(ctx, id); err != nil {
		return s, false, err
	}
	if s.Status == StatusActive {
		return s, false, nil
	}
	active, reason, err := owners.Status(ctx, s.Owner)
	if err != nil {
		return s, false, err
	}
	if !active {
		return s, false, fmt.Errorf("%w: %s", ErrOwnerInactive, reason)
	}
	return enableSubscription(ctx, sv.st, id, func(Subscription) bool { return true }, sv.now())
}

// SendTest enqueues a ping to subscription s, delivered and logged like any event, and returns
// the ping's event id.
func (sv *Service) SendTest(ctx context.Context, s Subscription) (string, error) {
	now := sv.now().UTC()
	id := "evt_t" + strconv.FormatInt(now.UnixNano(), 10) + "_" + newSubscriptionID()[3:]
	payload, _ := json.Marshal(Ping{Event: EventPing, Subscription: s.ID})
	if _, err := enqueue(ctx, sv.st, s.ID, id, EventPing, payload, now); err != nil {
		return "", err
	}
	return id, nil
}

// Rotate gives subscription s a new signing secret, returned in the subscription to be shown
// once. The old one goes on signing beside it for RotationOverlap, so deliveries carry two v1
// values meanwhile. ErrNotFound when s was deleted meanwhile.
func (sv *Service) Rotate(ctx context.Context, s Subscription) (Subscription, error) {
	secret := NewSecret()
	until := sv.now().UTC().Add(RotationOverlap)
	return updateSubscription(ctx, sv.st, s.ID, func(cur *Subscription) error {
		cur.PreviousSecret, cur.PreviousUntil, cur.Secret = cur.Secret, &until, secret
		return nil
	})
}

// Paging of the delivery log.
const (
	defaultDeliveryPage = 50
	maxDeliveryPage     = 100
)

// Deliveries returns a page of subscription s's delivery log by event id, and the cursor of
// the next page ("" on the last). limit and after are as the query gives them: limit an
// integer from 1 to 100 (empty: 50), after a cursor of a previous page (empty: the first page);
// anything else is an *InputError (CodeInvalidBody).
func (sv *Service) Deliveries(ctx context.Context, s Subscription, limit, after string) ([]Delivery, string, error) {
	n := defaultDeliveryPage
	if limit != "" {
		var err error
		n, err = strconv.Atoi(limit)
		if err != nil || n < 1 || n > maxDeliveryPage {
			return nil, "", &InputError{CodeInvalidBody, fmt.Sprintf("limit must be an integer from 1 to %d.", maxDeliveryPage)}
		}
	}
	from := ""
	if after != "" {
		if !validEventID(after) {
			return nil, "", &InputError{CodeInvalidBody, "after must be the next value of a previous page."}
		}
		from = s.ID + "." + after
	}
	ds, err := listDeliveries(ctx, sv.st, s.ID, from, n+1)
	if err != nil || len(ds) <= n {
		return ds, "", err
	}
	ds = ds[:n]
	return ds, ds[n-1].EventID, nil
}

// PreviousSecretSigns reports whether the secret rotated out of s still signs deliveries at
// now, beside the current one.
func (s Subscription) PreviousSecretSigns(now time.Time) bool { return len(s.secrets(now)) > 1 }
