package webhooks

import (
	"time"

	"providerdir/testing/webhookreceiver"
	"providerdir/webhook"
)

// signed is how the worker names and signs a delivery, as a subscriber checks it.
var signed = webhookreceiver.Scheme{EventID: webhook.HeaderEventID, Event: webhook.HeaderEvent, Signature: webhook.HeaderSignature,
	Verify: func(sig string, body []byte, secret string) bool {
		return webhook.Verify(sig, body, secret, time.Time{}, 0) == nil
	}}
