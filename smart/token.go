package smart

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"providerdir/internal/logging"
)

// TokenResponse is a successful token endpoint answer (RFC 6749 section 5.1).
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
}

// token serves POST /fhir/token: the per-address budget (TokenPolicy), form checks, then scope
// syntax, then client authentication, then the grant. Every refusal is an RFC 6749 section 5.2 error; authentication failures all
// look the same to the client and carry their reason to the log only.
func (s *Service) token(w http.ResponseWriter, r *http.Request) {
	if !s.admitToken(w, r) {
		return
	}
	ctx := r.Context()
	log := logging.Logger(ctx)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err != nil {
		writeOAuthError(w, invalidRequest("the body is unreadable or larger than 64 KiB"))
		return
	}
	f, oerr := parseTokenForm(r.Header.Get("Content-Type"), body)
	if oerr != nil {
		writeOAuthError(w, oerr)
		return
	}
	requested, err := ParseScopeList(f.Scope)
	if err != nil {
		writeOAuthError(w, invalidScope(err.Error()))
		return
	}
	c, err := s.authenticate(ctx, f)
	var af *authFailure
	switch {
	case errors.As(err, &af):
		log.Warn("token request refused: invalid_client", slog.String("client_id", af.clientID), slog.String("reason", af.reason))
		writeOAuthError(w, errInvalidClient)
		return
	case err != nil:
		log.Error("token request failed", slog.Any("error", err))
		writeOAuthError(w, serverFailure(err))
		return
	}
	allowed := make([]Scope, 0, len(c.Scopes))
	for _, a := range c.Scopes {
		if sc, err := ParseScope(a); err == nil {
			allowed = append(allowed, sc)
		}
	}
	granted := narrow(requested, allowed)
	if len(granted) == 0 {
		log.Info("token request refused: invalid_scope", slog.String("client_id", c.ID), slog.String("requested", f.Scope))
		writeOAuthError(w, invalidScope("none of the requested scopes is granted to this client"))
		return
	}
	at, err := s.issue(c, granted)
	if err != nil {
		log.Error("sign access token", slog.Any("error", err))
		writeOAuthError(w, errServer)
		return
	}
	scope := strings.Join(granted, " ")
	log.Info("access token issued", slog.String("client_id", c.ID), slog.String("scope", scope), slog.Bool("sandbox", c.Sandbox))
	writeNoStore(w, http.StatusOK, TokenResponse{
		AccessToken: at,
		TokenType:   "bearer",
		ExpiresIn:   int(TokenLifetime.Seconds()),
		Scope:       scope,
	})
}
