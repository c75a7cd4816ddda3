package resolverclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/resolverclient"
)

// reply is one scripted answer of a fake resolver.
type reply struct {
	status     int
	retryAfter string
	body       string // "" for the resolver's envelope of code
	code       string
}

// scripted is a resolver on loopback that answers its replies in turn, repeating the last one,
// and records the key each request carried.
type scripted struct {
	url     string
	mu      sync.Mutex
	replies []reply
	keys    []string
}

func serveScript(t *testing.T, replies ...reply) *scripted {
	t.Helper()
	s := &scripted{replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		n := len(s.keys)
		s.keys = append(s.keys, r.Header.Get(resolverclient.HeaderServiceKey))
		s.mu.Unlock()
		rp := replies[min(n, len(replies)-1)]
		if rp.retryAfter != "" {
			w.Header().Set("Retry-After", rp.retryAfter)
		}
		body := rp.body
		if body == "" && rp.status != http.StatusOK {
			b, _ := json.Marshal(map[string]any{"error": map[string]string{
				"code": rp.code, "message": "scripted " + rp.code, "request_id": "req-" + strconv.Itoa(n+1)}})
			body = string(b)
		}
		w.WriteHeader(rp.status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/resolver/v1"
	return s
}

func (s *scripted) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}

// okProvider is a 200 body of GET /npi/{npi}.
const okProvider = `{"npi":"1234567893","entity_type":"organization","address":{"state":"CA"}}`

// recorder is a client whose waits are recorded, not spent, with jitter fixed at half its range,
// so that every wait is exact.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) client(t *testing.T, url string, opt resolverclient.Options) *resolverclient.Client {
	t.Helper()
	opt.APIKey = "pdlive_test"
	opt.Sleep = func(ctx context.Context, d time.Duration) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.waits = append(r.waits, d)
		return ctx.Err()
	}
	opt.Jitter = func(n time.Duration) time.Duration { return n / 2 }
	opt.Now = func() time.Time { return clockNow }
	c, err := resolverclient.New(url, opt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var clockNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// The retry rules of docs/contracts/resolver-api.md §7: 429 waits out Retry-After, 500 and 503
// back off exponentially with jitter, anything else is returned at once; attempts are bounded.
func TestRetries(t *testing.T) {
	base := resolverclient.Options{BaseDelay: 100 * time.Millisecond, MaxDelay: 300 * time.Millisecond, MaxAttempts: 4}
	ok := reply{status: 200, body: okProvider}
	tests := []struct {
		name     string
		replies  []reply
		opt      resolverclient.Options
		requests int
		waits    []time.Duration // with jitter at half its range: ceiling*3/4
		status   int             // 0: the call succeeds
		code     string
		after    time.Duration // the error's RetryAfter
	}{
		{name: "success", replies: []reply{ok}, opt: base, requests: 1},
		{name: "429 waits out Retry-After seconds", opt: base, requests: 2,
			replies: []reply{{status: 429, code: "rate_limited", retryAfter: "2"}, ok}, waits: []time.Duration{2 * time.Second}},
		{name: "429 waits out a Retry-After date", opt: base, requests: 2,
			replies: []reply{{status: 429, code: "rate_limited", retryAfter: clockNow.Add(3 * time.Second).Format(http.TimeFormat)}, ok},
			waits:   []time.Duration{3 * time.Second}},
		{name: "429 beyond MaxRetryAfter is returned", opt: base, requests: 1,
			replies: []reply{{status: 429, code: "rate_limited", retryAfter: "3600"}}, status: 429, code: "rate_limited", after: time.Hour},
		{name: "429 without Retry-After backs off", opt: base, requests: 2,
			replies: []reply{{status: 429, code: "rate_limited"}, ok}, waits: []time.Duration{75 * time.Millisecond}},
		{name: "500 backs off", opt: base, requests: 3,
			replies: []reply{{status: 500, code: "internal_error"}, {status: 500, code: "internal_error"}, ok},
			waits:   []time.Duration{75 * time.Millisecond, 150 * time.Millisecond}},
		{name: "503 to the last attempt, capped at MaxDelay", opt: base, requests: 4,
			replies: []reply{{status: 503, code: "source_unavailable"}},
			waits:   []time.Duration{75 * time.Millisecond, 150 * time.Millisecond, 225 * time.Millisecond}, status: 503, code: "source_unavailable"},
		{name: "503 Retry-After takes precedence", opt: base, requests: 2,
			replies: []reply{{status: 503, code: "source_unavailable", retryAfter: "5"}, ok}, waits: []time.Duration{5 * time.Second}},
		{name: "one attempt only", opt: resolverclient.Options{MaxAttempts: 1}, requests: 1,
			replies: []reply{{status: 503, code: "source_unavailable"}}, status: 503, code: "source_unavailable"},
		{name: "400 is terminal", opt: base, requests: 1, replies: []reply{{status: 400, code: "invalid_npi"}}, status: 400, code: "invalid_npi"},
		{name: "401 is terminal", opt: base, requests: 1, replies: []reply{{status: 401, code: "invalid_key"}}, status: 401, code: "invalid_key"},
		{name: "404 is terminal", opt: base, requests: 1, replies: []reply{{status: 404, code: "not_found"}}, status: 404, code: "not_found"},
		{name: "409 with Retry-After is still terminal", opt: base, requests: 1,
			replies: []reply{{status: 409, code: "conflict", retryAfter: "1"}}, status: 409, code: "conflict", after: time.Second},
		{name: "502 is not in the contract's retry list", opt: base, requests: 1,
			replies: []reply{{status: 502, body: "<html>bad gateway</html>"}}, status: 502},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveScript(t, tt.replies...)
			var rec recorder
			p, err := rec.client(t, srv.url, tt.opt).NPI(context.Background(), "1234567893")
			if got := srv.requests(); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			if !slices.Equal(rec.waits, tt.waits) {
				t.Errorf("waits %v, want %v", rec.waits, tt.waits)
			}
			for i, k := range srv.keys {
				if k != "pdlive_test" {
					t.Errorf("request %d sent X-Service-Key %q", i+1, k)
				}
			}
			if tt.status == 0 {
				if err != nil || p.NPI != "1234567893" {
					t.Fatalf("got %+v, %v", p, err)
				}
				return
			}
			var e *resolverclient.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *Error", err, err)
			}
			if e.Status != tt.status || e.Code != tt.code || e.RetryAfter != tt.after || e.Attempts != tt.requests {
				t.Errorf("error %+v, want status %d code %q retry after %v after %d attempts", e, tt.status, tt.code, tt.after, tt.requests)
			}
			if tt.code != "" && (e.Message != "scripted "+tt.code || e.RequestID != "req-"+strconv.Itoa(tt.requests)) {
				t.Errorf("error %+v does not carry the last envelope's message and request id", e)
			}
		})
	}
}

