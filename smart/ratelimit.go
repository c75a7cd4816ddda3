package smart

import (
	"fmt"
	"log/slog"
	"net/http"

	"providerdir/internal/clientip"
	"providerdir/internal/logging"
	"providerdir/rest/quota"
)

// The FHIR surface's budgets, metered by rest/quota (rolling windows shared by every replica on
// a shared store, counted in memory and written behind on a store one process owns; a refused
// request counted nowhere). Every response they meter carries the rate-limit
// fields the resolver API sends (quota.SetHeaders: X-RateLimit-Limit, X-RateLimit-Remaining,
// X-RateLimit-Reset in Unix seconds, RateLimit, RateLimit-Policy), and a refusal is a 429 with
// Retry-After. Requests admitted by public read mode carry no token and no client, and are not
// metered here.
var (
	// ClientPolicy is each registered client's budget of FHIR requests: 6,000 per rolling minute,
	// counted per client across replicas. A directory sync that pages through results at a
	// hundred requests a second stays inside it; a client that loops does not take the server.
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

// admitFHIR meters one FHIR request of grant g and writes the rate-limit fields. It returns false
// when the request has been answered: 429 when the budget is spent, 500 when the store failed.
func (s *Service) admitFHIR(w http.ResponseWriter, r *http.Request, g Grant) bool {
	p, subject := s.limits.client, "client:"+g.ClientID
	if g.Sandbox {
		p, subject = s.limits.sandbox, "client:"+g.ClientID+"/ip:"+clientip.Subject(s.limits.ips.ClientIP(r))
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
