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

// Logger returns the logger of the request ctx belongs to, or the process default (slog.Default)
// outside a request, so it is always safe to call.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(ctxKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}
