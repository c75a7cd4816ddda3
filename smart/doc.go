// Package smart owns SMART Backend Services for the FHIR surface: the client registry (records
// of kind "smart_client"), the token endpoint POST /fhir/token that exchanges a signed client
// assertion (RFC 7523, RS384 or ES384) for an access token, the discovery document
// /fhir/.well-known/smart-configuration, the scopes (SMART v1 and v2) and the bearer check that
// puts a Grant into the request context for the FHIR handlers. It also bootstraps the sandbox
// client, whose grants see only the 200-provider sandbox subset.
//
// One JOSE library, github.com/lestrrat-go/jwx/v3, does all of it: parsing clients' JWK sets
// (inline, or from a jwks_url through its httprc-backed cache, which follows Cache-Control),
// verifying assertions, and signing and verifying the access tokens this service issues. One
// library means one set of algorithm constants, one key model and one place to follow security
// fixes; v3 is the maintained line (v2 is deprecated by its author).
//
// Access tokens are HS256 JWTs under a 256-bit secret kept in the store (record
// smart_token_key/access), created on first start by a compare-and-swap create so every replica
// shares it. Only this service ever verifies them (clients treat them as opaque), so a public key
// would buy nothing, while HMAC makes the check on every FHIR request about a hundred times
// cheaper than an ECDSA or RSA verification; a private signing key in the store would be exactly
// as exposed as the secret.
//
// A token is good only while its client is: Protect checks on every request that the client
// still exists and is enabled, from what it read of the client's record within
// ClientCheckInterval (2 s), so a client disabled or deleted loses its live tokens that fast on
// every replica. Time claims (exp, iat, nbf) get a leeway of ClockSkew (5 s), in client
// assertions and in access tokens alike, and must be JSON numbers.
//
// FHIR requests are metered in the store (package quota), with the resolver API's rate-limit fields
// on every metered response and 429 with Retry-After past the budget: each client has the
// Budget its record sets (requests per rolling minute; 0 unmetered, its responses without
// rate-limit fields), by default ClientPolicy (6,000), the shared sandbox client SandboxPolicy
// per client address (1,000 per rolling hour), and POST /fhir/token TokenPolicy per client
// address (60 per rolling minute). Public reads carry no client and are not metered.
//
// Scope narrowing (SMART v2 "?param=value") is parsed and never granted: the FHIR handlers
// authorize by resource type and interaction only, and granting the unrestricted scope would
// widen what was asked. Such a scope is dropped from the grant, like any scope the client is not
// registered for; a request left with nothing is refused with invalid_scope.
//
// The server offers no authorization endpoint: it serves backend clients only. Inferno's SMART
// v2 discovery check that expects authorization_endpoint and the authorization_code grant does
// not apply to it, and the discovery document does not advertise an endpoint that does not exist.
package smart
