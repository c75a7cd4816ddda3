package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/rest/supply"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/liveserver"
	"providerdir/testing/webhookreceiver"
	"providerdir/webhook"
)

// apiEnv is the resolver surface as providerd mounts it: the webhook endpoints behind the
// gate's key check, over a real store.
type apiEnv struct {
	url    string
	st     store.Store
	gate   *gate.Gate
	now    func() time.Time
	router routers.Router
	// owners are the ids of the keys the test made.
	owners []string
}

// describe loads the resolver's interface description as served for base, the document every
// answer of the tests is checked against.
func describe(t *testing.T, st store.Store, base string) routers.Router {
	t.Helper()
	raw, err := supply.New(st, base).OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err == nil {
		err = doc.Validate(context.Background())
	}
	if err != nil {
		t.Fatalf("interface description: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return router
}

// validate checks an answer (status, headers, body) against the interface description.
func (e *apiEnv) validate(t *testing.T, req *http.Request, resp *http.Response, raw []byte) {
	t.Helper()
	route, params, err := e.router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s is not in the interface description: %v", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(raw)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s: %d does not match the interface description: %v\nbody: %.600s", req.Method, req.URL.Path, resp.StatusCode, err, raw)
	}
}

func newAPIEnv(t *testing.T) *apiEnv {
	t.Helper()
	st, now := backends.Embedded(t), webhookreceiver.NewClock().Now
	api := NewAPI(st, webhook.AddressPolicy{AllowLoopback: true}, now)
	srv := liveserver.Start(t, st, liveserver.Options{}, func(_ string, g *gate.Gate) []httpserver.Surface {
		return []httpserver.Surface{{Name: "resolver", Prefix: liveserver.ResolverPrefix, Error: rest.ResolverError,
			Routes: gate.Guard(g.RequireResolverKey, api.Routes)}}
	})
	return &apiEnv{url: srv.URL + liveserver.ResolverPrefix, st: st, gate: srv.Gate, now: now, router: describe(t, st, srv.URL)}
}

func (e *apiEnv) key(t *testing.T, tier apikey.Tier) string {
	t.Helper()
	secret, k, err := e.gate.Keys().Create(context.Background(), tier, t.Name(), apikey.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.owners = append(e.owners, k.ID)
	return secret.Reveal()
}

func (e *apiEnv) sandbox(t *testing.T) string {
	t.Helper()
	secret, k, err := e.gate.Keys().Sandbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e.owners = append(e.owners, k.ID)
	return secret.Reveal()
}

// do sends a request and decodes a JSON answer into out (when not nil); it returns the status.
func (e *apiEnv) do(t *testing.T, method, path, key, body string, out any) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set(gate.HeaderServiceKey, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	e.validate(t, req, resp, raw)
	if out != nil && len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return resp.StatusCode, resp.Header
}

type errorBody struct {
	Error struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	} `json:"error"`
}

const (
	npiA = "1234567893"
	npiB = "1245319599"
)

func TestRegistrationErrors(t *testing.T) {
	e := newAPIEnv(t)
	live := e.key(t, apikey.TierStarter)
	tooMany := make([]string, webhook.MaxWatchedNPIs+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("%q", fmt.Sprintf("1%09d", i))
	}
	for _, c := range []struct {
		name, key, body string
		status          int
		code            string
	}{
		{"no key", "", `{"url":"http://127.0.0.1:1/h","events":["source.refreshed"]}`, 401, "invalid_key"},
		{"sandbox key", e.sandbox(t), `{"url":"http://127.0.0.1:1/h","events":["source.refreshed"]}`, 403, CodeForbidden},
		{"not JSON", live, `url=x`, 400, webhook.CodeInvalidBody},
		{"unknown member", live, `{"url":"http://127.0.0.1:1/h","events":["source.refreshed"],"secret":"x"}`, 400, webhook.CodeInvalidBody},
		{"trailing data", live, `{"url":"http://127.0.0.1:1/h","events":["source.refreshed"]} {}`, 400, webhook.CodeInvalidBody},
		{"no events", live, `{"url":"http://127.0.0.1:1/h","events":[]}`, 400, webhook.CodeInvalidEvent},
		{"unknown event", live, `{"url":"http://127.0.0.1:1/h","events":["provider.deleted"]}`, 400, webhook.CodeInvalidEvent},
		{"ping not subscribable", live, `{"url":"http://127.0.0.1:1/h","events":["ping"]}`, 400, webhook.CodeInvalidEvent},
		{"watch without npis", live, `{"url":"http://127.0.0.1:1/h","events":["provider.changed"]}`, 400, webhook.CodeInvalidBody},
		{"bad npi", live, `{"url":"http://127.0.0.1:1/h","events":["provider.changed"],"npis":["1234567890"]}`, 400, webhook.CodeInvalidNPI},
		{"too many npis", live, `{"url":"http://127.0.0.1:1/h","events":["provider.changed"],"npis":[` + strings.Join(tooMany, ",") + `]}`, 400, webhook.CodeTooManyNPIs},
		{"plain http", live, `{"url":"http://93.184.215.14/h","events":["source.refreshed"]}`, 400, webhook.CodeInvalidURL},
		{"private address", live, `{"url":"https://10.1.1.1/h","events":["source.refreshed"]}`, 400, webhook.CodeInvalidURL},
		{"metadata address", live, `{"url":"https://169.254.169.254/latest","events":["source.refreshed"]}`, 400, webhook.CodeInvalidURL},
		{"no url", live, `{"events":["source.refreshed"]}`, 400, webhook.CodeInvalidURL},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got errorBody
			status, _ := e.do(t, http.MethodPost, "/webhooks", c.key, c.body, &got)
			if status != c.status || got.Error.Code != c.code || got.Error.Message == "" || got.Error.RequestID == "" {
				t.Errorf("%d %+v, want %d %s", status, got, c.status, c.code)
			}
		})
	}
	svc := webhook.NewService(e.st, webhook.AddressPolicy{}, e.now)
	for _, owner := range e.owners {
		if subs, err := svc.List(context.Background(), owner); err != nil || len(subs) != 0 {
			t.Errorf("refused registrations stored %d subscriptions of %s (%v)", len(subs), owner, err)
		}
	}
}