// A body that is not the envelope (a proxy's page) still gives an *Error with the status and the
// start of the body.
func TestErrorWithoutEnvelope(t *testing.T) {
	srv := serveScript(t, reply{status: 502, body: "<html>bad gateway</html>"})
	var rec recorder
	_, err := rec.client(t, srv.url, resolverclient.Options{}).CCN(context.Background(), "050001")
	var e *resolverclient.Error
	if !errors.As(err, &e) || e.Code != "" || e.Message != "<html>bad gateway</html>" || e.Retryable() {
		t.Fatalf("error %#v", err)
	}
	if want := "resolver: 502: <html>bad gateway</html>"; e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

// Cancelled and expiring contexts end a call promptly, whether the resolver is slow to answer or
// the call is waiting to retry.
func TestContext(t *testing.T) {
	var hung atomic.Int64
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hung.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	unavailable := serveScript(t, reply{status: 503, code: "source_unavailable", retryAfter: "20"})

	tests := []struct {
		name string
		url  string
		ctx  func() (context.Context, context.CancelFunc)
		want error
		// last is the status of the answer the error also carries (0: none)
		last int
	}{
		{"slow response, deadline", slow.URL, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded, 0},
		{"cancelled before the call", slow.URL, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled, 0},
		{"cancelled while waiting to retry", unavailable.url, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled, 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := resolverclient.New(tt.url, resolverclient.Options{APIKey: "k"}) // real sleep and clock
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tt.ctx()
			defer cancel()
			done := make(chan error, 1)
			go func() { _, err := c.NPI(ctx, "1234567893"); done <- err }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the call did not return after its context ended")
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			var e *resolverclient.Error
			if got := errors.As(err, &e); got != (tt.last != 0) || (got && e.Status != tt.last) {
				t.Errorf("error %v: carries the last answer %v, want status %d", err, got, tt.last)
			}
		})
	}
}

// A wait that would end after the context's deadline is not started: the call returns the
// answer it has at once.
func TestDeadlineBeforeRetryAfter(t *testing.T) {
	srv := serveScript(t, reply{status: 503, code: "source_unavailable", retryAfter: "5"})
	var rec recorder
	c := rec.client(t, srv.url, resolverclient.Options{})
	_, err := c.NPI(deadlineOnly{context.Background(), clockNow.Add(2 * time.Second)}, "1234567893")
	var e *resolverclient.Error
	if !errors.As(err, &e) || e.Status != 503 || e.Attempts != 1 || len(rec.waits) != 0 {
		t.Fatalf("error %v, waits %v: want the 503 after one attempt and no wait", err, rec.waits)
	}
}

// deadlineOnly reports a deadline without enforcing it, so that the client's decision is read
// against the recorder's clock, which stands still.
type deadlineOnly struct {
	context.Context
	dl time.Time
}

func (d deadlineOnly) Deadline() (time.Time, bool) { return d.dl, true }
