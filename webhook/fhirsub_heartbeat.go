package webhook

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"time"

	"providerdir/store"
)

// Heartbeats enqueues the heartbeats that have fallen due: heartbeat n of an active FHIR
// subscription is due n heartbeat periods after its activation. Only the latest one due is
// sent when several are (after a pause of the worker); its event id is its number, so workers
// running this at once enqueue it once.
func Heartbeats(ctx context.Context, st store.Store, now time.Time) error {
	subs, err := fhirSubscriptions(ctx, st)
	if err != nil {
		return err
	}
	for _, s := range subs {
		c := s.FHIR
		if c == nil || c.State != FHIRActive || c.HeartbeatSeconds <= 0 || c.ActivatedAt == nil || s.Status != StatusActive {
			continue
		}
		due := int64(now.Sub(*c.ActivatedAt) / (time.Duration(c.HeartbeatSeconds) * time.Second))
		if due <= c.Heartbeats {
			continue
		}
		_, err := updateSubscription(ctx, st, s.ID, func(cur *Subscription) error {
			if cur.FHIR == nil || cur.FHIR.Heartbeats >= due {
				return store.SkipWrite
			}
			cur.FHIR.Heartbeats = due
			return nil
		})
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if _, err := enqueue(ctx, st, s.ID, "evt_heartbeat_"+strconv.FormatInt(due, 10), EventHeartbeat, []byte(`{}`), now.UTC()); err != nil {
			return err
		}
	}
	return nil
}

// fhirSubscriptions reads the FHIR subscriptions, decoding no webhook's record: a webhook's
// watch list of a thousand NPIs costs more to decode than the rest of a heartbeat pass.
func fhirSubscriptions(ctx context.Context, st store.Store) ([]Subscription, error) {
	var out []Subscription
	err := store.EachRecord(ctx, st, subscriptionKind, func(rec store.Record) error {
		if !bytes.Contains(rec.Body, []byte(`"fhir":{`)) {
			return nil
		}
		s, err := decodeSubscription(rec)
		if err == nil && s.FHIR != nil {
			out = append(out, s)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
