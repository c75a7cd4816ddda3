package smart

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"providerdir/internal/logging"
	"providerdir/internal/requestid"
)

// FHIR requests that need no token: the CapabilityStatement, the discovery document and the
// token endpoint itself, each with the method it is served by. Protect lets them through, so it
// can wrap the whole /fhir subrouter. The method matters: a GET /fhir/token must not slip past
// to a catch-all /{type} route unauthenticated.
var openPaths = map[string]string{
	"/fhir/metadata":                        http.MethodGet,
	"/fhir/.well-known/smart-configuration": http.MethodGet,
	"/fhir/token":                           http.MethodPost,
}

// openPrefix is the path of the SearchParameters the FHIR server defines itself, which the
// CapabilityStatement names as canonicals: read (GET or HEAD) needs no token either.
const openPrefix = "/fhir/SearchParameter/"

func isOpen(r *http.Request) bool {
	m, ok := openPaths[r.URL.Path]
	if !ok && strings.HasPrefix(r.URL.Path, openPrefix) && !strings.Contains(r.URL.Path[len(openPrefix):], "/") {
		m, ok = http.MethodGet, true
	}
	return ok && (r.Method == m || r.Method == http.MethodHead && m == http.MethodGet)
}

// Protect requires a valid access token on every FHIR request but the open paths, and puts the
// token's Grant into the request context. Without a token it answers 401 unless public read
// mode is on, in which case the request proceeds with Grant{Public: true}; a token that is
// present but invalid or expired, or whose client has since been disabled or deleted (as read
// within ClientCheckInterval), is a 401 in either mode (RFC 6750 section 3.1), because a client
// that sent one expects it to count. A request with a good token is then metered against its
// client's budget (the record's Budget, else ClientPolicy; SandboxPolicy for the sandbox client),
// read from the record within ClientCheckInterval, and refused with 429 once it is spent. Scope
// checks (403) are the FHIR handlers' own.
func (s *Service) Protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isOpen(r) {
			next.ServeHTTP(w, r)
			return
		}
		raw, present := bearerToken(r)
		if !present {
			if s.publicRead {
				next.ServeHTTP(w, r.WithContext(WithGrant(r.Context(), Grant{Public: true})))
				return
			}
			// RFC 6750 section 3.1: a request with no credentials gets the challenge without an
			// error code.
			unauthorized(w, r, `Bearer realm="fhir"`, "this request needs a bearer access token from "+s.tokenURL)
			return
		}
		g, c, refused, err := s.grant(r.Context(), raw)
		if err != nil {
			logging.Logger(r.Context()).Error("read the token's client", slog.Any("error", err))
			writeOutcome(w, r, http.StatusInternalServerError, "exception", "the request could not be served")
			return
		}
		if refused != nil {
			logging.Logger(r.Context()).Info("access token refused", slog.String("reason", refused.Error()))
			unauthorized(w, r, `Bearer realm="fhir", error="invalid_token", error_description="the access token is invalid or expired"`,
				"the access token is invalid or expired; get a new one from "+s.tokenURL)
			return
		}
		if !s.admitFHIR(w, r, g, c) {
			return
		}
		next.ServeHTTP(w, r.WithContext(WithGrant(r.Context(), g)))
	})
}

// grant returns the grant of access token raw and what Protect read of its client, or why the
// token is refused: it is invalid or expired, or its client is disabled or deleted. err is a
// failure to read the client. A token is verified once and its grant kept until it expires
// (grantCache); its client's status and budget are checked on every request all the same
// (clientState).
func (s *Service) grant(ctx context.Context, raw string) (g Grant, c statusEntry, refused, err error) {
	g, cached := s.grants.get(raw, s.now())
	if !cached {
		if g, refused = s.verifyAccess(raw); refused != nil {
			return Grant{}, c, refused, nil
		}
	}
	if c, err = s.clientState(ctx, g.ClientID); err != nil {
		return Grant{}, c, nil, err
	}
	if !c.active {
		s.grants.drop(raw)
		return Grant{}, c, errors.New("client " + g.ClientID + " is disabled or deleted"), nil
	}
	if !cached {
		s.grants.put(raw, g)
	}
	return g, c, nil, nil
}

// bearerToken returns the token of an "Authorization: Bearer" header. present is false when
// there is no Authorization header or it uses another scheme (no bearer credentials were sent);
// a Bearer header with an empty token is present and invalid.
func bearerToken(r *http.Request) (token string, present bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// unauthorized writes a 401 as a FHIR OperationOutcome with the Bearer challenge.
func unauthorized(w http.ResponseWriter, r *http.Request, challenge, diagnostics string) {
	w.Header().Set("WWW-Authenticate", challenge)
	writeOutcome(w, r, http.StatusUnauthorized, "login", diagnostics)
}

// writeOutcome writes a FHIR OperationOutcome with one issue, not to be cached. The outcome has
// the shape fhir.WriteOutcome writes; package fhir imports this one, so it cannot be called here.
func writeOutcome(w http.ResponseWriter, r *http.Request, status int, code, diagnostics string) {
	if id := requestid.From(r.Context()); id != "" {
		diagnostics += " (request id " + id + ")"
	}
	severity := "error"
	if status >= 500 {
		severity = "fatal"
	}
	type issue struct {
		Severity    string `json:"severity"`
		Code        string `json:"code"`
		Diagnostics string `json:"diagnostics,omitempty"`
	}
	body, _ := json.Marshal(struct {
		ResourceType string  `json:"resourceType"`
		Issue        []issue `json:"issue"`
	}{"OperationOutcome", []issue{{Severity: severity, Code: code, Diagnostics: diagnostics}}})
	h := w.Header()
	h.Set("Content-Type", "application/fhir+json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
