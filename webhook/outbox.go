package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"providerdir/store"
)

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	// DeliveryFailed: no 2xx within the retry window, or the receiver answered 410, or the
	// subscription was deleted or disabled before the delivery went out.
	DeliveryFailed = "failed"
)

// Delivery is one event on its way to one subscription: the outbox record.
type Delivery struct {
	ID           string `json:"id"`
	Subscription string `json:"subscription"`
	// EventID is sent as X-Service-Event-Id on every attempt.
	EventID string `json:"event_id"`
	Event   string `json:"event"`
	// Payload is the event body without delivered_at, which each attempt adds.
	Payload       json.RawMessage `json:"payload"`
	Status        string          `json:"status"`
	Attempts      int             `json:"attempts"`
	CreatedAt     time.Time       `json:"created_at"`
	NextAttemptAt time.Time       `json:"next_attempt_at"`
	// Lease: the worker that claimed the delivery and until when; another worker may take it
	// over once the lease has lapsed.
	LeaseOwner string    `json:"lease_owner,omitempty"`
	LeaseUntil time.Time `json:"lease_until"`
	// Log holds the last MaxLoggedAttempts attempts, oldest first.
	Log         []Attempt  `json:"log,omitempty"`
	DeliveredAt *time.Time `json:"delivered_at,omitempty"`
	// FailReason says why a failed delivery stopped.
	FailReason string `json:"fail_reason,omitempty"`
	// EventNumber is the event's number in a FHIR subscription's notification stream, given
	// at its first attempt; 0 on webhooks and on handshakes and heartbeats.
	EventNumber int64 `json:"event_number,omitempty"`

	version int64
}

// Attempt is one POST of a delivery and how it ended.
type Attempt struct {
	At time.Time `json:"at"`
	// Status is the receiver's HTTP status; 0 when no response came.
	Status int `json:"status,omitempty"`
	// Error says why no response came: attemptNoResponse for any connection that failed or
	// was refused, else why no request was sent.
	Error string `json:"error,omitempty"`
	// DurationMS is how long the receiver took to answer; 0 when no response came.
	DurationMS int64 `json:"duration_ms"`
}

// DeliveryRetention is how long a delivered or failed delivery stays in the log before the
// store forgets it, so the outbox does not grow without end.
const DeliveryRetention = 30 * 24 * time.Hour

// MaxLoggedAttempts bounds a delivery's attempt log (the whole retry schedule fits).
const MaxLoggedAttempts = 32

func (d Delivery) record() (store.Record, error) {
	body, err := json.Marshal(d)
	return store.Record{Kind: deliveryKind, ID: d.ID, Version: d.version, Body: body}, err
}

func decodeDelivery(rec store.Record) (Delivery, error) {
	var d Delivery
	if err := json.Unmarshal(rec.Body, &d); err != nil {
		return Delivery{}, fmt.Errorf("webhook: delivery %s: %w", rec.ID, err)
	}
	d.version = rec.Version
	return d, nil
}

// Retry schedule. After a failed attempt n (1, 2, ...) the next is due after
// min(FirstRetry * 2^(n-1), MaxRetryDelay), less a random part of up to a fifth of it (the
// jitter that keeps retries of many deliveries from arriving together): nominally 30 s, 1 m,
// 2 m, 4 m, 8 m, 16 m, 32 m, 64 m, then every 2 h. A Retry-After of the receiver replaces the
// computed delay. Nothing is attempted after RetryWindow from the delivery's creation: the last
// attempt is due at the window's end, and a delivery not acknowledged then is failed.
const (
	FirstRetry    = 30 * time.Second
	MaxRetryDelay = 2 * time.Hour
	RetryWindow   = 24 * time.Hour
	// MaxRetryAfter caps a receiver's Retry-After.
	MaxRetryAfter = MaxRetryDelay
)

