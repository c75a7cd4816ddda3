package conformance

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// receiver is the suite's own webhook receiver: it answers every POST with 204 and keeps what
// was delivered, so the delivery checks can verify signatures as a subscriber would.
type receiver struct {
	url string
	srv *http.Server

	mu        sync.Mutex
	arrived   chan struct{}
	delivered []delivery
}

// delivery is one POST the receiver was sent: its signature, event headers and raw body.
type delivery struct {
	signature, eventID, event string
	body                      []byte
}

// startReceiver listens on addr (host:port; port 0 picks one) and serves deliveries under
// /conformance-receiver.
func startReceiver(addr string) (*receiver, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("webhook receiver: %w", err)
	}
	r := &receiver{url: "http://" + ln.Addr().String() + "/conformance-receiver", arrived: make(chan struct{}, 1)}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.delivered = append(r.delivered, delivery{signature: req.Header.Get("X-Service-Signature"),
		eventID: req.Header.Get("X-Service-Event-Id"), event: req.Header.Get("X-Service-Event"), body: body})
	r.mu.Unlock()
	select {
	case r.arrived <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

// await returns the delivery of the event with id, waiting until ctx ends or a minute passes.
func (r *receiver) await(ctx context.Context, id string) (delivery, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		r.mu.Lock()
		for _, d := range r.delivered {
			if d.eventID == id {
				r.mu.Unlock()
				return d, nil
			}
		}
		r.mu.Unlock()
		select {
		case <-r.arrived:
		case <-ctx.Done():
			return delivery{}, fmt.Errorf("event %s was not delivered to %s within a minute", id, r.url)
		}
	}
}

func (r *receiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}

// signedWith checks a delivery's X-Service-Signature ("t=<unix>,v1=<hex>[,v1=...]", seed 001
// section 5 rule 4) as a subscriber does: one v1 value is the HMAC-SHA256 of the raw body under
// secret, compared in constant time, and t is within five minutes of now.
func (d delivery) signedWith(secret string) error {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(d.body)
	want := mac.Sum(nil)
	var t time.Time
	matched := false
	for part := range strings.SplitSeq(d.signature, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			var sec int64
			if _, err := fmt.Sscan(v, &sec); err != nil {
				return fmt.Errorf("X-Service-Signature %q: t is not Unix seconds", d.signature)
			}
			t = time.Unix(sec, 0)
		case "v1":
			got, err := hex.DecodeString(v)
			if err == nil && hmac.Equal(got, want) {
				matched = true
			}
		}
	}
	if t.IsZero() || !strings.Contains(d.signature, "v1=") {
		return fmt.Errorf("X-Service-Signature %q, want t=<unix>,v1=<hex>", d.signature)
	}
	if !matched {
		return fmt.Errorf("no v1 of X-Service-Signature %q is the HMAC-SHA256 of the body under the signing secret", d.signature)
	}
	if d := time.Since(t); d > 5*time.Minute || d < -5*time.Minute {
		return fmt.Errorf("X-Service-Signature t=%d is %s from now", t.Unix(), d)
	}
	return nil
}

// webhookDeliveryChecks register a webhook at the suite's own receiver and hold its deliveries
// to the contract; without a receiver (Options.WebhookReceiver) they skip.
func webhookDeliveryChecks() []Check {
	const w = "webhooks"
	return []Check{
		{w, "POST /webhooks/{id}/test delivers an event signed with X-Service-Signature over the raw body", checkSignedDelivery},
		{w, "after rotate-secret, deliveries are signed with the new secret", checkRotatedDelivery},
		{w, "GET /webhooks/{id}/deliveries lists a delivered test event", checkDeliveryLog},
	}
}

// hook is a webhook the suite registered at its receiver, with its secret.
type hook struct {
	id, secret string
}

