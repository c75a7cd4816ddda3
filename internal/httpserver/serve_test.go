package httpserver_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"providerdir/internal/httpserver"
)

// slowServer serves a handler that signals when a request has arrived and then takes hold to
// answer, on a real loopback listener under Serve.
func slowServer(t *testing.T, hold time.Duration, shutdownTimeout time.Duration) (url string, arrived <-chan struct{}, cancel context.CancelFunc, served <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	in := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in <- struct{}{}
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "finished")
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- httpserver.Serve(ctx, ln, h, httpserver.ServerOptions{ShutdownTimeout: shutdownTimeout, Logger: quietLog()})
	}()
	t.Cleanup(stop)
	return "http://" + ln.Addr().String(), in, stop, done
}

func TestServeDrainsInFlightRequests(t *testing.T) {
	url, arrived, stop, served := slowServer(t, 300*time.Millisecond, 5*time.Second)

	type result struct {
		body string
		err  error
	}
	res := make(chan result, 1)
	go func() {
		resp, err := http.Get(url + "/slow")
		if err != nil {
			res <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		res <- result{string(b), err}
	}()
	<-arrived
	stop() // what SIGTERM does in providerd

	r := <-res
	if r.err != nil || r.body != "finished" {
		t.Fatalf("in-flight request: %q, %v; want it to finish", r.body, r.err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve after a complete drain: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the drain")
	}
	// The listener is closed: nothing new is accepted.
	if _, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), time.Second); err == nil {
		t.Fatal("listener still accepts after shutdown")
	}
}

func TestServeDrainTimeout(t *testing.T) {
	url, arrived, stop, served := slowServer(t, 10*time.Second, 100*time.Millisecond)
	go func() {
		resp, err := http.Get(url + "/stuck")
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-arrived
	start := time.Now()
	stop()
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "drain not complete") {
			t.Fatalf("Serve = %v, want a drain timeout error", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("Serve took %s past a 100ms drain timeout", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not give up on the stuck request")
	}
}

func TestServeFailsOnClosedListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	err = httpserver.Serve(context.Background(), ln, http.NotFoundHandler(), httpserver.ServerOptions{ShutdownTimeout: time.Second})
	if err == nil {
		t.Fatal("Serve on a closed listener returned nil")
	}
}
