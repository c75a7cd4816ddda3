package httpserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"providerdir/internal/httpserver"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// running is a handler served by Serve on a real loopback listener.
type running struct {
	addr   string
	stop   context.CancelFunc
	served <-chan error
}

func serve(t *testing.T, h http.Handler, o httpserver.ServerOptions) running {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.Logger == nil {
		o.Logger = quietLog()
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		served <- httpserver.Serve(ctx, ln, h, o)
		close(finished)
	}()
	t.Cleanup(func() {
		stop()
		select {
		case <-finished:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return running{addr: ln.Addr().String(), stop: stop, served: served}
}

// trickle sends head at once, then rest one byte at a time, one every 20 ms, until it is all sent
// or the connection fails; a whole trickle takes far longer than the test waits.
func trickle(conn net.Conn, head, rest string) {
	if _, err := io.WriteString(conn, head); err != nil {
		return
	}
	for i := range len(rest) {
		time.Sleep(20 * time.Millisecond)
		if _, err := conn.Write([]byte{rest[i]}); err != nil {
			return
		}
	}
}

// TestSlowClientsAreDisconnected holds connections open the way slowloris does, sending headers
// or a body a byte at a time, and expects the server to close each connection while the client
// is still sending.
func TestSlowClientsAreDisconnected(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			return
		}
		fmt.Fprintf(w, "read %d bytes", n)
	})
	r := serve(t, h, httpserver.ServerOptions{
		ReadHeaderTimeout: 300 * time.Millisecond,
		ReadTimeout:       600 * time.Millisecond,
		WriteTimeout:      600 * time.Millisecond,
	})
	body := strings.Repeat("x", 1000)
	tests := []struct {
		name, head, rest string
	}{
		{"headers trickled", "GET / HTTP/1.1\r\nHost: x\r\n", "X-Slow: " + strings.Repeat("y", 1000) + "\r\n\r\n"},
		{"body trickled", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", body},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", r.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			go trickle(conn, tt.head, tt.rest)
			// Answered at all within a generous bound: the trickle itself would take 20 s.
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			got, err := io.ReadAll(conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("connection still open after 10 s of trickling (read %q)", got)
			}
			if strings.Contains(string(got), "read 1000 bytes") {
				t.Fatalf("the trickled request was served whole: %q", got)
			}
		})
	}
}

// TestStreamOutlivesServerTimeouts streams a response for several times the server's read and
// write timeouts: cut short when the handler leaves its write deadline alone, served whole when
// it moves it forward with ExtendWriteDeadline before each part.
func TestStreamOutlivesServerTimeouts(t *testing.T) {
	const parts = 8
	stream := func(extend bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for i := range parts {
				if extend {
					if err := httpserver.ExtendWriteDeadline(w, 2*time.Second); err != nil {
						t.Errorf("ExtendWriteDeadline: %v", err)
						return
					}
				}
				if _, err := fmt.Fprintf(w, "part %d\n", i); err != nil {
					return
				}
				if err := http.NewResponseController(w).Flush(); err != nil {
					return
				}
				select {
				case <-time.After(100 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
			_, _ = io.WriteString(w, "end\n")
		}
	}
	tests := []struct {
		name   string
		extend bool
		whole  bool
	}{
		{"deadline left alone", false, false},
		{"deadline extended", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := serve(t, stream(tt.extend), httpserver.ServerOptions{
				ReadTimeout:  250 * time.Millisecond,
				WriteTimeout: 250 * time.Millisecond,
			})
			resp, err := http.Get("http://" + r.addr + "/export")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var lines []string
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			whole := len(lines) == parts+1 && lines[parts] == "end"
			if whole != tt.whole {
				t.Fatalf("stream whole = %v, want %v (got %d lines, %v)", whole, tt.whole, len(lines), sc.Err())
			}
		})
	}
}

// TestHeaderSizeIsBounded sends headers just under and over the HTTP server's own bound, which
// net/http enforces before any handler (the router's lower, enveloped bound is tested with the
// surfaces).
func TestHeaderSizeIsBounded(t *testing.T) {
	r := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }), httpserver.ServerOptions{})
	tests := []struct {
		name   string
		size   int
		status int
	}{
		{"headers under the server's bound", httpserver.DefaultServerHeaderBytes - 8<<10, http.StatusOK},
		{"headers over the server's bound", httpserver.DefaultServerHeaderBytes + 8<<10, http.StatusRequestHeaderFieldsTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "http://"+r.addr+"/", nil)
			req.Header.Set("X-Big", strings.Repeat("h", tt.size))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}
