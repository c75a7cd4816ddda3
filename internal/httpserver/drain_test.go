package httpserver_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
)

// holding adds a route /hold to every surface: it signals arrived, then answers "finished" once
// release is closed.
func holding(arrived chan<- string, release <-chan struct{}) func(*httpserver.Options) {
	return func(o *httpserver.Options) {
		for i := range o.Surfaces {
			routes := o.Surfaces[i].Routes
			o.Surfaces[i].Routes = func(r *mux.Router) {
				routes(r)
				r.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
					arrived <- r.URL.Path
					<-release
					_, _ = io.WriteString(w, "finished")
				})
			}
		}
	}
}

// fetch makes one request on a new connection, asking to keep it alive, and returns the answer.
func fetch(url string) (response, error) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, string(b), resp.Close}, err
}

// waitNotReady polls /readyz until it answers 503, which it does from the first phase of a
// shutdown on.
func waitNotReady(t *testing.T, base string) {
	t.Helper()
	for range 500 {
		if r, err := fetch(base + "/readyz"); err == nil && r.status == 503 {
			if r.header.Get("Retry-After") != "5" || r.body != "shutting down\n" {
				t.Fatalf("readyz while draining: Retry-After %q, body %q", r.header.Get("Retry-After"), r.body)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("readyz never answered 503 after the shutdown began")
}

// TestDrainFinishesInFlightAndRefusesNew shuts a server down while a request is in flight: new
// requests get 503 with Retry-After and Connection: close in their surface's envelope, the
// probes still answer, the request in flight finishes, and Serve returns after it.
func TestDrainFinishesInFlightAndRefusesNew(t *testing.T) {
	arrived := make(chan string, 1)
	release := make(chan struct{})
	h, _, _ := newHandler(t, nil, holding(arrived, release))
	srv := serve(t, h, httpserver.ServerOptions{ShutdownTimeout: 30 * time.Second})
	base := "http://" + srv.addr

	inflight := make(chan response, 1)
	go func() {
		r, err := fetch(base + "/v1/hold")
		if err != nil {
			t.Errorf("in-flight request: %v", err)
		}
		inflight <- r
	}()
	<-arrived
	srv.stop() // what SIGTERM does in providerd
	waitNotReady(t, base)

	for _, s := range surfaces {
		t.Run(s.name, func(t *testing.T) {
			r, err := fetch(base + s.prefix + "/items/1")
			if err != nil {
				t.Fatal(err)
			}
			if r.status != 503 || r.header.Get("Retry-After") != "5" || !r.close {
				t.Fatalf("new request while draining: %d, Retry-After %q, connection closed %v", r.status, r.header.Get("Retry-After"), r.close)
			}
			if ct := r.header.Get("Content-Type"); ct != s.contentType {
				t.Errorf("Content-Type %q, want %q", ct, s.contentType)
			}
			want := wantCode(s.prefix, "source_unavailable", "transient", "503 Service Unavailable: the server is shutting down; retry shortly")
			if got := errorShape(t, s.prefix, r.body); got != want {
				t.Errorf("error %q, want %q", got, want)
			}
		})
	}
	if r, err := fetch(base + "/livez"); err != nil || r.status != 200 {
		t.Errorf("livez while draining: %d %v", r.status, err)
	}

	select {
	case err := <-srv.served:
		t.Fatalf("Serve returned with a request in flight: %v", err)
	default:
	}
	close(release)
	if r := <-inflight; r.status != 200 || r.body != "finished" {
		t.Fatalf("in-flight request: %d %q; want it to finish", r.status, r.body)
	}
	select {
	case err := <-srv.served:
		if err != nil {
			t.Fatalf("Serve after a complete drain: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return once the request in flight finished")
	}
	if _, err := fetch(base + "/livez"); err == nil {
		t.Fatal("the listener still accepts after the drain")
	}
}

// TestDrainDelayServesWhileNotReady: during the drain delay /readyz answers 503 while requests
// are still served, so that a load balancer's last requests succeed.
func TestDrainDelayServesWhileNotReady(t *testing.T) {
	h, _, _ := newHandler(t, nil)
	srv := serve(t, h, httpserver.ServerOptions{DrainDelay: 5 * time.Second, ShutdownTimeout: 5 * time.Second})
	base := "http://" + srv.addr
	if r, err := fetch(base + "/readyz"); err != nil || r.status != 200 {
		t.Fatalf("readyz before the shutdown: %d %v", r.status, err)
	}
	srv.stop()
	waitNotReady(t, base)
	r, err := fetch(base + "/v1/items/7")
	if err != nil || r.status != 200 || r.body != "item 7" {
		t.Fatalf("request during the drain delay: %d %q %v", r.status, r.body, err)
	}
	select {
	case err := <-srv.served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after the drain delay")
	}
}

// TestDrainTimeoutCutsStuckRequests: a request that outlasts the shutdown timeout is cut and
// Serve reports the incomplete drain.
func TestDrainTimeoutCutsStuckRequests(t *testing.T) {
	arrived := make(chan string, 1)
	release := make(chan struct{})
	defer close(release)
	h, _, _ := newHandler(t, nil, holding(arrived, release))
	srv := serve(t, h, httpserver.ServerOptions{ShutdownTimeout: 100 * time.Millisecond})
	go func() { _, _ = fetch("http://" + srv.addr + "/fhir/hold") }()
	<-arrived
	srv.stop()
	select {
	case err := <-srv.served:
		if err == nil || !strings.Contains(err.Error(), "drain not complete") {
			t.Fatalf("Serve = %v, want a drain timeout error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not give up on the stuck request")
	}
}
