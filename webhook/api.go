package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/logging"
	"providerdir/rest"
	"providerdir/rest/gate"
	"providerdir/store"
)

// API serves the webhook registration endpoints of the resolver (/resolver/v1/webhooks...),
// behind the gate's key check.
type API struct {
	st     store.Store
	policy AddressPolicy
	now    func() time.Time
}

// NewAPI returns the registration endpoints over st; URLs are checked against policy; now is
// the clock (nil: time.Now).
func NewAPI(st store.Store, policy AddressPolicy, now func() time.Time) *API {
	if now == nil {
		now = time.Now
	}
	return &API{st: st, policy: policy, now: now}
}

// Routes registers the endpoints on the resolver's subrouter.
func (a *API) Routes(r *mux.Router) {
	r.HandleFunc("/webhooks", a.owned(a.create)).Methods(http.MethodPost)
	r.HandleFunc("/webhooks", a.owned(a.list)).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/webhooks/{id}", a.owned(a.one(a.get))).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/webhooks/{id}", a.owned(a.one(a.remove))).Methods(http.MethodDelete)
	r.HandleFunc("/webhooks/{id}/test", a.owned(a.one(a.test))).Methods(http.MethodPost)
	r.HandleFunc("/webhooks/{id}/rotate-secret", a.owned(a.one(a.rotate))).Methods(http.MethodPost)
	r.HandleFunc("/webhooks/{id}/deliveries", a.owned(a.one(a.deliveries))).Methods(http.MethodGet, http.MethodHead)
}

// owned admits live keys only: the sandbox key is shared and read-only, so it may not register
// or see subscriptions (403 forbidden). The handler gets the key's id, which owns what it makes.
func (a *API) owned(h func(w http.ResponseWriter, r *http.Request, owner string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		k, ok := gate.KeyFrom(r.Context())
		if !ok {
			rest.ResolverError(w, r, http.StatusUnauthorized, gate.CodeInvalidKey, "Send a live API key in the X-Service-Key header.")
			return
		}
		if k.ReadOnly() {
			rest.ResolverError(w, r, http.StatusForbidden, CodeForbidden, "The sandbox key is read-only; webhooks need a live key.")
			return
		}
		h(w, r, k.ID)
	}
}

// one reads the subscription named by the path for its owner: 404 not_found when there is none
// or another key owns it (the two are not told apart).
func (a *API) one(h func(w http.ResponseWriter, r *http.Request, s Subscription)) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, owner string) {
		id := mux.Vars(r)["id"]
		var s Subscription
		err := ErrNotFound
		if validSubscriptionID(id) {
			s, err = getSubscription(r.Context(), a.st, id)
		}
		if errors.Is(err, ErrNotFound) || (err == nil && s.Owner != owner) {
			rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound, "No webhook with that id belongs to this key.")
			return
		}
		if err != nil {
			a.fail(w, r, "read webhook", err)
			return
		}
		h(w, r, s)
	}
}

func (a *API) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	logging.Logger(r.Context()).Error(what, slog.Any("error", err))
	rest.WriteFailure(w, r, rest.ResolverError, err)
}

// View is a subscription as the API shows it: never its secret, except SigningSecret in the
// one response that creates or rotates it.
type View struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	NPIs           []string `json:"npis"`
	Status         string   `json:"status"`
	DisabledReason string   `json:"disabled_reason,omitempty"`
	CreatedAt      string   `json:"created_at"`
	SigningSecret  string   `json:"signing_secret,omitempty"`
	// PreviousUntil is when the secret rotated out stops signing, while it still does.
	PreviousUntil *string `json:"previous_secret_expires_at,omitempty"`
}

func view(s Subscription, now time.Time) View {
	v := View{ID: s.ID, URL: s.URL, Events: s.Events, NPIs: s.NPIs, Status: s.Status,
		DisabledReason: s.DisabledReason, CreatedAt: rest.Timestamp(s.CreatedAt)}
	if len(s.secrets(now)) > 1 {
		t := rest.Timestamp(*s.PreviousUntil)
		v.PreviousUntil = &t
	}
	return v
}