// The lifecycle of a subscription through the API, with a worker delivering its test ping.
func TestRegistrationLifecycle(t *testing.T) {
	e := newAPIEnv(t)
	live, other := e.key(t, apikey.TierStarter), e.key(t, apikey.TierPro)
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	var created View
	body := fmt.Sprintf(`{"url":%q,"events":["provider.changed","source.refreshed","provider.changed"],"npis":[%q,%q,%q]}`, rv.URL+"/in", npiB, npiA, npiB)
	status, h := e.do(t, http.MethodPost, "/webhooks", live, body, &created)
	if status != http.StatusCreated || !strings.HasPrefix(created.SigningSecret, "whsec_") || created.Status != webhook.StatusActive ||
		strings.Join(created.Events, ",") != "provider.changed,source.refreshed" || strings.Join(created.NPIs, ",") != npiA+","+npiB ||
		h.Get("Location") != "/resolver/v1/webhooks/"+created.ID {
		t.Fatalf("create: %d %+v %v", status, created, h)
	}
	rv.SetSecrets(created.SigningSecret)

	var got View
	if status, _ := e.do(t, http.MethodGet, "/webhooks/"+created.ID, live, "", &got); status != 200 || got.ID != created.ID || got.SigningSecret != "" {
		t.Fatalf("get: %d %+v (the secret is shown once only)", status, got)
	}
	var list List
	if status, _ := e.do(t, http.MethodGet, "/webhooks", live, "", &list); status != 200 || len(list.Webhooks) != 1 || list.Webhooks[0].SigningSecret != "" {
		t.Fatalf("list: %d %+v", status, list)
	}
	if status, _ := e.do(t, http.MethodGet, "/webhooks", other, "", &list); status != 200 || len(list.Webhooks) != 0 {
		t.Fatalf("another key's list: %d %+v", status, list)
	}
	for _, m := range []string{"GET /webhooks/%s", "DELETE /webhooks/%s", "POST /webhooks/%s/test", "POST /webhooks/%s/rotate-secret", "GET /webhooks/%s/deliveries"} {
		method, path, _ := strings.Cut(fmt.Sprintf(m, created.ID), " ")
		var eb errorBody
		if status, _ := e.do(t, method, path, other, "", &eb); status != 404 || eb.Error.Code != "not_found" {
			t.Errorf("%s by another key: %d %+v", m, status, eb)
		}
	}

	webhookreceiver.Run(t, webhook.NewWorker(webhook.WorkerOptions{Store: e.st, Now: e.now, Policy: webhook.AddressPolicy{AllowLoopback: true},
		PollInterval: 2 * time.Millisecond, FanoutInterval: time.Hour}).Run)
	var ping TestResult
	if status, _ := e.do(t, http.MethodPost, "/webhooks/"+created.ID+"/test", live, "", &ping); status != http.StatusAccepted || ping.EventID == "" {
		t.Fatalf("test: %d %+v", status, ping)
	}
	webhookreceiver.WaitFor(t, "the ping", func() bool { return len(rv.Requests()) == 1 })
	if r := rv.Requests()[0]; !r.Verified || r.EventID != ping.EventID || r.Event != webhook.EventPing {
		t.Fatalf("ping received %+v", r)
	}
	var log DeliveryList
	webhookreceiver.WaitFor(t, "the ping logged as delivered", func() bool {
		e.do(t, http.MethodGet, "/webhooks/"+created.ID+"/deliveries", live, "", &log)
		return len(log.Deliveries) == 1 && log.Deliveries[0].Status == webhook.DeliveryDelivered
	})
	if d := log.Deliveries[0]; d.EventID != ping.EventID || d.Attempts != 1 || d.LastResponse == nil || d.LastResponse.Status != 204 || log.Next != nil {
		t.Fatalf("log %+v", log)
	}

	var rotated View
	if status, _ := e.do(t, http.MethodPost, "/webhooks/"+created.ID+"/rotate-secret", live, "", &rotated); status != 200 ||
		rotated.SigningSecret == "" || rotated.SigningSecret == created.SigningSecret || rotated.PreviousUntil == nil {
		t.Fatalf("rotate: %d %+v", status, rotated)
	}
	rv.SetSecrets(rotated.SigningSecret)
	e.do(t, http.MethodPost, "/webhooks/"+created.ID+"/test", live, "", &ping)
	webhookreceiver.WaitFor(t, "the second ping", func() bool { return len(rv.Requests()) == 2 })
	if r := rv.Requests()[1]; !r.Verified {
		t.Fatalf("ping after rotation not verified with the new secret")
	}

	if status, _ := e.do(t, http.MethodDelete, "/webhooks/"+created.ID, live, "", nil); status != http.StatusNoContent {
		t.Fatalf("delete: %d", status)
	}
	if status, _ := e.do(t, http.MethodGet, "/webhooks/"+created.ID, live, "", nil); status != 404 {
		t.Fatalf("get after delete: %d", status)
	}
}