// withHook registers a webhook at the receiver for source.refreshed, runs fn, and deletes it.
func (e *Env) withHook(ctx context.Context, fn func(hook) error) error {
	if e.receiver == nil {
		return Skipf("no webhook receiver (--webhook-receiver ADDR, an address the deployment can deliver to)")
	}
	reg, _ := json.Marshal(map[string]any{"url": e.receiver.url, "events": []string{"source.refreshed"}})
	res, err := e.webhookWrite(ctx, http.MethodPost, "/webhooks", string(reg))
	if err != nil {
		return err
	}
	var created struct {
		ID            string `json:"id"`
		SigningSecret string `json:"signing_secret"`
	}
	if res.status != http.StatusCreated || res.json(&created) != nil || created.ID == "" {
		return fmt.Errorf("%s: %d %.300s, want 201 registering %s", res.url, res.status, res.body, e.receiver.url)
	}
	defer func() {
		_, _ = e.webhookWrite(context.WithoutCancel(ctx), http.MethodDelete, "/webhooks/"+created.ID, "")
	}()
	return fn(hook{id: created.ID, secret: created.SigningSecret})
}

// sendTest asks for a test delivery and waits for it at the receiver.
func (e *Env) sendTest(ctx context.Context, h hook) (delivery, error) {
	res, err := e.webhookWrite(ctx, http.MethodPost, "/webhooks/"+h.id+"/test", "")
	if err != nil {
		return delivery{}, err
	}
	var accepted struct {
		EventID string `json:"event_id"`
	}
	if res.status != http.StatusAccepted || res.json(&accepted) != nil || accepted.EventID == "" {
		return delivery{}, fmt.Errorf("%s: %d %.200s, want 202 with an event_id", res.url, res.status, res.body)
	}
	return e.receiver.await(ctx, accepted.EventID)
}

func checkSignedDelivery(ctx context.Context, e *Env) error {
	return e.withHook(ctx, func(h hook) error {
		d, err := e.sendTest(ctx, h)
		if err != nil {
			return err
		}
		if d.event == "" || !json.Valid(d.body) {
			return fmt.Errorf("delivery with X-Service-Event %q and body %.200s, want the event's name and a JSON body", d.event, d.body)
		}
		if err := d.signedWith(h.secret); err != nil {
			return err
		}
		if d.signedWith(h.secret+"x") == nil {
			return fmt.Errorf("the delivery verifies under a secret that is not the webhook's")
		}
		return nil
	})
}

func checkRotatedDelivery(ctx context.Context, e *Env) error {
	return e.withHook(ctx, func(h hook) error {
		res, err := e.webhookWrite(ctx, http.MethodPost, "/webhooks/"+h.id+"/rotate-secret", "")
		if err != nil {
			return err
		}
		var rotated struct {
			SigningSecret string `json:"signing_secret"`
		}
		if res.status != http.StatusOK || res.json(&rotated) != nil || rotated.SigningSecret == "" || rotated.SigningSecret == h.secret {
			return fmt.Errorf("%s: %d %.200s, want 200 with a new signing_secret", res.url, res.status, res.body)
		}
		d, err := e.sendTest(ctx, h)
		if err != nil {
			return err
		}
		return d.signedWith(rotated.SigningSecret)
	})
}

func checkDeliveryLog(ctx context.Context, e *Env) error {
	return e.withHook(ctx, func(h hook) error {
		d, err := e.sendTest(ctx, h)
		if err != nil {
			return err
		}
		// The receiver's 204 is recorded once the attempt ends: poll the log briefly.
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := e.webhookWrite(ctx, http.MethodGet, "/webhooks/"+h.id+"/deliveries", "")
			if err != nil {
				return err
			}
			var log struct {
				Deliveries []struct {
					EventID string `json:"event_id"`
					Status  string `json:"status"`
				} `json:"deliveries"`
			}
			if res.status != http.StatusOK || res.json(&log) != nil {
				return fmt.Errorf("%s: %d %.200s, want 200 with deliveries", res.url, res.status, res.body)
			}
			for _, l := range log.Deliveries {
				if l.EventID == d.eventID && l.Status == "delivered" {
					return nil
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: event %s not listed as delivered: %.300s", res.url, d.eventID, res.body)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
}
