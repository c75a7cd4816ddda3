// Package webhook owns the event side of the directory: webhook subscriptions registered on the
// resolver API, the durable outbox of deliveries in the store, their signing, and the delivery
// worker that sends them.
//
//   - Subscriptions (subscription.go) are small store records owned by a live resolver key: a
//     URL checked against the address policy (addr.go), the events wanted, the NPIs watched,
//     and the signing secret, shown once. Service (service.go) is what the registration
//     endpoints do; package rest/webhooks serves it over HTTP, so this package knows no HTTP
//     surface and fhir can use it without depending on the JSON APIs.
//   - Events (events.go) are computed from the change sets an ingest records for every
//     collection it switches: source.refreshed from the manifests that changed,
//     provider.changed from watched NPIs' registry records, exclusion.added from new rows of the
//     exclusion list. The worker fans out after the switch, behind a durable cursor over the
//     change-set records that makes the fan-out resumable and idempotent; the ingest only
//     records its change sets.
//   - The outbox (outbox.go) keeps one record per delivery (stable event id, status, attempts,
//     next attempt time, last response) and a due-queue record per pending delivery, keyed by
//     due time, so a worker finds what is due by listing records in id order. Workers claim a
//     delivery by compare-and-swap with a lease; a crashed worker's claim is taken over when its
//     lease lapses. Everything goes through store.Store, so the embedded store and MongoDB
//     behave alike and several replicas can share one MongoDB.
//   - Deliveries (worker.go) are signed POSTs (sign.go) acknowledged by any 2xx, retried with
//     exponential backoff and jitter for 24 hours (Backoff, RetryWindow), honouring Retry-After;
//     410 disables the subscription.
//   - FHIR subscriptions (fhirsub*.go) are subscriptions of another kind that share the outbox
//     and the worker: a notification Bundle for body, a handshake and heartbeats.
//   - Owners (owners.go) say whether a subscription's owner, a resolver key or a SMART client,
//     is still active, and what a client may read; the worker asks them before each delivery
//     and follows them, disabling the subscriptions of owners that stopped and resuming them
//     when a client is back. The registries answer through small interfaces (KeyChecker,
//     ClientChecker), so this package depends on neither.
package webhook
