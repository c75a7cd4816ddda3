package httpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Timeouts of the HTTP server. Reading headers is bounded so idle or slow clients cannot hold
// connections open; the write side is not, because exports stream for as long as they need.
const (
	ReadHeaderTimeout = 10 * time.Second
	IdleTimeout       = 2 * time.Minute
)

// Serve serves h on ln until ctx is done, then shuts down gracefully: it stops accepting, lets
// in-flight requests finish for up to shutdownTimeout, and returns. It returns nil after a
// complete drain, an error if the drain timed out (remaining connections are then closed) or if
// serving failed before ctx was done.
//
// Requests do not inherit ctx: a shutdown signal must not cancel the requests it lets finish.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, shutdownTimeout time.Duration, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests", slog.String("timeout", shutdownTimeout.String()))
	dctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := srv.Shutdown(dctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), serr)
	}
	if err != nil {
		_ = srv.Close()
		return fmt.Errorf("drain not complete after %s: %w", shutdownTimeout, err)
	}
	return nil
}
