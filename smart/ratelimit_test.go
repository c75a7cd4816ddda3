package smart_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"

	"providerdir/quota"
	"providerdir/smart"
)

// limited gives a test small budgets and trusts the loopback proxy, so that X-Forwarded-For
// names the client address.
func limited(client, sandbox, token int64) func(*smart.Config) {
	return func(c *smart.Config) {
		c.ClientPolicy = quota.Policy{Name: "t-client", Windows: []quota.Window{quota.RollingMinute(client)}}
		c.SandboxPolicy = quota.Policy{Name: "t-sandbox", Windows: []quota.Window{quota.RollingHour(sandbox)}}
		c.TokenPolicy = quota.Policy{Name: "t-token", Windows: []quota.Window{quota.RollingMinute(token)}}
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
}

// call sends a request with an optional bearer token from client address from (through the
// trusted loopback proxy) and returns the status, the fields and the decoded body.
func (e *testEnv) call(t *testing.T, method, path, token, from string, form string) (int, http.Header, map[string]any) {
	t.Helper()
	var body io.Reader
	if form != "" {
		body = strings.NewReader(form)
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, body)
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if from != "" {
		req.Header.Set("X-Forwarded-For", from)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s %s: %d with non-JSON body %q", method, path, res.StatusCode, b)
	}
	return res.StatusCode, res.Header, m
}

// checkFields checks the rate-limit fields of one response of a budget of limit per window
// (named name, length w) with remaining requests left.
func checkFields(t *testing.T, h http.Header, name string, limit, remaining int64, w time.Duration, now time.Time) {
	t.Helper()
	if got := h.Get("X-RateLimit-Limit"); got != strconv.FormatInt(limit, 10) {
		t.Errorf("X-RateLimit-Limit %q, want %d", got, limit)
	}
	if got := h.Get("X-RateLimit-Remaining"); got != strconv.FormatInt(remaining, 10) {
		t.Errorf("X-RateLimit-Remaining %q, want %d", got, remaining)
	}
	reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil || reset <= now.Unix() || reset > now.Add(w+time.Minute).Unix() {
		t.Errorf("X-RateLimit-Reset %q is not a Unix time within the window after %d", h.Get("X-RateLimit-Reset"), now.Unix())
	}
	wantPolicy := `"` + name + `";q=` + strconv.FormatInt(limit, 10) + ";w=" + strconv.FormatInt(int64(w/time.Second), 10)
	if got := h.Get("RateLimit-Policy"); got != wantPolicy {
		t.Errorf("RateLimit-Policy %q, want %q", got, wantPolicy)
	}
	if got := h.Get("RateLimit"); !strings.HasPrefix(got, `"`+name+`";r=`+strconv.FormatInt(remaining, 10)+";t=") {
		t.Errorf("RateLimit %q, want %d remaining in %s", got, remaining, name)
	}
}

func checkThrottled(t *testing.T, status int, h http.Header, body map[string]any) {
	t.Helper()
	if status != http.StatusTooManyRequests {
		t.Fatalf("status %d %v, want 429", status, body)
	}
	if n, err := strconv.Atoi(h.Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("Retry-After %q", h.Get("Retry-After"))
	}
	issue, _ := body["issue"].([]any)
	if body["resourceType"] != "OperationOutcome" || len(issue) != 1 || issue[0].(map[string]any)["code"] != "throttled" {
		t.Errorf("429 body %v, want an OperationOutcome with code throttled", body)
	}
}

// TestClientBudget: every FHIR response of a client carries its budget's fields, the request
// after the budget is a 429 with Retry-After and a throttled OperationOutcome, another client
// is unaffected, and the budget comes back when the window has moved on.
func TestClientBudget(t *testing.T) {
	const budget = 3
	e := newEnv(t, limited(budget, 100, 100))
	a, b := ecKey(t, "a"), rsaKey(t, "b")
	tokA := e.token(t, e.addClient(t, a), a, "system/*.read").AccessToken
	tokB := e.token(t, e.addClient(t, b), b, "system/*.read").AccessToken

	for i := range budget {
		status, h, body := e.call(t, http.MethodGet, "/fhir/Practitioner/1", tokA, "", "")
		if status != http.StatusOK {
			t.Fatalf("request %d: %d %v", i+1, status, body)
		}
		checkFields(t, h, quota.NameMinute, budget, budget-int64(i)-1, time.Minute, e.clock.Now())
	}
	status, h, body := e.call(t, http.MethodGet, "/fhir/Practitioner", tokA, "", "")
	checkThrottled(t, status, h, body)
	checkFields(t, h, quota.NameMinute, budget, 0, time.Minute, e.clock.Now())
	wait, _ := strconv.Atoi(h.Get("Retry-After"))

	status, h, body = e.call(t, http.MethodGet, "/fhir/Practitioner/1", tokB, "", "")
	if status != http.StatusOK {
		t.Fatalf("another client after the first ran out: %d %v", status, body)
	}
	checkFields(t, h, quota.NameMinute, budget, budget-1, time.Minute, e.clock.Now())

	// Refused requests are not counted: the wait the first refusal gave is enough.
	if status, _, _ := e.call(t, http.MethodGet, "/fhir/Practitioner", tokA, "", ""); status != http.StatusTooManyRequests {
		t.Fatalf("still over the budget: %d", status)
	}
	e.clock.Advance(time.Duration(wait) * time.Second)
	if status, _, body := e.call(t, http.MethodGet, "/fhir/Practitioner/1", tokA, "", ""); status != http.StatusOK {
		t.Fatalf("after Retry-After: %d %v", status, body)
	}
}

// TestSandboxBudget: the shared sandbox client is metered per client address, so one address
// spending its budget leaves the others theirs.
func TestSandboxBudget(t *testing.T) {
	const budget = 2
	e := newEnv(t, limited(100, budget, 100))
	serveSandbox(t, e.st, []string{"1234567893"})
	tok := sandboxToken(t, e)
	for i := range budget {
		status, h, body := e.call(t, http.MethodGet, "/fhir/Practitioner/1234567893", tok, "192.0.2.1", "")
		if status != http.StatusOK {
			t.Fatalf("request %d: %d %v", i+1, status, body)
		}
		checkFields(t, h, quota.NameHour, budget, budget-int64(i)-1, time.Hour, e.clock.Now())
	}
	status, h, body := e.call(t, http.MethodGet, "/fhir/Practitioner/1234567893", tok, "192.0.2.1", "")
	checkThrottled(t, status, h, body)
	if status, _, body := e.call(t, http.MethodGet, "/fhir/Practitioner/1234567893", tok, "198.51.100.7", ""); status != http.StatusOK {
		t.Fatalf("another address: %d %v", status, body)
	}
}

func sandboxToken(t *testing.T, e *testEnv) string {
	t.Helper()
	set, err := jwk.ReadFile(e.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := set.Key(0)
	tr, err := smart.RequestToken(context.Background(), http.DefaultClient, e.tokenURL, smart.SandboxClientID, priv, "system/*.read")
	if err != nil {
		t.Fatal(err)
	}
	return tr.AccessToken
}

// TestTokenBudget: POST /fhir/token is metered per client address, valid requests or not; past
// the budget it answers 429 slow_down with Retry-After and the fields, and another address is
// unaffected.
func TestTokenBudget(t *testing.T) {
	const budget = 3
	e := newEnv(t, limited(100, 100, budget))
	k := ecKey(t, "a")
	id := e.addClient(t, k)
	form := func() string {
		return tokenForm(sign(t, k.priv, k.alg, k.kid, e.claims(id), nil), "system/*.read").Encode()
	}

	for i := range budget {
		f := form()
		if i == 0 {
			f = "grant_type=password" // a refused request counts too
		}
		status, h, body := e.call(t, http.MethodPost, "/fhir/token", "", "192.0.2.1", f)
		if want := map[bool]int{true: 400, false: 200}[i == 0]; status != want {
			t.Fatalf("request %d: %d %v, want %d", i+1, status, body, want)
		}
		checkFields(t, h, quota.NameMinute, budget, budget-int64(i)-1, time.Minute, e.clock.Now())
	}
	status, h, body := e.call(t, http.MethodPost, "/fhir/token", "", "192.0.2.1", form())
	if status != http.StatusTooManyRequests || body["error"] != "slow_down" || body["access_token"] != nil {
		t.Fatalf("over the budget: %d %v, want 429 slow_down", status, body)
	}
	if n, err := strconv.Atoi(h.Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("Retry-After %q", h.Get("Retry-After"))
	}
	if h.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", h.Get("Cache-Control"))
	}
	checkFields(t, h, quota.NameMinute, budget, 0, time.Minute, e.clock.Now())
	if status, _, body := e.call(t, http.MethodPost, "/fhir/token", "", "198.51.100.7", form()); status != http.StatusOK {
		t.Fatalf("another address: %d %v", status, body)
	}

	// Without a trusted proxy X-Forwarded-For is not believed: a client cannot pick a fresh
	// address for each request.
	direct := newEnv(t, limited(100, 100, 1), func(c *smart.Config) { c.TrustedProxies = nil })
	if status, _, _ := direct.call(t, http.MethodPost, "/fhir/token", "", "192.0.2.1", "grant_type=password"); status != http.StatusBadRequest {
		t.Fatalf("first request: %d", status)
	}
	if status, _, _ := direct.call(t, http.MethodPost, "/fhir/token", "", "192.0.2.2", "grant_type=password"); status != http.StatusTooManyRequests {
		t.Fatalf("a second address claimed by the client itself: %d, want 429", status)
	}
}

// The default budgets are enforceable and are the documented values.
func TestDefaultBudgets(t *testing.T) {
	for _, tt := range []struct {
		p      quota.Policy
		limit  int64
		window time.Duration
	}{
		{smart.ClientPolicy, 6000, time.Minute},
		{smart.SandboxPolicy, 1000, time.Hour},
		{smart.TokenPolicy, 60, time.Minute},
	} {
		if err := tt.p.Validate(); err != nil {
			t.Error(err)
		}
		if len(tt.p.Windows) != 1 || tt.p.Windows[0].Limit != tt.limit || tt.p.Windows[0].Length != tt.window {
			t.Errorf("%s: %+v, want %d per %s", tt.p.Name, tt.p.Windows, tt.limit, tt.window)
		}
	}
}

// TestClientBudgetFromRecord: a client's record sets its budget. Its FHIR responses carry that
// limit and the request after it is a 429; a budget of 0 is never refused and sends no
// rate-limit fields; a record without a budget has the default; a change of budget applies
// within ClientCheckInterval, keeping what the client has already spent.
func TestClientBudgetFromRecord(t *testing.T) {
	const def = 3
	e := newEnv(t, limited(def, 100, 100))
	ctx := context.Background()
	budget := func(n int64) *int64 { return &n }
	// spend sends n requests, all of which must be admitted, and returns the last one's fields.
	spend := func(t *testing.T, tok string, n int) http.Header {
		t.Helper()
		var h http.Header
		for i := range n {
			var status int
			var body map[string]any
			if status, h, body = e.call(t, http.MethodGet, "/fhir/Practitioner/1", tok, "", ""); status != http.StatusOK {
				t.Fatalf("request %d: %d %v", i+1, status, body)
			}
		}
		return h
	}
	for _, tt := range []struct {
		name    string
		budget  *int64
		limit   int64 // 0: unmetered
		inField bool  // the record holds a budget field
	}{
		{"no budget: the default", nil, def, false},
		{"a budget below the default", budget(2), 2, true},
		{"a budget above the default", budget(5), 5, true},
		{"unmetered", budget(0), 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := ecKey(t, "budget-"+tt.name)
			c, err := smart.AddClient(ctx, e.st, smart.ClientSpec{Name: tt.name, JWKS: k.jwks, Scopes: []string{"system/*.read"}, Budget: tt.budget})
			if err != nil {
				t.Fatal(err)
			}
			if rec, _ := e.st.GetRecord(ctx, smart.ClientKind, c.ID); strings.Contains(string(rec.Body), `"budget"`) != tt.inField {
				t.Errorf("stored record %s: budget field present %v, want %v", rec.Body, !tt.inField, tt.inField)
			}
			tok := e.token(t, c.ID, k, "system/*.read").AccessToken
			if tt.limit == 0 {
				h := spend(t, tok, 2*def+1)
				for _, f := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy", "Retry-After"} {
					if v := h.Values(f); len(v) != 0 {
						t.Errorf("unmetered client's response has %s: %q", f, v)
					}
				}
				return
			}
			checkFields(t, spend(t, tok, int(tt.limit)), quota.NameMinute, tt.limit, 0, time.Minute, e.clock.Now())
			status, h, body := e.call(t, http.MethodGet, "/fhir/Practitioner/1", tok, "", "")
			checkThrottled(t, status, h, body)
			checkFields(t, h, quota.NameMinute, tt.limit, 0, time.Minute, e.clock.Now())
		})
	}

	t.Run("a change applies within ClientCheckInterval", func(t *testing.T) {
		k := ecKey(t, "budget-change")
		id := e.addClient(t, k)
		tok := e.token(t, id, k, "system/*.read").AccessToken
		spend(t, tok, def)
		if status, _, _ := e.call(t, http.MethodGet, "/fhir/Practitioner/1", tok, "", ""); status != http.StatusTooManyRequests {
			t.Fatalf("past the default: %d, want 429", status)
		}
		if _, err := smart.SetClientBudget(ctx, e.st, id, budget(def+2)); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(smart.ClientCheckInterval)
		checkFields(t, spend(t, tok, 2), quota.NameMinute, def+2, 0, time.Minute, e.clock.Now())
		if _, err := smart.SetClientBudget(ctx, e.st, id, budget(0)); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(smart.ClientCheckInterval)
		if h := spend(t, tok, def); h.Get("X-RateLimit-Limit") != "" {
			t.Errorf("unmetered: X-RateLimit-Limit %q", h.Get("X-RateLimit-Limit"))
		}
		if _, err := smart.SetClientBudget(ctx, e.st, id, nil); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(smart.ClientCheckInterval)
		status, h, body := e.call(t, http.MethodGet, "/fhir/Practitioner/1", tok, "", "")
		checkThrottled(t, status, h, body) // back on the default, which the first requests spent
		checkFields(t, h, quota.NameMinute, def, 0, time.Minute, e.clock.Now())
	})
}

