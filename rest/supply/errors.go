package supply

import (
	"log/slog"
	"net/http"

	"providerdir/internal/logging"
	"providerdir/rest"
)

// Error codes of docs/contracts/supply-api.md §7 that the handlers answer with. The key and quota
// codes (missing_api_key, invalid_api_key, rate_limit_exceeded) are the gate's.
const (
	CodeInvalidNPI          = "invalid_npi"
	CodeMissingState        = "missing_state"
	CodeMissingCountyFIPS   = "missing_county_fips"
	CodeStateCountyMismatch = "state_county_mismatch"
	CodeInvalidSubspecialty = "invalid_subspecialty"
	CodeSpecialtyNotFound   = "specialty_not_found"
	CodeCountyNotFound      = "county_not_found"
	CodeProviderNotFound    = "provider_not_found"
	CodeMethodologyNotFound = "methodology_not_found"
	CodeStateNotFound       = "state_not_found"
	// CodeNPINotInRegistry is the 404 of GET /npi/{npi} for a well-formed NPI the registry does not
	// hold. docs/contracts/supply-api.md gives that endpoint a status only; the code is the
	// resolver's for the same condition (docs/contracts/resolver-api.md §4 rule 2).
	CodeNPINotInRegistry = rest.CodeNotFound
)

// fail answers a failure the client cannot fix: 503 source_unavailable with Retry-After while
// the store cannot be reached, else 500 internal_error (rest.WriteFailure). The cause goes to
// the log under the request id, never into the response.
func fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	logging.Logger(r.Context()).Error(what, slog.Any("error", err))
	w.Header().Set("Cache-Control", "no-store")
	rest.WriteFailure(w, r, rest.V1Error, err)
}
