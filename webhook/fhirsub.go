package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"providerdir/store"
)

// FHIR subscriptions (Subscriptions R5 Backport IG on R4) are webhook subscriptions of another
// kind: a Subscription record whose FHIR member is set. They watch NPIs for provider.changed
// like any webhook, share the outbox, the worker, its retries and its signature header, and
// differ in three ways: the body of each delivery is a FHIR notification Bundle rendered at
// send time by the worker's Notifier; a handshake is sent on creation and decides between the
// states active and error; and heartbeats are sent every heartbeat period while active.

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

// A handshake that is not acknowledged is sent again HandshakeRetry later, HandshakeAttempts
// times in all, before the subscription is in error: it is sent as soon as the subscription is
// created, and a receiver (a test harness, a service that stores the subscription's id first)
// often starts listening only once the create has answered.
const (
	HandshakeAttempts = 6
	HandshakeRetry    = 10 * time.Second
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

// Notifier renders the body of a delivery to a FHIR subscription: the notification Bundle.
// sub is the subscription as it is when the attempt is made, d the delivery (its EventNumber
// set for an event notification).
type Notifier interface {
	Notification(ctx context.Context, sub Subscription, d Delivery, at time.Time) ([]byte, error)
}

// numberEvent gives an event notification its event number: the subscription's event count,
// moved on by compare-and-swap. A number given and lost to a crash before the delivery was
// stored leaves a gap in the numbering, which the IG allows a client to detect and ignore.
func numberEvent(ctx context.Context, st store.Store, subID string) (int64, error) {
	var n int64
	_, err := updateSubscription(ctx, st, subID, func(s *Subscription) error {
		if s.FHIR == nil {
			return ErrNotFound
		}
		s.FHIR.Events++
		n = s.FHIR.Events
		return nil
	})
	return n, err
}

// retryHandshake makes a failed handshake attempt due again HandshakeRetry later, and reports
// whether it did: not once it is acknowledged, refused with 410 Gone, or sent HandshakeAttempts
// times.
func retryHandshake(d *Delivery, a Attempt) bool {
	if d.Status == DeliveryDelivered || a.Status == http.StatusGone || d.Attempts >= HandshakeAttempts {
		return false
	}
	d.Status, d.FailReason, d.NextAttemptAt = DeliveryPending, "", a.At.Add(HandshakeRetry)
	return true
}

// settleHandshake records the outcome of a handshake that is not retried: active once
// acknowledged, else error, the answer the client reads in the status.
func settleHandshake(ctx context.Context, st store.Store, d *Delivery, a Attempt) error {
	ok := d.Status == DeliveryDelivered
	if !ok {
		d.Status, d.FailReason = DeliveryFailed, "the handshake was not acknowledged with a 2xx"
	}
	_, err := updateSubscription(ctx, st, d.Subscription, func(s *Subscription) error {
		if s.FHIR == nil || s.FHIR.State != FHIRRequested {
			return store.SkipWrite
		}
		if ok {
			at := a.At
			s.FHIR.State, s.FHIR.ActivatedAt = FHIRActive, &at
			return nil
		}
		s.FHIR.State = FHIRError
		s.FHIR.Error = "handshake failed: " + attemptOutcome(a)
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// attemptOutcome words an attempt's result for a subscription's error.
func attemptOutcome(a Attempt) string {
	if a.Status != 0 {
		return "the endpoint answered HTTP " + strconv.Itoa(a.Status)
	}
	return a.Error
}

// Heartbeats enqueues the heartbeats that have fallen due: heartbeat n of an active FHIR
// subscription is due n heartbeat periods after its activation. Only the latest one due is
// sent when several are (after a pause of the worker); its event id is its number, so workers
// running this at once enqueue it once.
func Heartbeats(ctx context.Context, st store.Store, now time.Time) error {
	subs, err := fhirSubscriptions(ctx, st)
	if err != nil {
		return err
	}
	for _, s := range subs {
		c := s.FHIR
		if c == nil || c.State != FHIRActive || c.HeartbeatSeconds <= 0 || c.ActivatedAt == nil || s.Status != StatusActive {
			continue
		}
		due := int64(now.Sub(*c.ActivatedAt) / (time.Duration(c.HeartbeatSeconds) * time.Second))
		if due <= c.Heartbeats {
			continue
		}
		_, err := updateSubscription(ctx, st, s.ID, func(cur *Subscription) error {
			if cur.FHIR == nil || cur.FHIR.Heartbeats >= due {
				return store.SkipWrite
			}
			cur.FHIR.Heartbeats = due
			return nil
		})
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if _, err := enqueue(ctx, st, s.ID, "evt_heartbeat_"+strconv.FormatInt(due, 10), EventHeartbeat, []byte(`{}`), now.UTC()); err != nil {
			return err
		}
	}
	return nil
}

// fhirSubscriptions reads the FHIR subscriptions, decoding no webhook's record: a webhook's
// watch list of a thousand NPIs costs more to decode than the rest of a heartbeat pass.
func fhirSubscriptions(ctx context.Context, st store.Store) ([]Subscription, error) {
	var out []Subscription
	err := store.EachRecord(ctx, st, subscriptionKind, func(rec store.Record) error {
		if !bytes.Contains(rec.Body, []byte(`"fhir":{`)) {
			return nil
		}
		s, err := decodeSubscription(rec)
		if err == nil && s.FHIR != nil {
			out = append(out, s)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fhirBody is the body of an attempt to a FHIR subscription: the Notifier's Bundle.
func fhirBody(ctx context.Context, n Notifier, sub Subscription, d Delivery, at time.Time) ([]byte, error) {
	if n == nil {
		return nil, errors.New("no FHIR notifier is configured")
	}
	return n.Notification(ctx, sub, d, at)
}

// ChannelHeader splits a channel header string "Name: value" into a valid field name and
// value; false when it is not one, or names a header the service sets itself.
func ChannelHeader(s string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(s, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || !headerName(name) || strings.ContainsAny(value, "\r\n\x00") {
		return "", "", false
	}
	switch http.CanonicalHeaderKey(name) {
	case "Content-Type", "Content-Length", "Host", "User-Agent", "Transfer-Encoding", "Connection",
		HeaderEventID, HeaderEvent, HeaderSignature:
		return "", "", false
	}
	return name, value, true
}

// setChannelHeaders adds a FHIR subscription's channel headers to a notification request.
func setChannelHeaders(h http.Header, headers []string) {
	for _, s := range headers {
		if name, value, ok := ChannelHeader(s); ok {
			h.Add(name, value)
		}
	}
}

// headerName reports whether s is an HTTP field name: one or more RFC 9110 token characters.
func headerName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return true
}
