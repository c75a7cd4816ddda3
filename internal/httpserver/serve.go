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

// Defaults of ServerOptions.
//
// The headers of a request must arrive within DefaultReadHeaderTimeout and the whole request,
// body included, within DefaultReadTimeout, so a client sending slowly holds a connection for
// no longer. A response is cut once DefaultWriteTimeout has passed since the request's headers
// were read: it bounds handling and writing together. A handler that streams for longer (an
// export) moves its write deadline forward with ExtendWriteDeadline as it writes.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	// DefaultIdleTimeout outlasts the idle timeouts of common load balancers (60 s), so a
	// balancer, not this server, closes an idle pooled connection and never sends on one the
	// server is closing.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultServerHeaderBytes bounds the request line and headers together as net/http reads
	// them, which answers a request beyond it with a plain 431 and closes the connection. It is
	// net/http's own default, far above the limits the router answers in each surface's
	// envelope (DefaultMaxURLBytes, DefaultMaxHeaderBytes), so that a client over those gets a
	// 414 or 431 it can parse.
	DefaultServerHeaderBytes = http.DefaultMaxHeaderBytes
)

// ServerOptions configures Serve. A zero field takes its default.
type ServerOptions struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	// DrainDelay is how long the server keeps serving after ctx ends while /readyz answers
	// 503, so that a load balancer probing it stops sending new requests before it refuses
	// them. Zero refuses new requests at once.
	DrainDelay time.Duration
	// ShutdownTimeout bounds how long in-flight requests may take to finish once new ones are
	// refused; the ones still running then are cut. Zero cuts them at once.
	ShutdownTimeout time.Duration
	// Logger receives the shutdown progress and net/http's own errors; nil means slog.Default().
	Logger *slog.Logger
}

func (o ServerOptions) withDefaults() ServerOptions {
	set := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	set(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	set(&o.ReadTimeout, DefaultReadTimeout)
	set(&o.WriteTimeout, DefaultWriteTimeout)
	set(&o.IdleTimeout, DefaultIdleTimeout)
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultServerHeaderBytes
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// drainer is a handler that takes part in a graceful shutdown; *Handler is one.
type drainer interface {
	// notReady makes /readyz answer 503 while everything else is still served.
	notReady()
	// refuseNew answers every new request with 503 from now on; the channel is closed once no
	// admitted request is still running.
	refuseNew() <-chan struct{}
}

// Serve serves h on ln until ctx is done, then shuts down gracefully. When h is a *Handler the
// shutdown has two phases: for DrainDelay /readyz answers 503 and requests are still served;
// then new requests get 503 with Retry-After and Connection: close in their surface's envelope
// while the ones in flight (streams included) finish, for up to ShutdownTimeout. Then the
// listener closes. It returns nil after a complete drain, an error if the drain timed out
// (remaining connections are then closed) or if serving failed before ctx was done.
//
// Requests do not inherit ctx: a shutdown signal must not cancel the requests it lets finish.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o ServerOptions) error {
	o = o.withDefaults()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	o.Logger.Info("shutting down: draining in-flight requests",
		slog.String("addr", ln.Addr().String()),
		slog.String("drain_delay", o.DrainDelay.String()),
		slog.String("timeout", o.ShutdownTimeout.String()))
	d, _ := h.(drainer)
	if d != nil && o.DrainDelay > 0 {
		d.notReady()
		select {
		case <-time.After(o.DrainDelay):
		case err := <-errc:
			return fmt.Errorf("serve %s: %w", ln.Addr(), err)
		}
	}
	dctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	if d != nil {
		select {
		case <-d.refuseNew():
		case <-dctx.Done():
		}
	}
	err := srv.Shutdown(dctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), serr)
	}
	if err != nil {
		_ = srv.Close()
		return fmt.Errorf("drain not complete after %s: %w", o.ShutdownTimeout, err)
	}
	return nil
}

// ExtendWriteDeadline lets a handler that streams its response (an export) outlive the server's
// WriteTimeout: it moves the connection's write deadline to d from now. Call it before writing
// each part of the stream, so that d bounds how long one part may take to reach the client
// rather than the whole stream: a stalled client is still disconnected, a reading one is served
// for as long as the stream lasts. Call it first before the WriteTimeout passes: a connection
// whose deadline has passed has failed for good.
//
// It fails when the response writer cannot reach its connection's deadline.
func ExtendWriteDeadline(w http.ResponseWriter, d time.Duration) error {
	if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d)); err != nil {
		return fmt.Errorf("extend write deadline: %w", err)
	}
	return nil
}
