package gate

import (
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"providerdir/internal/logging"
	"providerdir/quota"
	"providerdir/rest"
	"providerdir/rest/apikey"
)

// Supply API error codes (docs/contracts/supply-api.md §7).
const (
	CodeMissingAPIKey     = "missing_api_key"
	CodeInvalidAPIKey     = "invalid_api_key"
	CodeRateLimitExceeded = "rate_limit_exceeded"
)

// SupplyRealm is the realm of the supply API's WWW-Authenticate challenges.
const SupplyRealm = "supply-api"

// HeaderWWWAuthenticate is the challenge every 401 carries.
const HeaderWWWAuthenticate = "WWW-Authenticate"

// access is how a keyed endpoint treats requests without a key.
type access int

const (
	keyRequired access = iota // 401
	keyOptional               // anonymous, metered per client address
)

// RequireSupplyKey admits requests with a valid supply API key within its quota, and puts the
// key in the request context (KeyFrom). Without an Authorization: Bearer header it answers 401
// missing_api_key; with a key that is unknown, revoked, expired or the resolver's, 401
// invalid_api_key; over quota, 429 rate_limit_exceeded with Retry-After: 60, not counted. The
// 401s carry the rate-limit fields of the caller's anonymous budget, unspent: an
// unauthenticated caller has no other.
func (g *Gate) RequireSupplyKey(next http.Handler) http.Handler { return g.supply(keyRequired, next) }

// OptionalSupplyKey is RequireSupplyKey for endpoints open to anonymous callers (GET
// /v1/npi/{npi}): without a key the caller is metered by client address (AnonymousSupplyPolicy).
// A key that is presented must be valid. Responses vary by Authorization, so that a shared
// cache never serves an anonymous response to a keyed caller or the other way round.
func (g *Gate) OptionalSupplyKey(next http.Handler) http.Handler { return g.supply(keyOptional, next) }

// PublicSupply is for endpoints open to all (GET /v1/health, /v1/openapi.json): it refuses and
// counts nothing, and writes the rate-limit fields of the caller's budget (its key's when it
// sends a valid one, else its address's anonymous one), as the contract asks of every
// response. When the store fails it serves without them: health must still say so itself.
func (g *Gate) PublicSupply(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ip := g.ips.ClientIP(r)
		caller := Caller{ClientIP: ip}
		policy, subject := AnonymousSupplyPolicy, ipSubject(ip)
		var failed error
		if token, c := bearerToken(r); c == bearerKey {
			k, err := g.keys.Authenticate(ctx, apikey.Supply, token)
			switch {
			case err == nil:
				caller.Key, caller.Authenticated = k, true
				ctx = withKeyLogger(ctx, k)
				policy, subject = PolicyFor(k.Tier), keySubject(k)
			case !errors.Is(err, apikey.ErrInvalidKey):
				failed = err
			}
		}
		if failed == nil {
			var d quota.Decision
			if d, failed = g.limiter.Peek(ctx, policy, subject); failed == nil {
				setSupplyHeaders(w.Header(), d)
			}
		}
		if failed != nil {
			logging.Logger(ctx).Warn("public endpoint served without rate-limit fields", slog.Any("error", failed))
		}
		next.ServeHTTP(w, r.WithContext(withCaller(ctx, caller)))
	})
}