// Backoff is the delay before the attempt that follows failed attempt n (n >= 1), before jitter.
func Backoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	d := FirstRetry
	for i := 1; i < n && d < MaxRetryDelay; i++ {
		d *= 2
	}
	return min(d, MaxRetryDelay)
}

// jitter takes a random part of up to a fifth off d.
func jitter(d time.Duration) time.Duration {
	return d - rand.N(d/5+1)
}

// nextAttempt is when the attempt after failed attempt n is due, or false when the retry window
// is over. retryAfter, when above zero, replaces the computed delay.
func nextAttempt(created, now time.Time, n int, retryAfter time.Duration) (time.Time, bool) {
	end := created.Add(RetryWindow)
	if !now.Before(end) {
		return time.Time{}, false
	}
	delay := jitter(Backoff(n))
	if retryAfter > 0 {
		delay = min(retryAfter, MaxRetryAfter)
	}
	next := now.Add(delay)
	if next.After(end) {
		next = end
	}
	return next, true
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date. Zero when absent
// or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int(MaxRetryAfter/time.Second))) * time.Second
	}
	if t, err := time.Parse(time.RFC1123, v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// dueID is the id of a due-queue record: the due time as zero-padded Unix nanoseconds (so ids
// sort by time) and the delivery id. A new delivery's first entry is due at time zero, so its
// id depends on the delivery alone and a repeated enqueue finds it already there.
func dueID(at time.Time, deliveryID string) string {
	n := int64(0)
	if !at.IsZero() {
		n = at.UnixNano()
	}
	return fmt.Sprintf("%020d.%s", n, deliveryID)
}

// parseDueID splits a due-queue id into its time (Unix nanoseconds) and delivery id.
func parseDueID(id string) (int64, string, bool) {
	ts, del, ok := strings.Cut(id, ".")
	if !ok || len(ts) != 20 {
		return 0, "", false
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	return n, del, err == nil
}

// enqueue stores a new delivery of event to sub and its first due-queue entry, the delivery
// first. Both writes are creates of ids that depend only on the subscription and the event, so
// a fan-out interrupted between them and repeated completes them and sends nothing twice.
// It reports whether the delivery was new.
func enqueue(ctx context.Context, st store.Store, subID, eventID, event string, payload []byte, now time.Time) (bool, error) {
	d := Delivery{
		ID: subID + "." + eventID, Subscription: subID, EventID: eventID, Event: event,
		Payload: payload, Status: DeliveryPending, CreatedAt: now, NextAttemptAt: now,
	}
	rec, err := d.record()
	if err != nil {
		return false, err
	}
	_, err = st.PutRecord(ctx, rec)
	created := err == nil
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return false, err
	}
	_, err = st.PutRecord(ctx, store.Record{Kind: dueKind, ID: dueID(time.Time{}, d.ID)})
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return false, err
	}
	return created, nil
}

// withDeliveredAt returns payload, a JSON object, with the member delivered_at appended.
func withDeliveredAt(payload []byte, at time.Time) []byte {
	p := bytes.TrimRight(payload, " \n")
	out := make([]byte, 0, len(p)+48)
	out = append(out, p[:len(p)-1]...)
	if len(bytes.TrimSpace(p[1:len(p)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"delivered_at":"`...)
	out = at.UTC().AppendFormat(out, time.RFC3339)
	return append(out, `"}`...)
}

// listDeliveries returns a subscription's deliveries with ids after after, by id (event ids
// sort by the time their event was made), at most limit.
func listDeliveries(ctx context.Context, st store.Store, subID, after string, limit int) ([]Delivery, error) {
	prefix := subID + "."
	if after == "" || !strings.HasPrefix(after, prefix) {
		after = prefix
	}
	recs, err := st.ListRecords(ctx, deliveryKind, after, limit)
	if err != nil {
		return nil, err
	}
	var out []Delivery
	for _, rec := range recs {
		if !strings.HasPrefix(rec.ID, prefix) {
			break
		}
		d, err := decodeDelivery(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
