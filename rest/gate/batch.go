package gate

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"

	"providerdir/internal/logging"
	"providerdir/quota"
	"providerdir/rest"
	"providerdir/rest/apikey"
)

// NPICeilingFactor sets the resolver's per-NPI ceiling on batch resolution
// (docs/contracts/resolver-api.md §8 rule 2 leaves its value open): a key may resolve, by POST
// /batch/npi, ten times as many NPIs per rolling hour as its tier allows requests, so 1,000 for
// the sandbox (per client address, as its request budget), 50,000 for Starter and 500,000 for Pro.
// Every ceiling holds at least one full batch of 1,000; an admitted batch counts as one request
// against the hourly budget too, and a batch the ceiling refuses counts as no request.
const NPICeilingFactor = 10

// Names of the per-NPI ceiling's fields on batch responses, beside the request budget's
// X-RateLimit-* fields: the ceiling, the NPIs left in the rolling hour, and when that grows
// (Unix epoch seconds).
const (
	HeaderNPILimit     = "X-RateLimit-NPI-Limit"
	HeaderNPIRemaining = "X-RateLimit-NPI-Remaining"
	HeaderNPIReset     = "X-RateLimit-NPI-Reset"
)

// NPIPolicyFor returns the per-NPI ceiling of a key tier: NPICeilingFactor times the tier's
// hourly request budget, per rolling hour.
func NPIPolicyFor(t apikey.Tier) quota.Policy {
	p := PolicyFor(t)
	return quota.Policy{Name: p.Name + "-npis", Windows: []quota.Window{quota.RollingHour(NPICeilingFactor * p.Windows[0].Limit)}}
}

// npiMeter charges NPIs to the caller's per-NPI ceiling; the gate puts one in the context of
// every resolver request it admits, with the decision that counted the request under its
// budget, to be refunded when the ceiling refuses the batch.
type npiMeter struct {
	g       *Gate
	policy  quota.Policy
	subject string
	request quota.Policy
	counted quota.Decision
}

type npiMeterKey struct{}

// MeterNPIs charges n NPIs of a batch to the caller's per-NPI ceiling and writes its fields. It
// reports whether the batch may go on; when not, it has answered: 429 rate_limited with
// Retry-After (the seconds until the ceiling has room for all n) when the ceiling has fewer than
// n NPIs left, or the failure of the quota store. A refused batch is counted nowhere, as a 429
// of the budget is not: none of its NPIs, and the request the gate counted is refunded
// (quota.Limiter.Refund), its X-RateLimit-* fields written again to say so. Outside the gate
// (no meter in the context) nothing is metered.
func MeterNPIs(w http.ResponseWriter, r *http.Request, n int) bool {
	m, ok := r.Context().Value(npiMeterKey{}).(npiMeter)
	if !ok {
		return true
	}
	var d quota.Decision
	var err error
	if n == 0 {
		d, err = m.g.limiter.Peek(r.Context(), m.policy, m.subject)
	} else {
		d, err = m.g.limiter.AllowN(r.Context(), m.policy, m.subject, int64(n))
	}
	if err != nil {
		m.g.internal(w, r, rest.ResolverError, err)
		return false
	}
	s := d.Binding()
	h := w.Header()
	h.Set(HeaderNPILimit, strconv.FormatInt(s.Limit, 10))
	h.Set(HeaderNPIRemaining, strconv.FormatInt(s.Remaining, 10))
	h.Set(HeaderNPIReset, strconv.FormatInt(s.ResetSecond().Unix(), 10))
	if n > 0 && !d.Allowed {
		m.refundRequest(w, r)
		quota.SetRetryAfter(h, d)
		rest.ResolverError(w, r, http.StatusTooManyRequests, CodeRateLimited,
			"Per-NPI ceiling of "+formatInt(s.Limit)+" NPIs an hour reached: "+formatInt(s.Remaining)+" left, "+strconv.Itoa(n)+
				" asked; back off for "+h.Get(quota.HeaderRetryAfter)+" seconds (Retry-After) or send fewer NPIs.")
		return false
	}
	return true
}

// refundRequest takes back the request the gate counted for a batch the ceiling refused and
// rewrites the budget's fields. When the store fails the request stays counted: the refusal
// is answered all the same, with the fields as the gate wrote them.
func (m npiMeter) refundRequest(w http.ResponseWriter, r *http.Request) {
	d, err := m.g.limiter.Refund(r.Context(), m.request, m.subject, m.counted)
	if err != nil {
		logging.Logger(r.Context()).Warn("a refused batch stays counted as a request", slog.Any("error", err))
		return
	}
	quota.SetHeaders(w.Header(), d)
}

func withNPIMeter(ctx context.Context, m npiMeter) context.Context {
	return context.WithValue(ctx, npiMeterKey{}, m)
}
