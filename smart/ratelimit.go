package smart

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"providerdir/internal/clientip"
	"providerdir/internal/logging"
	"providerdir/quota"
)

// The FHIR surface's budgets, metered by package quota (rolling windows shared by every replica on
// a shared store, counted in memory and written behind on a store one process owns; a refused
// request counted nowhere). Every response they meter carries the rate-limit
// fields the resolver API sends (quota.SetHeaders: X-RateLimit-Limit, X-RateLimit-Remaining,
// X-RateLimit-Reset in Unix seconds, RateLimit, RateLimit-Policy), and a refusal is a 429 with
// Retry-After. Requests admitted by public read mode carry no token and no client, and are not
// metered here.
var (
	// ClientPolicy is a registered client's default budget of FHIR requests: 6,000 per rolling
	// minute, counted per client across replicas. A directory sync that pages through results at
	// a hundred requests a second stays inside it; a client that loops does not take the server.
	// A client record's Budget replaces the limit for that client (clientPolicy).
	ClientPolicy = quota.Policy{Name: "fhir-client", Windows: []quota.Window{quota.RollingMinute(6000)}}
	// SandboxPolicy is the sandbox client's budget: 1,000 FHIR requests per rolling hour, counted
	// per client address, since its key is published and shared by everyone (metered as one
	// client, one busy user would use the sandbox up for the world).
	SandboxPolicy = quota.Policy{Name: "fhir-sandbox", Windows: []quota.Window{quota.RollingHour(1000)}}
	// TokenPolicy is the budget of POST /fhir/token requests, valid or not, per client address:
	// 60 per rolling minute. A backend client needs one token per 300 s; the limit stops one
	// address from making the server verify signatures and write replay guards without end.
	TokenPolicy = quota.Policy{Name: "fhir-token", Windows: []quota.Window{quota.RollingMinute(60)}}
)

// limits meters FHIR requests and token requests.
type limits struct {
	limiter         *quota.Limiter
	ips             clientip.Resolver
	client, sandbox quota.Policy
	token           quota.Policy
}

// MaxClientBudget is the largest per-client budget an operator may set: a million FHIR requests
// per rolling minute, far above what one server answers, so that a typo of a few digits too
// many is refused rather than taken for "unmetered".
const MaxClientBudget = 1_000_000

// DefaultBudget is what ParseBudget reads as "the default budget" (a nil Budget).
const DefaultBudget = "default"

// ParseBudget reads a client budget as an operator writes it: a decimal number of FHIR requests
// per rolling minute from 0 (unmetered) to MaxClientBudget, digits only, or DefaultBudget for
// ClientPolicy (nil).
func ParseBudget(s string) (*int64, error) {
	if s == DefaultBudget {
		return nil, nil
	}
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return nil, fmt.Errorf("a budget is a whole number of requests per minute (0 for unmetered) or %q, not %q", DefaultBudget, s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > MaxClientBudget {
		return nil, fmt.Errorf("a budget is at most %d requests per minute", MaxClientBudget)
	}
	return &n, nil
}

// checkBudget refuses a budget outside 0 to MaxClientBudget; nil (the default) is valid.
func checkBudget(b *int64) error {
	if b != nil && (*b < 0 || *b > MaxClientBudget) {
		return fmt.Errorf("%w: a budget is 0 (unmetered) to %d requests per minute, not %d", ErrInvalidSpec, MaxClientBudget, *b)
	}
	return nil
}

// FormatBudget says a client's budget in words: "6000/min (default)", "500/min" or "unmetered".
func FormatBudget(b *int64) string {
	switch {
	case b == nil:
		return strconv.FormatInt(ClientPolicy.Windows[0].Limit, 10) + "/min (default)"
	case *b == 0:
		return "unmetered"
	}
	return strconv.FormatInt(*b, 10) + "/min"
}

// clientPolicy is the FHIR budget of a client whose record sets budget: the default policy when
// it sets none, else the default's name with one rolling minute of the budget's limit, so that a
// client's counts carry over a change of its budget. metered is false for a budget of 0.
func (l *limits) clientPolicy(budget *int64) (p quota.Policy, metered bool) {
	switch {
	case budget == nil:
		return l.client, true
	case *budget == 0:
		return quota.Policy{}, false
	}
	return quota.Policy{Name: l.client.Name, Windows: []quota.Window{quota.RollingMinute(*budget)}}, true
}

// admitFHIR meters one FHIR request of grant g by the budget of its client c and writes the
// rate-limit fields. It returns false when the request has been answered: 429 when the budget is
// spent, 500 when the store failed. A request of an unmetered client (budget 0) is admitted
// without a count and without rate-limit fields: it has no limit to describe.
func (s *Service) admitFHIR(w http.ResponseWriter, r *http.Request, g Grant, c statusEntry) bool {
	p, metered, subject := c.budget, c.metered, "client:"+g.ClientID
	if g.Sandbox {
		p, metered, subject = s.limits.sandbox, true, "client:"+g.ClientID+"/ip:"+clientip.Subject(s.limits.ips.ClientIP(r))
	}
	if !metered {
		return true
	}
	d, ok := s.decide(w, r, p, subject, func() {
		writeOutcome(w, r, http.StatusInternalServerError, "exception", "the request could not be served")
	})
	if ok && !d.Allowed {
		writeOutcome(w, r, http.StatusTooManyRequests, "throttled", exhausted(w.Header(), d))
	}
	return ok && d.Allowed
}

// admitToken meters one token request by client address, as admitFHIR does FHIR requests, and
// answers a refusal as the token endpoint answers everything (RFC 6749 section 5.2): the error
// slow_down, which RFC 8628 defines for a token endpoint asked too often.
func (s *Service) admitToken(w http.ResponseWriter, r *http.Request) bool {
	subject := "ip:" + clientip.Subject(s.limits.ips.ClientIP(r))
	d, ok := s.decide(w, r, s.limits.token, subject, func() { writeOAuthError(w, errServer) })
	if ok && !d.Allowed {
		writeOAuthError(w, &oauthError{status: http.StatusTooManyRequests, code: "slow_down", description: exhausted(w.Header(), d)})
	}
	return ok && d.Allowed
}

// decide counts one request of subject under p and writes the rate-limit fields, and Retry-After
// on a refusal. ok is false when the store failed, after fail has answered.
func (s *Service) decide(w http.ResponseWriter, r *http.Request, p quota.Policy, subject string, fail func()) (d quota.Decision, ok bool) {
	d, err := s.limits.limiter.Allow(r.Context(), p, subject)
	if err != nil {
		logging.Logger(r.Context()).Error("rate limit check failed", slog.String("policy", p.Name), slog.Any("error", err))
		fail()
		return d, false
	}
	quota.SetHeaders(w.Header(), d)
	if !d.Allowed {
		quota.SetRetryAfter(w.Header(), d)
		logging.Logger(r.Context()).Info("request over its budget", slog.String("policy", p.Name), slog.String("subject", subject))
	}
	return d, true
}

// exhausted says which budget a refused request hit and when to come back, as the Retry-After
// field already written to h says.
func exhausted(h http.Header, d quota.Decision) string {
	b := d.Binding()
	return fmt.Sprintf("the budget of %d requests per %s window is used; retry after %s seconds (Retry-After)",
		b.Limit, b.Name, h.Get(quota.HeaderRetryAfter))
}
