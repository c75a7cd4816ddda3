package webhooks

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/testing/webhookreceiver"
	"providerdir/webhook"
)

// A URL whose host is, or carries, an address of this host or its networks is refused with 400
// invalid_url and stores nothing, even where loopback receivers are allowed (as here): a zone
// names an interface of this host whatever the address, and the IPv6 forms of an IPv4 address
// and the nonstandard IPv4 forms are not the address checked. The receiver listening on the
// named port gets nothing.
func TestRegistrationRefusesHostileAddresses(t *testing.T) {
	e := newAPIEnv(t)
	live := e.key(t, apikey.TierStarter)
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	u, err := url.Parse(rv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	for _, hook := range webhookreceiver.HostileURLs(port) {
		t.Run(hook, func(t *testing.T) {
			var got errorBody
			status, _ := e.do(t, http.MethodPost, "/webhooks", live, `{"url":"`+hook+`","events":["source.refreshed"]}`, &got)
			if status != http.StatusBadRequest || got.Error.Code != webhook.CodeInvalidURL || got.Error.Message == "" || got.Error.RequestID == "" {
				t.Errorf("%d %+v, want 400 %s", status, got, webhook.CodeInvalidURL)
			}
		})
	}
	var list List
	if status, _ := e.do(t, http.MethodGet, "/webhooks", live, "", &list); status != http.StatusOK || len(list.Webhooks) != 0 {
		t.Fatalf("refused registrations listed: %d %+v", status, list)
	}
	if n := len(rv.Requests()); n != 0 {
		t.Errorf("the receiver got %d requests", n)
	}
}

// The delivery log records one reason and no duration, the same whether the address was
// refused at connect time, nothing listened on the port, or the receiver did not answer in
// time, and never the address or port: the log tells a subscriber nothing of which hosts and
// ports exist. Every receiver is on loopback.
func TestDeliveryLogTellsNoAddress(t *testing.T) {
	hang := func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	closed := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr + "/hook"
	}
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
		// loopback is whether the worker may connect to loopback.
		loopback bool
	}{
		{"address refused at connect", func(t *testing.T) string { return webhookreceiver.NewReceiver(t, signed, nil).URL + "/hook" }, false},
		{"nothing listening", closed, true},
		{"no answer in time", func(t *testing.T) string { return webhookreceiver.NewReceiver(t, signed, hang).URL + "/hook" }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			hook := c.url(t)
			a := firstAttempt(t, hook, webhook.AddressPolicy{AllowLoopback: c.loopback})
			host, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(hook, "http://"), "/hook"))
			if a.Status != 0 || a.Error != "no response" || a.DurationMS != 0 || strings.Contains(a.Error, host) || strings.Contains(a.Error, port) {
				t.Errorf("attempt logged as %+v, want no status, no duration and the reason %q", a, "no response")
			}
		})
	}
}

// firstAttempt registers hook through the API (loopback allowed there), sends it a test ping
// with a worker of policy p, and returns the first attempt as GET .../deliveries shows it.
func firstAttempt(t *testing.T, hook string, p webhook.AddressPolicy) webhook.Attempt {
	t.Helper()
	e := newAPIEnv(t)
	live := e.key(t, apikey.TierStarter)
	var created View
	if status, _ := e.do(t, http.MethodPost, "/webhooks", live, `{"url":"`+hook+`","events":["source.refreshed"]}`, &created); status != http.StatusCreated {
		t.Fatalf("register %s: %d", hook, status)
	}
	webhookreceiver.Run(t, webhook.NewWorker(webhook.WorkerOptions{Store: e.st, Now: e.now, Policy: p, AttemptTimeout: 300 * time.Millisecond,
		PollInterval: 2 * time.Millisecond, FanoutInterval: time.Hour}).Run)
	if status, _ := e.do(t, http.MethodPost, "/webhooks/"+created.ID+"/test", live, "", nil); status != http.StatusAccepted {
		t.Fatalf("test: %d", status)
	}
	var log DeliveryList
	webhookreceiver.WaitFor(t, "the first attempt logged", func() bool {
		e.do(t, http.MethodGet, "/webhooks/"+created.ID+"/deliveries", live, "", &log)
		return len(log.Deliveries) == 1 && len(log.Deliveries[0].Log) > 0 && log.Deliveries[0].LastResponse != nil
	})
	return log.Deliveries[0].Log[0]
}
