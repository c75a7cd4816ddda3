package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"providerdir/ident"
	"providerdir/store"
)

// Record kinds of this package in the store.
const (
	subscriptionKind = "webhook_subscription" // id: the subscription id; body: Subscription
	deliveryKind     = "webhook_delivery"     // id: <subscription id>.<event id>; body: Delivery
	dueKind          = "webhook_due"          // id: <due time>.<delivery id>; body: empty
	cursorKind       = "webhook_cursor"       // id: cursorID; body: cursor
)

// Event types (docs/contracts/resolver-api.md §6) and the test ping.
const (
	EventSourceRefreshed = "source.refreshed"
	EventProviderChanged = "provider.changed"
	EventExclusionAdded  = "exclusion.added"
	// EventPing is sent by POST /webhooks/{id}/test only; it cannot be subscribed to.
	EventPing = "ping"
)

// Events lists the event types a subscription may ask for.
var Events = []string{EventSourceRefreshed, EventProviderChanged, EventExclusionAdded}

// Limits of a subscription.
const (
	// MaxWatchedNPIs bounds a subscription's watch list: as many NPIs as one batch resolution
	// takes, so a record stays small on every backend.
	MaxWatchedNPIs = 1000
	// MaxSubscriptionsPerKey bounds the subscriptions one key may hold.
	MaxSubscriptionsPerKey = 20
	// RotationOverlap is how long a rotated-out secret still signs deliveries beside the new
	// one, so that a receiver can switch secrets without refusing a delivery.
	RotationOverlap = 24 * time.Hour
)

// Subscription states.
const (
	StatusActive = "active"
	// StatusDisabled: nothing is sent; DisabledBy says who stopped it and DisabledReason why.
	StatusDisabled = "disabled"
)

// Who disabled a subscription (Subscription.DisabledBy).
const (
	// DisabledByReceiver: the receiver answered 410 Gone.
	DisabledByReceiver = "receiver"
	// DisabledByOwner: the key or SMART client that owns it is no longer active (revoked,
	// expired, disabled or removed). The worker makes it active again once its owner is.
	DisabledByOwner = "owner"
	// DisabledByOperator: the operator disabled it (providerctl webhooks disable).
	DisabledByOperator = "operator"
)

