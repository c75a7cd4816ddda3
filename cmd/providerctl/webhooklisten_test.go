package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"providerdir/webhook"
)

// syncBuffer is a buffer a command writes to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningOn = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/)`)

// startListener runs `providerctl webhook-listen args...` in-process until the test ends and
// returns its URL and its output.
func startListener(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"webhook-listen"}, args...), &env{stdout: out, stderr: out, getenv: func(string) string { return "" }})
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("webhook-listen exit %d:\n%s", code, out.String())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := listeningOn.FindStringSubmatch(out.String()); m != nil {
			return m[1], out
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("webhook-listen did not say where it listens:\n%s", out.String())
	return "", nil
}

// The receiver answers a delivery 204 and prints it only when it proves it comes from the
// service: signed with the secret it was given (the real signing code), or, for a FHIR
// subscription, carrying the channel's bearer token. Anything else is 401 and said so.
func TestWebhookListen(t *testing.T) {
	const secret, bearer = "whsec_listen_test", "rcv_token"
	url, out := startListener(t, "--port", "0", "--secret", secret, "--bearer", bearer)
	body := []byte(`{"event":"ping","subscription_id":"wh_0123456789abcdef","note":"` + "\u202e" + `reversed"}`)
	now := time.Now()
	tests := []struct {
		name    string
		method  string
		headers map[string]string
		body    []byte
		status  int
		says    []string
	}{
		{"signed with the secret", http.MethodPost, map[string]string{
			webhook.HeaderSignature: webhook.Sign(now, body, secret), webhook.HeaderEvent: "ping", webhook.HeaderEventID: "evt_signed"},
			body, http.StatusNoContent, []string{"ping evt_signed verified by its signature", `"event": "ping"`, `\u202ereversed`}},
		{"signed during a rotation, the secret second", http.MethodPost, map[string]string{
			webhook.HeaderSignature: webhook.Sign(now, body, "whsec_new", secret), webhook.HeaderEventID: "evt_rotated"},
			body, http.StatusNoContent, []string{"(no event) evt_rotated verified by its signature"}},
		{"signed with another secret", http.MethodPost, map[string]string{
			webhook.HeaderSignature: webhook.Sign(now, body, "whsec_other"), webhook.HeaderEventID: "evt_forged"},
			body, http.StatusUnauthorized, []string{"evt_forged refused with 401: bad signature: webhook: no signature matches"}},
		{"a body changed after signing", http.MethodPost, map[string]string{
			webhook.HeaderSignature: webhook.Sign(now, body, secret), webhook.HeaderEventID: "evt_tampered"},
			append(body, ' '), http.StatusUnauthorized, []string{"evt_tampered refused with 401: bad signature"}},
		{"a replayed old delivery", http.MethodPost, map[string]string{
			webhook.HeaderSignature: webhook.Sign(now.Add(-time.Hour), body, secret), webhook.HeaderEventID: "evt_replayed"},
			body, http.StatusUnauthorized, []string{"evt_replayed refused with 401: bad signature: webhook: signature timestamp outside the tolerance"}},
		{"unsigned", http.MethodPost, map[string]string{webhook.HeaderEventID: "evt_unsigned"},
			body, http.StatusUnauthorized, []string{"evt_unsigned refused with 401: no X-Service-Signature header"}},
		{"a FHIR notification with the channel's bearer token", http.MethodPost, map[string]string{
			"Authorization": "Bearer " + bearer, webhook.HeaderEvent: "handshake", webhook.HeaderEventID: "evt_handshake",
			webhook.HeaderSignature: webhook.Sign(now, []byte(`{}`), "whsec_subscription")},
			[]byte(`{"resourceType":"Bundle","type":"history"}`), http.StatusNoContent,
			[]string{"handshake evt_handshake verified by its channel header", `"resourceType": "Bundle"`}},
		{"another bearer token", http.MethodPost, map[string]string{"Authorization": "Bearer nope", webhook.HeaderEventID: "evt_badbearer"},
			[]byte(`{}`), http.StatusUnauthorized, []string{"evt_badbearer refused with 401: the Authorization header does not carry the channel's bearer token"}},
		{"an event name a terminal would act on", http.MethodPost, map[string]string{
			webhook.HeaderSignature: webhook.Sign(now, body, secret), webhook.HeaderEvent: "ping\u202e", webhook.HeaderEventID: "evt_escaped"},
			body, http.StatusNoContent, []string{`ping\u202e evt_escaped verified`}},
		{"a GET", http.MethodGet, nil, nil, http.StatusMethodNotAllowed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(out.String())
			req, err := http.NewRequest(tt.method, url, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d", res.StatusCode, tt.status)
			}
			printed := out.String()[before:]
			for _, want := range tt.says {
				if !strings.Contains(printed, want) {
					t.Errorf("printed %q, want it to hold %q", printed, want)
				}
			}
			if strings.ContainsRune(printed, '\u202e') {
				t.Errorf("printed an unescaped override: %q", printed)
			}
			if tt.status == http.StatusUnauthorized && strings.Contains(printed, "subscription_id") {
				t.Errorf("printed the body of a refused delivery: %q", printed)
			}
		})
	}
}

func TestWebhookListenUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"nothing to verify with", []string{"--port", "0"}, "needs --secret or --bearer"},
		{"an empty secret", []string{"--secret", ""}, "empty secret"},
		{"no port", []string{"--secret", "whsec_x", "--port", "70000"}, "is not a port"},
		{"an argument", []string{"--secret", "whsec_x", "extra"}, "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := invoke(t, nil, append([]string{"webhook-listen"}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