// maxRegistrationBytes bounds a registration body: a full watch list and a long URL fit.
const maxRegistrationBytes = 64 << 10

func (a *API) create(w http.ResponseWriter, r *http.Request, owner string) {
	var reg Registration
	if msg := decodeBody(w, r, &reg); msg != "" {
		rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidBody, msg)
		return
	}
	events, npis, err := reg.normalize()
	var in *InputError
	if errors.As(err, &in) {
		rest.ResolverError(w, r, http.StatusBadRequest, in.Code, in.Message)
		return
	}
	u, err := a.policy.CheckURL(r.Context(), reg.URL)
	if err != nil {
		rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidURL, err.Error())
		return
	}
	mine, err := a.ownedBy(r.Context(), owner)
	if err != nil {
		a.fail(w, r, "list webhooks", err)
		return
	}
	if len(mine) >= MaxSubscriptionsPerKey {
		rest.ResolverError(w, r, http.StatusConflict, CodeLimitReached, fmt.Sprintf("A key may hold at most %d webhooks; delete one first.", MaxSubscriptionsPerKey))
		return
	}
	s := Subscription{ID: newSubscriptionID(), Owner: owner, URL: u.String(), Events: events, NPIs: npis,
		Status: StatusActive, CreatedAt: a.now().UTC(), Secret: NewSecret()}
	rec, err := s.record()
	if err == nil {
		_, err = a.st.PutRecord(r.Context(), rec)
	}
	if err != nil {
		a.fail(w, r, "store webhook", err)
		return
	}
	v := view(s, a.now())
	v.SigningSecret = s.Secret
	w.Header().Set("Location", strings.TrimSuffix(r.URL.Path, "/")+"/"+s.ID)
	w.Header().Set("Cache-Control", "no-store")
	rest.WriteJSON(w, r, http.StatusCreated, v)
}

// decodeBody reads a JSON object strictly (no unknown members, nothing after it); it returns
// what is wrong, or "".
func decodeBody(w http.ResponseWriter, r *http.Request, v any) string {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fmt.Sprintf("The body is larger than %d bytes.", maxRegistrationBytes)
		}
		return "The body must be a JSON object with url (string), events (array of strings) and npis (array of NPI strings): " + err.Error()
	}
	if _, err := dec.Token(); err != io.EOF {
		return "The body must hold one JSON object and nothing after it."
	}
	return ""
}

