package resolver

import (
	"net/http"

	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
)

// MeteredByClientAddress is SandboxLimits.MeteredBy of the sandbox key: one key shared by
// everyone, its budget counted per client address (gate.SandboxPolicy).
const MeteredByClientAddress = "client_address"

// Sandbox is the body of GET /sandbox (an addition): the published sandbox key, which
// docs/contracts/resolver-api.md §5 makes shared, read-only and usable without signup, so that a
// client without a key of its own (the agent tool server) can find it, with the limits the
// resolver applies to it.
type Sandbox struct {
	Key    string        `json:"key"`
	Tier   apikey.Tier   `json:"tier"`
	Limits SandboxLimits `json:"limits"`
}

// SandboxLimits are the limits of the sandbox key, read from where they are enforced.
type SandboxLimits struct {
	// RequestsPerHour is the hourly request budget (docs/contracts/resolver-api.md §8), counted per
	// MeteredBy.
	RequestsPerHour int64  `json:"requests_per_hour"`
	MeteredBy       string `json:"metered_by"`
	// BatchMaxNPIs is the most NPIs one POST /batch/npi takes; BatchNPIsPerHour the per-NPI
	// ceiling of batch resolution.
	BatchMaxNPIs     int   `json:"batch_max_npis"`
	BatchNPIsPerHour int64 `json:"batch_npis_per_hour"`
	// SearchMaxLimit caps GET /search's page size.
	SearchMaxLimit int `json:"search_max_limit"`
}

// sandboxLimits are the limits of the sandbox tier.
func sandboxLimits() SandboxLimits {
	return SandboxLimits{
		RequestsPerHour:  gate.PolicyFor(apikey.TierSandbox).Windows[0].Limit,
		MeteredBy:        MeteredByClientAddress,
		BatchMaxNPIs:     MaxBatch,
		BatchNPIsPerHour: gate.NPIPolicyFor(apikey.TierSandbox).Windows[0].Limit,
		SearchMaxLimit:   MaxSearchLimit,
	}
}

// sandbox serves GET /sandbox, public (gate.ResolverSurface): the published sandbox key, which
// the service publishes at start and publishes anew should it have been revoked. It is not to
// be cached: a rotation replaces it.
func (a *API) sandbox(w http.ResponseWriter, r *http.Request) {
	secret, _, err := a.keys.Sandbox(r.Context())
	if err != nil {
		fail(w, r, "read the published sandbox key", err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	rest.WriteJSON(w, r, http.StatusOK, Sandbox{Key: secret.Reveal(), Tier: apikey.TierSandbox, Limits: sandboxLimits()})
}
