package smart

import (
	"encoding/json"
	"net/http"
)

// Configuration is the SMART discovery document (SMART App Launch 2.x section 2.0.9) of a
// backend-services-only server.
type Configuration struct {
	TokenEndpoint                     string   `json:"token_endpoint"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	TokenEndpointAuthSigningAlgs      []string `json:"token_endpoint_auth_signing_alg_values_supported"`
	ScopesSupported                   []string `json:"scopes_supported"`
	Capabilities                      []string `json:"capabilities"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
}

// Configuration returns the discovery document. There is no authorization_endpoint and no
// authorization_code grant: the server serves backend clients only (see the package comment).
// Inferno's SMART v2 discovery test expects both and so reports this document as failing; the
// endpoint is not advertised because it does not exist (docs/FHIR.md, "SMART discovery and
// Inferno").
func (s *Service) Configuration() Configuration {
	scopes := []string{"system/*.read", "system/*.rs"}
	for _, t := range ResourceTypes {
		scopes = append(scopes, "system/"+t+".read", "system/"+t+".rs", "system/"+t+".r", "system/"+t+".s")
	}
	scopes = append(scopes, "system/"+SubscriptionType+".*", "system/"+SubscriptionType+".cruds")
	return Configuration{
		TokenEndpoint:                     s.tokenURL,
		GrantTypesSupported:               []string{GrantClientCredentials},
		TokenEndpointAuthMethodsSupported: []string{"private_key_jwt"},
		TokenEndpointAuthSigningAlgs:      []string{"RS384", "ES384"},
		ScopesSupported:                   scopes,
		Capabilities:                      []string{"client-confidential-asymmetric", "permission-v1", "permission-v2"},
		CodeChallengeMethodsSupported:     []string{"S256"},
	}
}

func (s *Service) discovery(w http.ResponseWriter, _ *http.Request) {
	body, _ := json.Marshal(s.Configuration())
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(body)
}