func (g *Gate) supply(mode access, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ip := g.ips.ClientIP(r)
		caller := Caller{ClientIP: ip}
		if mode == keyOptional {
			w.Header().Add("Vary", "Authorization")
		}
		switch token, c := bearerToken(r); c {
		case bearerKey:
			k, err := g.keys.Authenticate(ctx, apikey.Supply, token)
			switch {
			case err == nil:
				caller.Key, caller.Authenticated = k, true
				ctx = withKeyLogger(ctx, k)
			case !errors.Is(err, apikey.ErrInvalidKey):
				g.internal(w, r, rest.V1Error, err)
				return
			default:
				logging.Logger(ctx).Info("API key refused", slog.String("reason", err.Error()))
				g.refuseSupply(w, r, ip, CodeInvalidAPIKey, "The API key is unknown, revoked or expired.")
				return
			}
		case badBearer:
			g.refuseSupply(w, r, ip, CodeInvalidAPIKey, "Send one Authorization header holding one key: Authorization: Bearer <key>.")
			return
		case otherScheme:
			// A credential sent in another scheme is refused, not ignored: a caller who meant to
			// authenticate must not be served, and metered, as anonymous.
			g.refuseSupply(w, r, ip, CodeInvalidAPIKey, "The Authorization header must use the Bearer scheme: Authorization: Bearer <key>.")
			return
		case noCredential:
			if mode == keyRequired {
				g.refuseSupply(w, r, ip, CodeMissingAPIKey, "Send an API key: Authorization: Bearer <key>.")
				return
			}
		}

		policy, subject := AnonymousSupplyPolicy, ipSubject(ip)
		if caller.Authenticated {
			policy, subject = PolicyFor(caller.Key.Tier), keySubject(caller.Key)
		}
		d, err := g.limiter.Allow(ctx, policy, subject)
		if err != nil {
			g.internal(w, r, rest.V1Error, err)
			return
		}
		setSupplyHeaders(w.Header(), d)
		if !d.Allowed {
			w.Header().Set(quota.HeaderRetryAfter, SupplyRetryAfter)
			rest.WriteV1Error(w, r, http.StatusTooManyRequests, CodeRateLimitExceeded, exhausted(d), nil)
			return
		}
		next.ServeHTTP(w, r.WithContext(withCaller(ctx, caller)))
	})
}

// refuseSupply answers 401 with the fields of the caller's anonymous budget, not spending it.
// The refusal stands when the store cannot say what the budget is; only the fields are missing.
// Its WWW-Authenticate challenge (RFC 9110 section 11.6.1, RFC 6750 section 3) names the Bearer
// scheme, with error="invalid_token" when a credential was sent and refused.
func (g *Gate) refuseSupply(w http.ResponseWriter, r *http.Request, ip netip.Addr, code, message string) {
	if d, err := g.peek(r, AnonymousSupplyPolicy, ipSubject(ip)); err == nil {
		setSupplyHeaders(w.Header(), d)
	}
	challenge := `Bearer realm="` + SupplyRealm + `"`
	if code == CodeInvalidAPIKey {
		challenge += `, error="invalid_token"`
	}
	w.Header().Set(HeaderWWWAuthenticate, challenge)
	rest.WriteV1Error(w, r, http.StatusUnauthorized, code, message, nil)
}

// credential is what a request's Authorization header presents.
type credential int

const (
	noCredential credential = iota // no Authorization header
	bearerKey                      // one Bearer credential with one token
	badBearer                      // several Authorization headers, or Bearer without exactly one token
	otherScheme                    // Basic, a bare key, or any scheme but Bearer
)

// bearerToken reads Authorization: Bearer <token> (the scheme's name in any case, RFC 9110).
func bearerToken(r *http.Request) (token string, c credential) {
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 {
		return "", noCredential
	}
	fields := strings.Fields(vals[0])
	switch {
	case len(vals) > 1:
		return "", badBearer
	case len(fields) == 0:
		return "", noCredential // an empty header holds nothing to refuse
	case !strings.EqualFold(fields[0], "Bearer"):
		return "", otherScheme
	case len(fields) != 2:
		return "", badBearer
	}
	return fields[1], bearerKey
}

// exhausted says which windows are full, for a 429's message.
func exhausted(d quota.Decision) string {
	var full []string
	for _, s := range d.States {
		if s.Remaining == 0 {
			full = append(full, describe(s.Window))
		}
	}
	return "Quota exhausted: " + strings.Join(full, " and ") + ". A 429 is not counted; X-RateLimit-Reset says when a request is next admitted."
}

func describe(w quota.Window) string {
	var per string
	switch w.Name {
	case quota.NameMinute:
		per = "rolling minute"
	case quota.NameHour:
		per = "rolling hour"
	case quota.NameDay:
		per = "rolling 24 hours"
	default:
		per = "rolling " + w.Length.String()
	}
	return formatInt(w.Limit) + " requests per " + per
}