func TestDeliveryLogPaging(t *testing.T) {
	e := newAPIEnv(t)
	live := e.key(t, apikey.TierStarter)
	var created View
	e.do(t, http.MethodPost, "/webhooks", live, `{"url":"http://127.0.0.1:1/h","events":["source.refreshed"]}`, &created)
	var sent []string
	for range 5 {
		var ping TestResult
		if status, _ := e.do(t, http.MethodPost, "/webhooks/"+created.ID+"/test", live, "", &ping); status != http.StatusAccepted {
			t.Fatalf("test: %d", status)
		}
		sent = append(sent, ping.EventID)
	}
	slices.Sort(sent) // the log is by event id
	var seen []string
	next := ""
	for range 5 {
		var page DeliveryList
		path := "/webhooks/" + created.ID + "/deliveries?limit=2"
		if next != "" {
			path += "&after=" + next
		}
		if status, _ := e.do(t, http.MethodGet, path, live, "", &page); status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		for _, d := range page.Deliveries {
			seen = append(seen, d.EventID)
		}
		if page.Next == nil {
			break
		}
		next = *page.Next
	}
	if !slices.Equal(seen, sent) {
		t.Fatalf("paged %v, want %v", seen, sent)
	}
	for _, q := range []string{"limit=101", "limit=0", "limit=x", "after=%00", "after=wh_x", "after=evt_%2F"} {
		var eb errorBody
		if status, _ := e.do(t, http.MethodGet, "/webhooks/"+created.ID+"/deliveries?"+q, live, "", &eb); status != 400 || eb.Error.Code != webhook.CodeInvalidBody {
			t.Errorf("%s: %d %+v", q, status, eb)
		}
	}
	for _, id := range []string{"wh_%00", "nope", "wh_0123456789ABCDEF", "wh_0123456789abcdef"} {
		var eb errorBody
		if status, _ := e.do(t, http.MethodGet, "/webhooks/"+id, live, "", &eb); status != 404 || eb.Error.Code != "not_found" {
			t.Errorf("webhook %s: %d %+v", id, status, eb)
		}
	}
}

func TestSubscriptionLimit(t *testing.T) {
	e := newAPIEnv(t)
	live := e.key(t, apikey.TierStarter)
	body := `{"url":"http://127.0.0.1:1/h","events":["source.refreshed"]}`
	for i := range webhook.MaxSubscriptionsPerKey {
		if status, _ := e.do(t, http.MethodPost, "/webhooks", live, body, nil); status != 201 {
			t.Fatalf("subscription %d: %d", i, status)
		}
	}
	var eb errorBody
	if status, _ := e.do(t, http.MethodPost, "/webhooks", live, body, &eb); status != http.StatusConflict || eb.Error.Code != webhook.CodeLimitReached {
		t.Fatalf("one more: %d %+v", status, eb)
	}
}