// Subscription is a stored webhook registration. The signing secret is stored as it is
// (deliveries are signed with it, so it cannot be kept as a one-way hash); it never leaves the
// service except once, in the response that creates or rotates it, and is never logged.
type Subscription struct {
	ID     string   `json:"id"`
	Owner  string   `json:"owner"` // the id of the resolver key that registered it
	URL    string   `json:"url"`
	Events []string `json:"events"`
	NPIs   []string `json:"npis"`
	Status string   `json:"status"`
	// DisabledReason says why a disabled subscription stopped, DisabledBy who stopped it.
	DisabledReason string    `json:"disabled_reason,omitempty"`
	DisabledBy     string    `json:"disabled_by,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	Secret         string    `json:"secret"`
	// PreviousSecret signs beside Secret until PreviousUntil.
	PreviousSecret string     `json:"previous_secret,omitempty"`
	PreviousUntil  *time.Time `json:"previous_until,omitempty"`
	// FHIR is set on a FHIR subscription (fhirsub.go) and nil on a webhook.
	FHIR *FHIRChannel `json:"fhir,omitempty"`

	version int64
}

// Wants reports whether the subscription is active and asked for event. A FHIR subscription
// wants events only once its handshake made it active.
func (s Subscription) Wants(event string) bool {
	return s.Status == StatusActive && slices.Contains(s.Events, event) && (s.FHIR == nil || s.FHIR.State == FHIRActive)
}

// secrets are the secrets a delivery at now is signed with, the current one first.
func (s Subscription) secrets(now time.Time) []string {
	if s.PreviousSecret != "" && s.PreviousUntil != nil && now.Before(*s.PreviousUntil) {
		return []string{s.Secret, s.PreviousSecret}
	}
	return []string{s.Secret}
}

func (s Subscription) record() (store.Record, error) {
	body, err := json.Marshal(s)
	return store.Record{Kind: subscriptionKind, ID: s.ID, Version: s.version, Body: body}, err
}

func decodeSubscription(rec store.Record) (Subscription, error) {
	var s Subscription
	if err := json.Unmarshal(rec.Body, &s); err != nil {
		return Subscription{}, fmt.Errorf("webhook: subscription %s: %w", rec.ID, err)
	}
	s.version = rec.Version
	return s, nil
}

// newSubscriptionID returns "wh_" and 16 random hex digits.
func newSubscriptionID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "wh_" + hex.EncodeToString(b)
}

// validSubscriptionID reports whether id has the shape newSubscriptionID gives.
func validSubscriptionID(id string) bool {
	return len(id) == len("wh_")+16 && strings.HasPrefix(id, "wh_") && isLowerHex(id[3:])
}

// validEventID reports whether id may be an event id: "evt_" and up to 128 letters, digits and
// underscores.
func validEventID(id string) bool {
	if !strings.HasPrefix(id, "evt_") || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isLowerHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// InputError is a registration the caller must fix; Code is the resolver error code.
type InputError struct {
	Code    string
	Message string
}

func (e *InputError) Error() string { return e.Message }

// Error codes of webhook and FHIR subscriptions (additions to docs/contracts/resolver-api.md §7,
// which names none); the registration endpoints (rest/webhooks) answer with them.
const (
	CodeInvalidBody  = "invalid_body"
	CodeInvalidURL   = "invalid_url"
	CodeInvalidEvent = "invalid_event"
	CodeInvalidNPI   = "invalid_npi"
	CodeTooManyNPIs  = "too_many_npis"
	CodeLimitReached = "subscription_limit"
)

// Registration is what POST /webhooks takes.
type Registration struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
	NPIs   []string `json:"npis"`
}

// normalize checks a registration and returns its events and NPIs sorted and without
// duplicates. The URL is checked separately (AddressPolicy.CheckURL), since it needs the network.
func (r Registration) normalize() (events, npis []string, err error) {
	if len(r.Events) == 0 {
		return nil, nil, &InputError{CodeInvalidEvent, "events must name at least one of source.refreshed, provider.changed, exclusion.added"}
	}
	for _, e := range r.Events {
		if !slices.Contains(Events, e) {
			return nil, nil, &InputError{CodeInvalidEvent, fmt.Sprintf("unknown event %q: use source.refreshed, provider.changed or exclusion.added", e)}
		}
	}
	events = slices.Compact(slices.Sorted(slices.Values(r.Events)))
	npis = slices.Compact(slices.Sorted(slices.Values(r.NPIs)))
	if len(npis) > MaxWatchedNPIs {
		return nil, nil, &InputError{CodeTooManyNPIs, fmt.Sprintf("npis holds %d NPIs; at most %d may be watched", len(npis), MaxWatchedNPIs)}
	}
	for _, n := range npis {
		if err := ident.ValidateNPI(n); err != nil {
			return nil, nil, &InputError{CodeInvalidNPI, fmt.Sprintf("npis: %q is not a valid NPI", n)}
		}
	}
	watching := slices.Contains(events, EventProviderChanged) || slices.Contains(events, EventExclusionAdded)
	if watching && len(npis) == 0 {
		return nil, nil, &InputError{CodeInvalidBody, "npis must list the NPIs to watch for provider.changed and exclusion.added"}
	}
	if npis == nil {
		npis = []string{}
	}
	return events, npis, nil
}

// ErrNotFound: no subscription with that id belongs to the caller.
var ErrNotFound = errors.New("webhook: subscription not found")

// getSubscription reads a subscription; ErrNotFound when there is none.
func getSubscription(ctx context.Context, st store.Store, id string) (Subscription, error) {
	rec, err := st.GetRecord(ctx, subscriptionKind, id)
	if errors.Is(err, store.ErrNotFound) {
		return Subscription{}, ErrNotFound
	}
	if err != nil {
		return Subscription{}, err
	}
	return decodeSubscription(rec)
}

// allSubscriptions reads every subscription, a page at a time.
func allSubscriptions(ctx context.Context, st store.Store) ([]Subscription, error) {
	return store.DecodeRecords(ctx, st, subscriptionKind, decodeSubscription)
}

// updateSubscription changes a subscription by compare-and-swap and returns it as changed, or
// as read when change returns store.SkipWrite.
func updateSubscription(ctx context.Context, st store.Store, id string, change func(*Subscription) error) (Subscription, error) {
	var out Subscription
	_, err := store.Update(ctx, st, subscriptionKind, id, func(old store.Record) (store.Record, error) {
		s, err := decodeSubscription(old)
		if err != nil {
			return old, err
		}
		if err := change(&s); err != nil {
			if errors.Is(err, store.SkipWrite) {
				out = s
			}
			return old, err
		}
		out = s
		old.Body, err = json.Marshal(s)
		return old, err
	})
	if errors.Is(err, store.ErrNotFound) {
		return Subscription{}, ErrNotFound
	}
	return out, err
}

// disableSubscription disables subscription id, by whom and why. A subscription already
// disabled keeps its reason, except that the operator's disabling replaces any other: a
// subscription the operator stopped stays stopped when its owner comes back.
func disableSubscription(ctx context.Context, st store.Store, id, by, reason string) (Subscription, error) {
	return updateSubscription(ctx, st, id, func(s *Subscription) error {
		if s.Status == StatusDisabled && (by != DisabledByOperator || s.DisabledBy == DisabledByOperator) {
			return store.SkipWrite
		}
		s.Status, s.DisabledBy, s.DisabledReason = StatusDisabled, by, reason
		return nil
	})
}

// enableSubscription makes subscription id active again if it is disabled and resumable says
// so of it, and reports whether it did. A FHIR subscription whose handshake had not been
// acknowledged is sent a new one (its notifications wait for it, as at creation).
func enableSubscription(ctx context.Context, st store.Store, id string, resumable func(Subscription) bool, now time.Time) (Subscription, bool, error) {
	changed := false
	s, err := updateSubscription(ctx, st, id, func(s *Subscription) error {
		changed = s.Status == StatusDisabled && resumable(*s)
		if !changed {
			return store.SkipWrite
		}
		s.Status, s.DisabledBy, s.DisabledReason = StatusActive, "", ""
		return nil
	})
	if err != nil || !changed || s.FHIR == nil || s.FHIR.State != FHIRRequested {
		return s, changed, err
	}
	_, err = enqueue(ctx, st, s.ID, "evt_handshake_"+strconv.FormatInt(now.UnixNano(), 10), EventHandshake, []byte(`{}`), now.UTC())
	return s, changed, err
}

// subscriptionState is what following the owners reads of a subscription: its record decoded
// without the watch list, which costs more to decode than the rest.
type subscriptionState struct {
	ID         string `json:"id"`
	Owner      string `json:"owner"`
	Status     string `json:"status"`
	DisabledBy string `json:"disabled_by"`
}

// subscriptionStates reads the state of every subscription, a page at a time.
func subscriptionStates(ctx context.Context, st store.Store) ([]subscriptionState, error) {
	return store.DecodeRecords(ctx, st, subscriptionKind, func(rec store.Record) (subscriptionState, error) {
		var s subscriptionState
		if err := json.Unmarshal(rec.Body, &s); err != nil {
			return s, fmt.Errorf("webhook: subscription %s: %w", rec.ID, err)
		}
		return s, nil
	})
}
