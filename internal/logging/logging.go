// Package logging owns how the service writes logs: the process logger built from --log-format
// and --log-level, and the request-scoped logger carried in a context. Handlers log through
// Logger(ctx) so that every line of a request carries its request id without each call site
// remembering to add it.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// New returns a logger writing to w in format "json" (for log collectors, the production
// default) or "text" (for a person at a terminal).
func New(w io.Writer, format string, level slog.Leveler) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("logging: unknown format %q", format)
}

type ctxKey struct{}

// With returns a context whose Logger is l.
func With(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// WithRequest returns a context whose Logger is base with the request id on every line, as
// With(ctx, base.With("request_id", id)) would, except that the logger is derived on first use.
// Deriving it copies the handler and encodes the attribute, a cost on every request, while most
// requests log nothing at the configured level.
func WithRequest(ctx context.Context, base *slog.Logger, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, &requestLogger{base: base, id: id})
}

type requestLogger struct {
	base *slog.Logger
	id   string
	once sync.Once
	l    *slog.Logger
}

func (r *requestLogger) logger() *slog.Logger {
	r.once.Do(func() { r.l = r.base.With(slog.String("request_id", r.id)) })
	return r.l
}

// Logger returns the logger of the request ctx belongs to, or the process default (slog.Default)
// outside a request, so it is always safe to call.
func Logger(ctx context.Context) *slog.Logger {
	switch l := ctx.Value(ctxKey{}).(type) {
	case *slog.Logger:
		return l
	case *requestLogger:
		return l.logger()
	}
	return slog.Default()
}
