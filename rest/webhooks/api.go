// Package webhooks serves the resolver's webhook registration endpoints
// (/resolver/v1/webhooks...) over package webhook, which owns the subscriptions, their
// validation and error codes, the outbox and the delivery worker. This package holds only the
// HTTP side: the key check, request decoding, the response bodies and the status codes.
package webhooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/logging"
	"providerdir/rest"
	"providerdir/rest/gate"
	"providerdir/store"
	"providerdir/webhook"
)

// CodeForbidden answers the read-only sandbox key (an addition to docs/contracts/resolver-api.md
// §7).
const CodeForbidden = "forbidden"

// API serves the webhook registration endpoints of the resolver, behind the gate's key check.
type API struct {
	svc *webhook.Service
}

// NewAPI returns the registration endpoints over st; URLs are checked against policy; now is
// the clock (nil: time.Now).
func NewAPI(st store.Store, policy webhook.AddressPolicy, now func() time.Time) *API {
	return &API{svc: webhook.NewService(st, policy, now)}
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
func (a *API) one(h func(w http.ResponseWriter, r *http.Request, s webhook.Subscription)) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, owner string) {
		s, err := a.svc.Get(r.Context(), owner, mux.Vars(r)["id"])
		if err != nil {
			a.fail(w, r, "read webhook", err)
			return
		}
		h(w, r, s)
	}
}

// fail answers an error of the service: a caller's mistake with its code (400, or 409 for the
// subscription limit), an unknown subscription with 404 not_found, anything else as a failure
// of the service, logged as what.
func (a *API) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	var in *webhook.InputError
	switch {
	case errors.As(err, &in) && in.Code == webhook.CodeLimitReached:
		rest.ResolverError(w, r, http.StatusConflict, in.Code, in.Message)
	case errors.As(err, &in):
		rest.ResolverError(w, r, http.StatusBadRequest, in.Code, in.Message)
	case errors.Is(err, webhook.ErrNotFound):
		rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound, "No webhook with that id belongs to this key.")
	default:
		logging.Logger(r.Context()).Error(what, slog.Any("error", err))
		rest.WriteFailure(w, r, rest.ResolverError, err)
	}
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

func view(s webhook.Subscription, now time.Time) View {
	v := View{ID: s.ID, URL: s.URL, Events: s.Events, NPIs: s.NPIs, Status: s.Status,
		DisabledReason: s.DisabledReason, CreatedAt: rest.Timestamp(s.CreatedAt)}
	if s.PreviousSecretSigns(now) {
		t := rest.Timestamp(*s.PreviousUntil)
		v.PreviousUntil = &t
	}
	return v
}

// withSecret answers a subscription with its signing secret, which no cache may keep.
func (a *API) withSecret(w http.ResponseWriter, r *http.Request, status int, s webhook.Subscription) {
	v := view(s, a.svc.Now())
	v.SigningSecret = s.Secret
	w.Header().Set("Cache-Control", "no-store")
	rest.WriteJSON(w, r, status, v)
}

// maxRegistrationBytes bounds a registration body: a full watch list and a long URL fit.
const maxRegistrationBytes = 64 << 10

func (a *API) create(w http.ResponseWriter, r *http.Request, owner string) {
	var reg webhook.Registration
	if msg := decodeBody(w, r, &reg); msg != "" {
		rest.ResolverError(w, r, http.StatusBadRequest, webhook.CodeInvalidBody, msg)
		return
	}
	s, err := a.svc.Create(r.Context(), owner, reg)
	if err != nil {
		a.fail(w, r, "create webhook", err)
		return
	}
	w.Header().Set("Location", strings.TrimSuffix(r.URL.Path, "/")+"/"+s.ID)
	a.withSecret(w, r, http.StatusCreated, s)
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
	if !rest.NothingAfter(dec) {
		return "The body must hold one JSON object and nothing after it."
	}
	return ""
}

// List is the body of GET /webhooks.
type List struct {
	Webhooks []View `json:"webhooks"`
}

func (a *API) list(w http.ResponseWriter, r *http.Request, owner string) {
	mine, err := a.svc.List(r.Context(), owner)
	if err != nil {
		a.fail(w, r, "list webhooks", err)
		return
	}
	out := List{Webhooks: []View{}}
	for _, s := range mine {
		out.Webhooks = append(out.Webhooks, view(s, a.svc.Now()))
	}
	rest.WriteJSON(w, r, http.StatusOK, out)
}

func (a *API) get(w http.ResponseWriter, r *http.Request, s webhook.Subscription) {
	rest.WriteJSON(w, r, http.StatusOK, view(s, a.svc.Now()))
}

func (a *API) remove(w http.ResponseWriter, r *http.Request, s webhook.Subscription) {
	if err := a.svc.Delete(r.Context(), s); err != nil {
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

func (a *API) test(w http.ResponseWriter, r *http.Request, s webhook.Subscription) {
	id, err := a.svc.SendTest(r.Context(), s)
	if err != nil {
		a.fail(w, r, "enqueue test delivery", err)
		return
	}
	rest.WriteJSON(w, r, http.StatusAccepted, TestResult{EventID: id, Status: webhook.DeliveryPending})
}

func (a *API) rotate(w http.ResponseWriter, r *http.Request, s webhook.Subscription) {
	s, err := a.svc.Rotate(r.Context(), s)
	if err != nil {
		a.fail(w, r, "rotate webhook secret", err)
		return
	}
	a.withSecret(w, r, http.StatusOK, s)
}

// DeliveryView is one delivery in the log of GET /webhooks/{id}/deliveries.
type DeliveryView struct {
	ID            string            `json:"id"`
	EventID       string            `json:"event_id"`
	Event         string            `json:"event"`
	Status        string            `json:"status"`
	Attempts      int               `json:"attempts"`
	CreatedAt     string            `json:"created_at"`
	NextAttemptAt *string           `json:"next_attempt_at"`
	DeliveredAt   *string           `json:"delivered_at"`
	FailReason    string            `json:"fail_reason,omitempty"`
	LastResponse  *webhook.Attempt  `json:"last_response"`
	Log           []webhook.Attempt `json:"log"`
}

// DeliveryList is the body of GET /webhooks/{id}/deliveries: a page of the log by event id,
// and the cursor of the next page (the query parameter after), null on the last.
type DeliveryList struct {
	Deliveries []DeliveryView `json:"deliveries"`
	Next       *string        `json:"next"`
}

func (a *API) deliveries(w http.ResponseWriter, r *http.Request, s webhook.Subscription) {
	q := r.URL.Query()
	ds, next, err := a.svc.Deliveries(r.Context(), s, q.Get("limit"), q.Get("after"))
	if err != nil {
		a.fail(w, r, "list deliveries", err)
		return
	}
	out := DeliveryList{Deliveries: []DeliveryView{}}
	if next != "" {
		out.Next = &next
	}
	for _, d := range ds {
		out.Deliveries = append(out.Deliveries, deliveryView(d))
	}
	rest.WriteJSON(w, r, http.StatusOK, out)
}

func deliveryView(d webhook.Delivery) DeliveryView {
	v := DeliveryView{ID: d.ID, EventID: d.EventID, Event: d.Event, Status: d.Status, Attempts: d.Attempts,
		CreatedAt: rest.Timestamp(d.CreatedAt), FailReason: d.FailReason, Log: d.Log}
	if v.Log == nil {
		v.Log = []webhook.Attempt{}
	}
	if d.Status == webhook.DeliveryPending {
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
