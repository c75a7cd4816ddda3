package fhir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/webhook"
)

// Notification renders the body of a delivery to a FHIR subscription (webhook.Notifier): a
// Bundle of type history whose first entry is the status Parameters (handshake, heartbeat or
// event-notification) and, for an event, the focus resource after it: a reference only
// (id-only), the resource as served now (full-resource, or a reference when it is no longer
// served), or nothing (empty). A focus withheld from the client (FocusWithheld) is a reference
// only, without the provenance delta, whatever the content.
func (s *Server) Notification(ctx context.Context, sub webhook.Subscription, d webhook.Delivery, at time.Time) ([]byte, error) {
	if sub.FHIR == nil {
		return nil, errors.New("fhir: not a FHIR subscription")
	}
	typ := "event-notification"
	switch d.Event {
	case webhook.EventHandshake, webhook.EventHeartbeat:
		typ = d.Event
	case webhook.EventProviderChanged:
	default:
		return nil, fmt.Errorf("fhir: no notification for event %s", d.Event)
	}
	var events []paramOut
	var focus []bundleEntryOut
	if typ == "event-notification" {
		var pc webhook.ProviderChanged
		if err := json.Unmarshal(d.Payload, &pc); err != nil {
			return nil, fmt.Errorf("fhir: event %s: %w", d.EventID, err)
		}
		ref := sub.FHIR.FocusType + "/" + pc.NPI
		ev := paramOut{Name: "notification-event", Part: []paramOut{
			{Name: "event-number", ValueString: strconv.FormatInt(d.EventNumber, 10)},
			{Name: "timestamp", ValueInstant: d.CreatedAt.UTC().Format(time.RFC3339)},
		}}
		if sub.FHIR.Content != "empty" {
			// Empty content carries no record content, the delta's field values either; nor
			// does a notification whose focus is withheld from its client.
			if !sub.FHIR.FocusWithheld {
				ev.Extension = []ext{s.provenanceDelta(pc)}
			}
			ev.Part = append(ev.Part, paramOut{Name: "focus", ValueReference: &reference{Reference: s.base + "/" + ref}})
			entry, err := s.focusEntry(ctx, sub.FHIR, pc, ref)
			if err != nil {
				return nil, err
			}
			focus = append(focus, entry)
		}
		events = append(events, ev)
	}
	b := bundleOut{ResourceType: "Bundle", ID: statusUUID(sub.ID, d.EventID), Type: "history",
		Timestamp: at.UTC().Format(time.RFC3339),
		Entry: append([]bundleEntryOut{{
			FullURL:  "urn:uuid:" + statusUUID(sub.ID, d.EventID+"/status"),
			Resource: s.statusParameters(sub, typ, events),
			Request:  &entryRequest{Method: "GET", URL: s.subscriptionURL(sub) + "/$status"},
			Response: &entryResponse{Status: "200"},
		}}, focus...)}
	return json.Marshal(b)
}

// focusEntry is the focus entry of an event: its fullUrl, and the resource as a read serves
// it (provenance tags in meta.tag) under full-resource when the serving snapshot holds it. A
// focus the event removed, or deactivated and no longer served (a read answers 410; or withheld
// from the client), is a deletion (Backport IG): request DELETE and no resource, whatever the
// content.
func (s *Server) focusEntry(ctx context.Context, c *webhook.FHIRChannel, pc webhook.ProviderChanged, ref string) (bundleEntryOut, error) {
	e := bundleEntryOut{FullURL: s.base + "/" + ref, Request: &entryRequest{Method: "PUT", URL: ref}, Response: &entryResponse{Status: "200"}}
	deleted := func() (bundleEntryOut, error) {
		e.Request.Method, e.Response.Status = "DELETE", "204"
		return e, nil
	}
	if pc.Change == webhook.ChangeAdded {
		e.Request.Method, e.Response.Status = "POST", "201"
	}
	switch {
	case pc.Change == webhook.ChangeRemoved, pc.Change == webhook.ChangeDeactivated && c.FocusWithheld:
		return deleted()
	case c.FocusWithheld, c.Content != "full-resource" && pc.Change != webhook.ChangeDeactivated:
		return e, nil
	}
	v, err := s.serving(ctx)
	if err != nil {
		return e, err
	}
	doc, err := s.st.Get(ctx, v.gen(c.FocusType), catalog.FHIRCollection(c.FocusType), pc.NPI)
	if errors.Is(err, store.ErrNotFound) {
		if pc.Change == webhook.ChangeDeactivated {
			return deleted()
		}
		return e, nil
	}
	if err != nil || c.Content != "full-resource" {
		return e, err
	}
	stored, err := fhirmap.Open(doc.Body)
	if err != nil {
		return e, err
	}
	body, err := s.tags.served(ctx, newBody(len(stored.Resource)+servedExtra), v.gens[catalog.FHIRTags], stored)
	if err != nil {
		return e, err
	}
	e.Resource = json.RawMessage(slices.Clone(body))
	release(body)
	return e, nil
}

// provenanceDelta renders what changed in the focus's source records: the kind of change, the
// registry snapshots compared, each changed registry field with its old and new JSON value,
// each source whose part changed (its dataset id, snapshots and fields), and the new registry
// record's provenance (the 14 keys) as JSON.
func (s *Server) provenanceDelta(pc webhook.ProviderChanged) ext {
	e := ext{URL: s.base + extProvenanceDeltaPath, Extension: []ext{{URL: "change", ValueCode: pc.Change}}}
	if pc.Snapshot != nil {
		e.Extension = append(e.Extension, ext{URL: "snapshot", ValueDate: *pc.Snapshot})
	}
	if pc.PreviousSnapshot != nil {
		e.Extension = append(e.Extension, ext{URL: "previousSnapshot", ValueDate: *pc.PreviousSnapshot})
	}
	e.Extension = append(e.Extension, fieldExtensions(pc.Fields)...)
	for _, src := range pc.Sources {
		se := ext{URL: "source", Extension: []ext{{URL: "datasetId", ValueString: src.DatasetID}}}
		if src.Snapshot != nil {
			se.Extension = append(se.Extension, ext{URL: "snapshot", ValueDate: *src.Snapshot})
		}
		if src.PreviousSnapshot != nil {
			se.Extension = append(se.Extension, ext{URL: "previousSnapshot", ValueDate: *src.PreviousSnapshot})
		}
		se.Extension = append(se.Extension, fieldExtensions(src.Fields)...)
		e.Extension = append(e.Extension, se)
	}
	if len(pc.Provenance) > 0 && string(pc.Provenance) != "null" {
		e.Extension = append(e.Extension, ext{URL: "provenance", ValueString: string(pc.Provenance)})
	}
	return e
}

// fieldExtensions renders changed fields, by name: each its name and old and new JSON values.
func fieldExtensions(fields map[string]webhook.FieldChange) []ext {
	var out []ext
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		f := fields[k]
		out = append(out, ext{URL: "field", Extension: []ext{
			{URL: "name", ValueString: k}, {URL: "old", ValueString: string(f.Old)}, {URL: "new", ValueString: string(f.New)}}})
	}
	return out
}
