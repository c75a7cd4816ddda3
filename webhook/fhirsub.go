package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"providerdir/store"
)

// FHIR subscriptions (Subscriptions R5 Backport IG on R4) are webhook subscriptions of another
// kind: a Subscription record whose FHIR member is set. They watch NPIs for provider.changed
// like any webhook, share the outbox, the worker, its retries and its signature header, and
// differ in three ways: the body of each delivery is a FHIR notification Bundle rendered at
// send time by the worker's Notifier; a handshake is sent on creation and decides between the
// states active and error; and heartbeats are sent every heartbeat period while active. This
// file holds the records; fhirsub_delivery.go the handshake and the notification requests,
// fhirsub_heartbeat.go the heartbeats. Package fhir serves the resources and renders the
// notification Bundles (its subscription*.go).

// FHIR subscription states (R4 Subscription.status).
const (
	FHIRRequested = "requested"
	FHIRActive    = "active"
	FHIRError     = "error"
)

// Notification types of the backport IG besides event-notification, sent as events of their
// own through the outbox.
const (
	EventHandshake = "handshake"
	EventHeartbeat = "heartbeat"
)

// FHIRChannel is what a FHIR subscription adds to a webhook subscription.
type FHIRChannel struct {
	// Topic is the canonical URL of the SubscriptionTopic.
	Topic string `json:"topic"`
	// FocusType is the resource type the topic's notifications carry (Practitioner or
	// Organization).
	FocusType string `json:"focus_type"`
	// Filters are the backport-filter-criteria values as given.
	Filters []string `json:"filters"`
	// Content is empty, id-only or full-resource.
	Content string `json:"content"`
	// Payload is the media type notifications are sent as when it is not application/fhir+json
	// (application/json, which some receivers ask for).
	Payload string `json:"payload,omitempty"`
	// HeartbeatSeconds is the heartbeat period; 0 sends none.
	HeartbeatSeconds int `json:"heartbeat_seconds,omitempty"`
	// Headers are "Name: value" strings sent with every notification.
	Headers []string `json:"headers,omitempty"`
	// Reason is Subscription.reason as given.
	Reason string `json:"reason,omitempty"`
	State  string `json:"state"`
	// Error says why the subscription is in the error state.
	Error string `json:"error,omitempty"`
	// Events counts the event notifications numbered so far
	// (events-since-subscription-start).
	Events int64 `json:"events"`
	// ActivatedAt is when the handshake was acknowledged; heartbeats count from it.
	ActivatedAt *time.Time `json:"activated_at,omitempty"`
	// Heartbeats counts the heartbeats enqueued.
	Heartbeats int64 `json:"heartbeats"`
	// FocusWithheld is never stored: the worker sets it on the channel it hands the Notifier
	// when the owner's scopes do not let it read FocusType at send time. The notification
	// then carries the focus reference alone, as id-only content does, and nothing of the
	// record (no resource, no field values of what changed).
	FocusWithheld bool `json:"-"`
}

// FHIROwner is the owner of a FHIR subscription of a SMART client: a prefix keeps it apart from
// the resolver keys that own webhooks.
func FHIROwner(clientID string) string { return fhirOwnerPrefix + clientID }

const fhirOwnerPrefix = "smart:"

// CreateFHIR stores a new FHIR subscription for owner, delivering to url (checked against the
// address policy) and watching npis, in the state requested, and enqueues its handshake. The
// signing secret is returned in the subscription, to be shown once.
func CreateFHIR(ctx context.Context, st store.Store, policy AddressPolicy, owner, url string, npis []string, ch FHIRChannel, now time.Time) (Subscription, error) {
	u, err := policy.CheckURL(ctx, url)
	if err != nil {
		return Subscription{}, &InputError{CodeInvalidURL, "channel.endpoint: " + err.Error()}
	}
	_, npis, err = Registration{Events: []string{EventProviderChanged}, NPIs: npis}.normalize()
	if err != nil {
		return Subscription{}, err
	}
	mine := 0
	all, err := allSubscriptions(ctx, st)
	if err != nil {
		return Subscription{}, err
	}
	for _, s := range all {
		if s.Owner == owner {
			mine++
		}
	}
	if mine >= MaxSubscriptionsPerKey {
		return Subscription{}, &InputError{CodeLimitReached, fmt.Sprintf("a client may hold at most %d subscriptions; delete one first", MaxSubscriptionsPerKey)}
	}
	ch.State, ch.Events, ch.Heartbeats, ch.ActivatedAt, ch.Error = FHIRRequested, 0, 0, nil, ""
	s := Subscription{ID: newSubscriptionID(), Owner: owner, URL: u.String(), Events: []string{EventProviderChanged},
		NPIs: npis, Status: StatusActive, CreatedAt: now.UTC(), Secret: NewSecret(), FHIR: &ch}
	rec, err := s.record()
	if err != nil {
		return Subscription{}, err
	}
	if _, err := st.PutRecord(ctx, rec); err != nil {
		return Subscription{}, err
	}
	_, err = enqueue(ctx, st, s.ID, "evt_handshake", EventHandshake, []byte(`{}`), now.UTC())
	return s, err
}

// GetFHIR reads owner's FHIR subscription id; ErrNotFound when there is none of owner's.
func GetFHIR(ctx context.Context, st store.Store, owner, id string) (Subscription, error) {
	if !validSubscriptionID(id) {
		return Subscription{}, ErrNotFound
	}
	s, err := getSubscription(ctx, st, id)
	if err != nil {
		return Subscription{}, err
	}
	if s.FHIR == nil || s.Owner != owner {
		return Subscription{}, ErrNotFound
	}
	return s, nil
}

// DeleteFHIR removes owner's FHIR subscription id; deliveries still pending fail as
// "subscription deleted".
func DeleteFHIR(ctx context.Context, st store.Store, owner, id string) error {
	if _, err := GetFHIR(ctx, st, owner, id); err != nil {
		return err
	}
	err := st.DeleteRecord(ctx, subscriptionKind, id, 0)
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotFound
	}
	return err
}
