package mongo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/store"
)

// With the server cut off, calls fail with store.ErrUnavailable within a bounded time instead of
// waiting out the driver's defaults, later ones at once while the circuit is open; once the
// server is back, calls succeed again on the same open store.
func TestUnavailableServer(t *testing.T) {
	t.Parallel()
	p, relayed := relayedDatabase(t, "unavailable")
	ctx := t.Context()
	s, err := Open(ctx, relayed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "a", Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}

	p.cut(true)
	// Enough calls to open the circuit and see it refuse. Each must fail as unavailable within a
	// generous bound; the durations are logged, not asserted.
	const bound = 5 * time.Second
	for i := range 8 {
		began := time.Now()
		_, err := s.GetRecord(ctx, "k", "a")
		took := time.Since(began)
		t.Logf("call %d with the server cut off: %v: %v", i+1, took.Round(time.Millisecond), err)
		if !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("call %d with the server cut off: %v, want ErrUnavailable", i+1, err)
		}
		if took > bound {
			t.Errorf("call %d took %v to fail, above %v", i+1, took, bound)
		}
	}

	p.cut(false)
	began := time.Now()
	for deadline := began.Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		rec, err := s.GetRecord(ctx, "k", "a")
		if err == nil {
			if string(rec.Body) != "x" {
				t.Fatalf("after the server came back the record reads %q", rec.Body)
			}
			break
		}
		if !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("while the server comes back: %v, want ErrUnavailable until it answers", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("calls still fail 30 s after the server came back: %v", err)
		}
	}
	t.Logf("answered again %v after the server came back", time.Since(began).Round(time.Millisecond))
	if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "b", Body: []byte("y")}); err != nil {
		t.Fatalf("a write after the server came back: %v", err)
	}
}

// On a server that answers each call later than the selection timeout, more calls at once than
// the pool has connections all succeed: they wait their turn for a connection instead of failing
// as unavailable, which the circuit breaker would take for the server being down.
func TestBusyPoolWaitsItsTurn(t *testing.T) {
	t.Parallel()
	p, relayed := relayedDatabase(t, "busypool")
	ctx := t.Context()
	const pool = 2
	s, err := Open(ctx, withOption(relayed, fmt.Sprintf("maxPoolSize=%d", pool)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "a", Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	// Each call holds its connection for 3/5 of the selection timeout, so with calls = 4 * pool
	// the last ones wait longer than the selection timeout for a connection.
	p.lag.Store(int64(selectionTimeout * 3 / 5))
	const calls = 4 * pool
	errs := make(chan error, calls)
	for range calls {
		go func() {
			_, err := s.GetRecord(ctx, "k", "a")
			errs <- err
		}()
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Errorf("a call on a busy pool: %v", err)
		}
	}
}

// withOption adds a query option to a MongoDB URI.
func withOption(uri, option string) string {
	if strings.Contains(uri, "?") {
		return uri + "&" + option
	}
	return uri + "?" + option
}

// singleHost returns the host:port of a URI that names one host.
func singleHost(uri string) (string, bool) {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return "", false
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	return rest, rest != "" && !strings.Contains(rest, ",")
}

// relay is a TCP relay on loopback in front of the server that can cut the server off: while
// cut, it closes every relayed connection and every new one as soon as it is accepted, as a
// server that went down would. It can also hold back what clients send, as a busy server
// answers late.
type relay struct {
	ln     net.Listener
	target string
	// lag is how long each read from a client waits before it is passed on (nanoseconds).
	lag atomic.Int64

	mu    sync.Mutex
	isCut bool
	conns map[net.Conn]bool
}

func startRelay(t *testing.T, target string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go r.serve()
	t.Cleanup(func() {
		ln.Close()
		r.cut(true)
	})
	return r
}

func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		go r.relay(c)
	}
}

func (r *relay) relay(c net.Conn) {
	up, err := net.Dial("tcp", r.target)
	if err != nil {
		c.Close()
		return
	}
	if !r.track(c, up) {
		c.Close()
		up.Close()
		return
	}
	go func() { r.forward(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
}

// forward passes what the client c sends on to the server up, each read after the relay's lag.
func (r *relay) forward(up, c net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			time.Sleep(time.Duration(r.lag.Load()))
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// track registers a relayed pair unless the relay is cut.
func (r *relay) track(conns ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.isCut {
		return false
	}
	for _, c := range conns {
		r.conns[c] = true
	}
	return true
}

func (r *relay) cut(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.isCut = on
	if on {
		for c := range r.conns {
			c.Close()
		}
		clear(r.conns)
	}
}

// Open waits for a server that answers only after a moment, as one still starting does, longer
// than a call waits to find a server once the deployment is known.
func TestOpenWaitsForFirstAnswer(t *testing.T) {
	t.Parallel()
	p, relayed := relayedDatabase(t, "firstanswer")
	p.cut(true)
	go func() {
		time.Sleep(3 * selectionTimeout)
		p.cut(false)
	}()
	s, err := Open(t.Context(), relayed)
	if err != nil {
		t.Fatalf("open while the server starts answering: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
}

// relayedDatabase starts a relay in front of the server at MONGODB_URI and returns it with the
// URI of a fresh database (named after prefix) reached through it. The database is dropped
// through a connection of its own once the test's later cleanups (closing the stores opened
// through the relay) have run.
func relayedDatabase(t *testing.T, prefix string) (*relay, string) {
	t.Helper()
	uri := serverURI(t)
	target, ok := singleHost(uri)
	if !ok {
		t.Skip("MONGODB_URI names several hosts; the test relays one")
	}
	p := startRelay(t, target)
	db := fmt.Sprintf("%s_%d_%s", prefix, os.Getpid(), time.Now().Format("150405"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if direct, err := open(ctx, withDatabase(uri, db)); err == nil {
			_ = direct.db.Drop(ctx)
			_ = direct.Close()
		}
	})
	return p, withDatabase(strings.Replace(uri, target, p.addr(), 1), db)
}
