package gate

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"

	"providerdir/internal/clientip"
	"providerdir/internal/logging"
	"providerdir/quota"
	"providerdir/rest"
	"providerdir/rest/apikey"
)

// errorWriter is a surface's error envelope writer (rest.V1Error, rest.ResolverError, ...).
type errorWriter func(w http.ResponseWriter, r *http.Request, status int, code, message string)

// withKeyLogger makes the request's log lines name the key (by id) from here on.
func withKeyLogger(ctx context.Context, k apikey.Key) context.Context {
	return logging.With(ctx, logging.Logger(ctx).With(slog.String("key_id", k.ID)))
}

func keySubject(k apikey.Key) string { return "key:" + k.ID }
func ipSubject(a netip.Addr) string  { return "ip:" + clientip.Subject(a) }

// peek reads a budget for the fields of a refusal, logging a failure (the refusal is sent
// without the fields).
func (g *Gate) peek(r *http.Request, p quota.Policy, subject string) (quota.Decision, error) {
	d, err := g.limiter.Peek(r.Context(), p, subject)
	if err != nil {
		logging.Logger(r.Context()).Warn("refusal sent without rate-limit fields", slog.Any("error", err))
	}
	return d, err
}

// internal answers in the surface's envelope when the store fails: 503 with Retry-After while
// it cannot be reached, else 500 (rest.WriteFailure). The cause goes to the log with the
// request id, never to the client.
func (g *Gate) internal(w http.ResponseWriter, r *http.Request, write errorWriter, err error) {
	logging.Logger(r.Context()).Error("API key or quota check failed", slog.Any("error", err))
	rest.WriteFailure(w, r, write, err)
}

func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
