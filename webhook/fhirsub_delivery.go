package webhook

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"providerdir/store"
)

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

// A handshake that is not acknowledged is sent again HandshakeRetry later, HandshakeAttempts
// times in all, before the subscription is in error: it is sent as soon as the subscription is
// created, and a receiver (a test harness, a service that stores the subscription's id first)
// often starts listening only once the create has answered.
const (
	HandshakeAttempts = 6
	HandshakeRetry    = 10 * time.Second
)
