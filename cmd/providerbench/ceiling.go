package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// ceiling serves, for each scenario path, the exact bytes and headers the real server gave
// (Date aside, which net/http sets), so that the client parses the same response from both: the
// same framing (a Content-Length or chunks), the same header lines. It reads a request's body,
// as the server does, but does not look at it.
type ceiling struct {
	URL string
	srv *http.Server
}

func (c *ceiling) Close() { _ = c.srv.Close() }

func startCeiling(c *http.Client, base string, scenarios []scenario) (*ceiling, error) {
	type canned struct {
		body   []byte
		header http.Header
	}
	bodies := map[string]canned{}
	for _, sc := range scenarios {
		if err := sc.prepare(1); err != nil {
			return nil, fmt.Errorf("%s: %w", sc.name, err)
		}
		resp, err := c.Do(sc.request(context.Background(), base, 0))
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %s", sc.path, resp.Status)
		}
		h := resp.Header.Clone()
		h.Del("Date")
		bodies[sc.path] = canned{b, h}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		for k, v := range b.header {
			w.Header()[k] = v
		}
		_, _ = w.Write(b.body)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &ceiling{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}