// TestSetClientBudgetRefuses: a budget out of range, or any budget of the sandbox client, is
// ErrInvalidSpec and changes nothing; an unknown id is ErrClientNotFound.
func TestSetClientBudgetRefuses(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.addClient(t, ecKey(t, "a"))
	for _, tt := range []struct {
		name   string
		id     string
		budget int64
		want   error
	}{
		{"negative", id, -1, smart.ErrInvalidSpec},
		{"over the maximum", id, smart.MaxClientBudget + 1, smart.ErrInvalidSpec},
		{"the sandbox client", smart.SandboxClientID, 10, smart.ErrInvalidSpec},
		{"an unknown client", "nope", 10, smart.ErrClientNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := smart.GetClient(ctx, e.st, tt.id)
			if _, err := smart.SetClientBudget(ctx, e.st, tt.id, &tt.budget); !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if after, _ := smart.GetClient(ctx, e.st, tt.id); after.Version != before.Version {
				t.Errorf("the record changed: version %d to %d", before.Version, after.Version)
			}
		})
	}
	bad := int64(-5)
	if _, err := smart.AddClient(ctx, e.st, smart.ClientSpec{Name: "x", JWKS: ecKey(t, "b").jwks, Scopes: []string{"system/*.read"}, Budget: &bad}); !errors.Is(err, smart.ErrInvalidSpec) {
		t.Errorf("AddClient with budget -5: %v", err)
	}
}
