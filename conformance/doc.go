// Package conformance is a black-box suite that holds a running deployment to its contracts:
// SMART Backend Services discovery and token endpoint, the FHIR R4 facade (CapabilityStatement,
// US Core and Plan-Net profiles, search, paging, includes, OperationOutcome errors), the supply
// API (/v1: paths, statuses, error codes, envelopes, rate-limit headers, provenance) and the
// resolver API's key check. It speaks HTTP only, to a base URL with the credentials it is given,
// so it runs against the demo, a staging deployment or a customer's. Each check passes, fails
// with a reason, or is skipped with a reason; a run gives a readable report and JUnit XML, and,
// where the npm fhir package is installed, has every FHIR resource it was served validated by
// it. `providerctl conformance` runs it.
package conformance