// ownedBy lists the subscriptions of one key.
func (a *API) ownedBy(ctx context.Context, owner string) ([]Subscription, error) {
	all, err := allSubscriptions(ctx, a.st)
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

// List is the body of GET /webhooks.
type List struct {
	Webhooks []View `json:"webhooks"`
}

func (a *API) list(w http.ResponseWriter, r *http.Request, owner string) {
	mine, err := a.ownedBy(r.Context(), owner)
	if err != nil {
		a.fail(w, r, "list webhooks", err)
		return
	}
	out := List{Webhooks: []View{}}
	for _, s := range mine {
		out.Webhooks = append(out.Webhooks, view(s, a.now()))
	}
	rest.WriteJSON(w, r, http.StatusOK, out)
}

func (a *API) get(w http.ResponseWriter, r *http.Request, s Subscription) {
	rest.WriteJSON(w, r, http.StatusOK, view(s, a.now()))
}

// remove deletes the subscription. Its pending deliveries are failed by the worker when it
// next comes to them; their log stays readable by id until then.
func (a *API) remove(w http.ResponseWriter, r *http.Request, s Subscription) {
	err := a.st.DeleteRecord(r.Context(), subscriptionKind, s.ID, 0)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		a.fail(w, r, "delete webhook", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// TestResult is the body of POST /webhooks/{id}/test.
type TestResult struct {
	EventID string `json:"event_id"`
	Status  string `json:"status"`
}

// test enqueues a ping to the subscription, delivered and logged like any event.
func (a *API) test(w http.ResponseWriter, r *http.Request, s Subscription) {
	now := a.now().UTC()
	id := "evt_t" + strconv.FormatInt(now.UnixNano(), 10) + "_" + newSubscriptionID()[3:]
	payload, _ := json.Marshal(Ping{Event: EventPing, Subscription: s.ID})
	if _, err := enqueue(r.Context(), a.st, s.ID, id, EventPing, payload, now); err != nil {
		a.fail(w, r, "enqueue test delivery", err)
		return
	}
	rest.WriteJSON(w, r, http.StatusAccepted, TestResult{EventID: id, Status: DeliveryPending})
}

// rotate issues a new signing secret, shown once. The old one goes on signing beside it for
// RotationOverlap, so deliveries carry two v1 values meanwhile.
func (a *API) rotate(w http.ResponseWriter, r *http.Request, s Subscription) {
	now := a.now().UTC()
	secret := NewSecret()
	until := now.Add(RotationOverlap)
	s, err := updateSubscription(r.Context(), a.st, s.ID, func(cur *Subscription) error {
		cur.PreviousSecret, cur.PreviousUntil, cur.Secret = cur.Secret, &until, secret
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound, "No webhook with that id belongs to this key.")
		return
	}
	if err != nil {
		a.fail(w, r, "rotate webhook secret", err)
		return
	}
	v := view(s, now)
	v.SigningSecret = secret
	w.Header().Set("Cache-Control", "no-store")
	rest.WriteJSON(w, r, http.StatusOK, v)
}

// DeliveryView is one delivery in the log of GET /webhooks/{id}/deliveries.
type DeliveryView struct {
	ID            string    `json:"id"`
	EventID       string    `json:"event_id"`
	Event         string    `json:"event"`
	Status        string    `json:"status"`
	Attempts      int       `json:"attempts"`
	CreatedAt     string    `json:"created_at"`
	NextAttemptAt *string   `json:"next_attempt_at"`
	DeliveredAt   *string   `json:"delivered_at"`
	FailReason    string    `json:"fail_reason,omitempty"`
	LastResponse  *Attempt  `json:"last_response"`
	Log           []Attempt `json:"log"`
}

// DeliveryList is the body of GET /webhooks/{id}/deliveries: a page of the log by event id,
// and the cursor of the next page (the query parameter after), null on the last.
type DeliveryList struct {
	Deliveries []DeliveryView `json:"deliveries"`
	Next       *string        `json:"next"`
}

// Paging of the delivery log.
const (
	defaultDeliveryPage = 50
	maxDeliveryPage     = 100
)

func (a *API) deliveries(w http.ResponseWriter, r *http.Request, s Subscription) {
	limit := defaultDeliveryPage
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxDeliveryPage {
			rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidBody, fmt.Sprintf("limit must be an integer from 1 to %d.", maxDeliveryPage))
			return
		}
		limit = n
	}
	after := ""
	if v := r.URL.Query().Get("after"); v != "" {
		if !validEventID(v) {
			rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidBody, "after must be the next value of a previous page.")
			return
		}
		after = s.ID + "." + v
	}
	ds, err := listDeliveries(r.Context(), a.st, s.ID, after, limit+1)
	if err != nil {
		a.fail(w, r, "list deliveries", err)
		return
	}
	out := DeliveryList{Deliveries: []DeliveryView{}}
	if len(ds) > limit {
		ds = ds[:limit]
		next := ds[limit-1].EventID
		out.Next = &next
	}
	for _, d := range ds {
		out.Deliveries = append(out.Deliveries, deliveryView(d))
	}
	rest.WriteJSON(w, r, http.StatusOK, out)
}

func deliveryView(d Delivery) DeliveryView {
	v := DeliveryView{ID: d.ID, EventID: d.EventID, Event: d.Event, Status: d.Status, Attempts: d.Attempts,
		CreatedAt: rest.Timestamp(d.CreatedAt), FailReason: d.FailReason, Log: d.Log}
	if v.Log == nil {
		v.Log = []Attempt{}
	}
	if d.Status == DeliveryPending {
		t := rest.Timestamp(d.NextAttemptAt)
		v.NextAttemptAt = &t
	}
	if d.DeliveredAt != nil {
		t := rest.Timestamp(*d.DeliveredAt)
		v.DeliveredAt = &t
	}
	if n := len(d.Log); n > 0 {
		v.LastResponse = &d.Log[n-1]
	}
	return v
}
