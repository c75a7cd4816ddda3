package intake_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/rest/intake"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

func serve(t *testing.T, st store.Store, clock *handclock.Clock) (*httptest.Server, *intake.Service, *gate.Gate) {
	t.Helper()
	g := gate.New(st, gate.Options{Now: clock.Now})
	svc := intake.New(st, g.Keys(), clock.Now)
	h, err := httpserver.New(httpserver.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: []httpserver.Surface{{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: func(r *mux.Router) {
			svc.Register(r, g.LimitIP(gate.AccessRequestPolicy))
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, svc, g
}

func post(t *testing.T, url, contentType, body string) (int, http.Header, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	return resp.StatusCode, resp.Header, out
}

const form = `{"name":"Ada Lovelace","email":"ada@example.org","organization":"Analytical Health","intended_use":"Network adequacy studies for rural counties."}`

func TestSubmit(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		srv, svc, _ := serve(t, st, clock)
		url := srv.URL + "/api/access-requests"

		status, h, body := post(t, url, "application/json; charset=utf-8", form)
		if status != http.StatusCreated || body["status"] != "pending" || body["message"] == "" {
			t.Fatalf("%d %v", status, body)
		}
		if h.Get("X-RateLimit-Limit") != "10" || h.Get("X-RateLimit-Remaining") != "9" || h.Get("RateLimit") == "" {
			t.Fatalf("rate-limit fields: %v", h)
		}
		id, _ := body["id"].(string)
		req, err := svc.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		want := intake.Request{ID: id, Name: "Ada Lovelace", Email: "ada@example.org", Organization: "Analytical Health",
			IntendedUse: "Network adequacy studies for rural counties.", Status: "pending", CreatedAt: clock.Now()}
		if !reflect.DeepEqual(exported(req), want) || !strings.HasPrefix(id, "ar_"+clock.Now().Format("20060102T150405")+"_") {
			t.Fatalf("stored %+v, want %+v", req, want)
		}

		tests := []struct {
			name        string
			contentType string
			body        string
			status      int
			code        string
			message     string // a part of error.message
			fields      []any
		}{
			{"field errors", "application/json", `{"name":"","email":"nope","organization":"Org","intended_use":"short"}`, 400, "invalid_request", "invalid fields",
				[]any{map[string]any{"field": "name", "message": "is required"},
					map[string]any{"field": "email", "message": "must be an e-mail address such as name@example.org"},
					map[string]any{"field": "intended_use", "message": "must be at least 10 characters"}}},
			{"unknown field", "application/json", `{"name":"A","phone":"1"}`, 400, "invalid_json", `no field "phone"; its fields are name, email`, nil},
			{"unknown long field", "application/json", `{"` + strings.Repeat("p", 5000) + `":"1"}`, 400, "invalid_json", `…"`, nil},
			{"not JSON", "application/json", `name=A`, 400, "invalid_json", "not valid JSON (at byte", nil},
			{"empty", "application/json", ``, 400, "invalid_json", "The body is empty", nil},
			{"two objects", "application/json", form + form, 400, "invalid_json", "more than one JSON value", nil},
			{"wrong type", "application/json", `{"name":1}`, 400, "invalid_json", `The field "name" must be a string.`, nil},
			{"array", "application/json", `[1]`, 400, "invalid_json", "must be a JSON object with the fields", nil},
			{"invalid UTF-8", "application/json", "{\"name\":\"Ada\xff\"}", 400, "invalid_json", "not UTF-8", nil},
			{"lone surrogate escape", "application/json", `{"name":"Ada\ud800","email":"ada@example.org","organization":"Org","intended_use":"Network adequacy."}`,
				400, "invalid_request", "name", []any{map[string]any{"field": "name", "message": "must be valid Unicode text (it holds bytes or escapes that encode no character)"}}},
			{"right-to-left override", "application/json", `{"name":"Ada\u202eecalevoL","email":"ada@example.org","organization":"Org","intended_use":"Network adequacy."}`,
				400, "invalid_request", "name", []any{map[string]any{"field": "name", "message": "must not contain invisible formatting characters (found U+202E)"}}},
			{"C1 control in the address", "application/json", `{"name":"Ada","email":"ada\u009b31m@example.org","organization":"Org","intended_use":"Network adequacy."}`,
				400, "invalid_request", "email", []any{map[string]any{"field": "email", "message": "must not contain control characters"}}},
			{"right-to-left override in the address", "application/json", `{"name":"Ada","email":"ada\u202egro.elpmaxe@example.org","organization":"Org","intended_use":"Network adequacy."}`,
				400, "invalid_request", "email", []any{map[string]any{"field": "email", "message": "must not contain invisible formatting characters (found U+202E)"}}},
			{"form encoding", "application/x-www-form-urlencoded", `name=A`, 415, "unsupported_media_type", "application/json", nil},
			{"too large", "application/json", `{"name":"` + strings.Repeat("a", 40<<10) + `"}`, 413, "request_too_large", "larger", nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				clock.Advance(7 * time.Minute) // ten an hour from one address: these stay under it
				status, _, body := post(t, url, tt.contentType, tt.body)
				e, _ := body["error"].(map[string]any)
				msg, _ := e["message"].(string)
				if status != tt.status || e["code"] != tt.code || e["request_id"] == "" || !strings.Contains(msg, tt.message) {
					t.Fatalf("%d %v", status, body)
				}
				if strings.Contains(msg, "Go ") || strings.Contains(msg, "json:") || len(msg) > 300 {
					t.Fatalf("message not in plain, bounded words: %q", msg)
				}
				if tt.fields != nil {
					details, _ := e["details"].(map[string]any)
					if !reflect.DeepEqual(details["fields"], tt.fields) {
						t.Fatalf("fields %v\nwant %v", details["fields"], tt.fields)
					}
				}
			})
		}

		// A refused form stores nothing.
		if all, err := svc.List(context.Background(), false); err != nil || len(all) != 1 {
			t.Fatalf("%d requests stored after the refusals, want 1 (%v)", len(all), err)
		}

		// An hour later the window is empty again: ten requests are admitted, the 11th is not.
		clock.Advance(time.Hour + 10*time.Second)
		for range 10 {
			if status, _, body := post(t, url, "application/json", form); status != 201 {
				t.Fatalf("%d %v", status, body)
			}
		}
		status, h, body = post(t, url, "application/json", form)
		if e, _ := body["error"].(map[string]any); status != 429 || e["code"] != "rate_limit_exceeded" || h.Get("Retry-After") == "" {
			t.Fatalf("11th in an hour: %d %v", status, body)
		}
		clock.Advance(time.Hour + 10*time.Second)
		if status, _, _ := post(t, url, "application/json", form); status != 201 {
			t.Fatalf("an hour later: %d", status)
		}
		all, err := svc.List(context.Background(), false)
		if err != nil || len(all) != 12 {
			t.Fatalf("%d requests stored, want 12 (%v)", len(all), err)
		}
	})
}

// exported drops the unexported bookkeeping for comparison.
func exported(r intake.Request) intake.Request {
	return intake.Request{ID: r.ID, Name: r.Name, Email: r.Email, Organization: r.Organization, IntendedUse: r.IntendedUse,
		Status: r.Status, CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt, KeyID: r.KeyID}
}

func TestApprove(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		st, _ := b.Open(t)
		clock := handclock.New()
		_, svc, g := serve(t, st, clock)
		ctx := context.Background()
		var ids []string
		for _, org := range []string{"First Org", "Second Org", "Third Org"} {
			req, err := svc.Submit(ctx, intake.Form{Name: "N", Email: "n@example.org", Organization: org, IntendedUse: "A use described at length."})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, req.ID)
			clock.Advance(time.Second)
		}
		if _, err := svc.Submit(ctx, intake.Form{Email: "x"}); err == nil {
			t.Fatal("an invalid form was stored")
		}

		secret, req, err := svc.Approve(ctx, ids[1], apikey.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		k, err := g.Keys().Authenticate(ctx, apikey.Supply, secret.Reveal())
		if err != nil || k.Tier != apikey.TierPilot || k.Name != "Second Org" || k.AccessRequest != ids[1] || req.KeyID != k.ID || req.Status != "approved" || req.DecidedAt == nil {
			t.Fatalf("key %+v request %+v: %v", k, req, err)
		}
		if _, _, err := svc.Approve(ctx, ids[1], apikey.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "already approved") {
			t.Fatalf("second approval: %v", err)
		}
		if _, _, err := svc.Approve(ctx, "ar_nope", apikey.CreateOptions{}); err == nil {
			t.Fatal("approved a request that does not exist")
		}

		pending, err := svc.List(ctx, true)
		if err != nil || len(pending) != 2 || pending[0].ID != ids[0] || pending[1].ID != ids[2] {
			t.Fatalf("pending %+v %v", pending, err)
		}

		// Two operators approving at once: one key survives.
		var wg sync.WaitGroup
		results := make([]error, 2)
		for i := range results {
			wg.Go(func() { _, _, results[i] = svc.Approve(ctx, ids[0], apikey.CreateOptions{}) })
		}
		wg.Wait()
		if (results[0] == nil) == (results[1] == nil) {
			t.Fatalf("both or neither approval succeeded: %v", results)
		}
		keys, _ := g.Keys().List(ctx)
		active := 0
		for _, k := range keys {
			if k.AccessRequest == ids[0] && k.Status(clock.Now()) == apikey.StatusActive {
				active++
			}
		}
		if active != 1 {
			t.Fatalf("%d active keys for one request", active)
		}
	})
}
