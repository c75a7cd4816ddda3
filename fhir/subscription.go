package fhir

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/webhook"
)

// FHIR subscriptions (Subscriptions R5 Backport IG on R4): create, read, delete and $status of
// a client's Subscription resources, stored as webhook subscriptions of the FHIR kind and
// notified through the webhook outbox (package webhook). The notification Bundles are rendered
// here, at send time, by Notification.

// Limits of a Subscription resource.
const (
	// maxSubscriptionBytes bounds a Subscription create body.
	maxSubscriptionBytes = 64 << 10
	// MinHeartbeat and MaxHeartbeat bound backport-heartbeat-period, in seconds.
	MinHeartbeat = 60
	MaxHeartbeat = 24 * 60 * 60
	// maxChannelHeaders bounds channel.header.
	maxChannelHeaders = 10
	// extSigningSecret carries the signing secret of a new subscription's notifications in the
	// create response, the only time it is shown: notifications carry X-Service-Signature
	// computed with it, as webhook deliveries do.
	extSigningSecretPath = "/StructureDefinition/subscription-signing-secret"
	// extProvenanceDelta carries, on a notification-event, what changed in the focus's source
	// record between the two snapshots.
	extProvenanceDeltaPath = "/StructureDefinition/provenance-delta"
)

// Payload contents of backport-payload-content.
var payloadContents = []string{"empty", "id-only", "full-resource"}

// subscriptionIn is the part of an R4 Subscription a create reads.
type subscriptionIn struct {
	ResourceType string `json:"resourceType"`
	Reason       string `json:"reason"`
	Criteria     string `json:"criteria"`
	CriteriaExt  *struct {
		Extension []extIn `json:"extension"`
	} `json:"_criteria"`
	Channel struct {
		Extension  []extIn  `json:"extension"`
		Type       string   `json:"type"`
		Endpoint   string   `json:"endpoint"`
		Payload    string   `json:"payload"`
		Header     []string `json:"header"`
		PayloadExt *struct {
			Extension []extIn `json:"extension"`
		} `json:"_payload"`
	} `json:"channel"`
}

type extIn struct {
	URL              string `json:"url"`
	ValueString      string `json:"valueString"`
	ValueCode        string `json:"valueCode"`
	ValueUnsignedInt *int   `json:"valueUnsignedInt"`
}

// subscriptionRoutes registers the Subscription interactions.
func (s *Server) subscriptionRoutes(r *mux.Router) {
	const id = `/{id:[A-Za-z0-9\-\.]{1,64}}`
	r.HandleFunc("/Subscription", s.createSubscription).Methods(http.MethodPost)
	r.HandleFunc("/Subscription"+id, s.readSubscription).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/Subscription"+id, s.deleteSubscription).Methods(http.MethodDelete)
	r.HandleFunc("/Subscription"+id+"/$status", s.subscriptionStatus).Methods(http.MethodGet, http.MethodHead)
}

// subscriptionGrant authorizes i on Subscription and returns the grant and the owner the
// request acts as. A sandbox or public grant holds no subscriptions.
func (s *Server) subscriptionGrant(w http.ResponseWriter, r *http.Request, i catalog.Interaction) (g Grant, owner, ct string, ok bool) {
	ct, ok = negotiate(r, r.URL.Query().Get("_format"))
	if !ok {
		notAcceptable(w, r)
		return nil, "", "", false
	}
	g, ok = s.authorize(w, r, access{typ: "Subscription", i: i})
	if !ok {
		return nil, "", "", false
	}
	c, hasClient := g.(interface{ Client() string })
	if !hasClient || c.Client() == "" || g.Sandboxed() {
		Error(w, r, http.StatusForbidden, "forbidden", "subscriptions belong to registered clients; the sandbox has none")
		return nil, "", "", false
	}
	return g, webhook.FHIROwner(c.Client()), ct, true
}

func (s *Server) createSubscription(w http.ResponseWriter, r *http.Request) {
	g, owner, ct, ok := s.subscriptionGrant(w, r, catalog.Create)
	if !ok {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSubscriptionBytes))
	if err != nil {
		Error(w, r, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the Subscription is larger than %d bytes", maxSubscriptionBytes))
		return
	}
	var in subscriptionIn
	if err := json.Unmarshal(body, &in); err != nil || in.ResourceType != "Subscription" {
		Error(w, r, http.StatusBadRequest, "", "the body must be a JSON Subscription resource")
		return
	}
	npis, ch, msg := s.parseSubscription(in)
	if msg != "" {
		Error(w, r, http.StatusUnprocessableEntity, "", msg)
		return
	}
	// full-resource notifications return the focus whole, as a read does: like an _include,
	// they need the read scope of its type, which a client without it is told as for any read.
	if ch.Content == "full-resource" && !permit(w, r, g, []access{{typ: "Subscription", i: catalog.Create},
		{typ: ch.FocusType, i: catalog.Read, by: "backport-payload-content full-resource"}}) {
		return
	}
	sub, err := webhook.CreateFHIR(r.Context(), s.st, *s.subPolicy, owner, in.Channel.Endpoint, npis, ch, s.now())
	var inErr *webhook.InputError
	if errors.As(err, &inErr) {
		Error(w, r, http.StatusUnprocessableEntity, "", inErr.Message)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	res := s.subscriptionResource(sub)
	channel := res["channel"].(map[string]any)
	exts, _ := channel["extension"].([]ext)
	channel["extension"] = append(exts, ext{URL: s.base + extSigningSecretPath, ValueString: sub.Secret})
	w.Header().Set("Location", s.subscriptionURL(sub))
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, r, http.StatusCreated, ct, res)
}

// parseSubscription checks a Subscription against the backport profile and what the server
// offers, and returns the NPIs its filters watch and its channel; msg says what is wrong.
func (s *Server) parseSubscription(in subscriptionIn) (npis []string, ch webhook.FHIRChannel, msg string) {
	t, ok := s.topicByURL(in.Criteria)
	if !ok {
		return nil, ch, "criteria must be the canonical URL of a topic this server offers (GET " + s.base + "/SubscriptionTopic)"
	}
	ch = webhook.FHIRChannel{Topic: s.topicURL(t), FocusType: t.focus, Reason: in.Reason, Content: "id-only"}
	if in.CriteriaExt != nil {
		for _, e := range in.CriteriaExt.Extension {
			if e.URL != extFilterCriteria {
				continue
			}
			got, msg := parseFilter(t.focus, e.ValueString)
			if msg != "" {
				return nil, ch, msg
			}
			npis = append(npis, got...)
			ch.Filters = append(ch.Filters, e.ValueString)
		}
	}
	if len(npis) == 0 {
		return nil, ch, "_criteria needs a backport-filter-criteria extension " + t.focus + "?identifier=" + fhirmap.SystemNPI + "|<NPI>"
	}
	c := in.Channel
	if c.Type != "rest-hook" {
		return nil, ch, "channel.type must be rest-hook"
	}
	if c.Endpoint == "" {
		return nil, ch, "channel.endpoint is required"
	}
	switch c.Payload {
	case "", ContentType:
	case "application/json":
		ch.Payload = c.Payload
	default:
		return nil, ch, "channel.payload must be " + ContentType + " or application/json"
	}
	if c.PayloadExt != nil {
		for _, e := range c.PayloadExt.Extension {
			if e.URL == extPayloadContent {
				if !slices.Contains(payloadContents, e.ValueCode) {
					return nil, ch, "backport-payload-content must be empty, id-only or full-resource"
				}
				ch.Content = e.ValueCode
			}
		}
	}
	for _, e := range c.Extension {
		if e.URL != extHeartbeatPeriod {
			continue
		}
		if e.ValueUnsignedInt == nil || *e.ValueUnsignedInt < MinHeartbeat || *e.ValueUnsignedInt > MaxHeartbeat {
			return nil, ch, fmt.Sprintf("backport-heartbeat-period must be a valueUnsignedInt from %d to %d seconds", MinHeartbeat, MaxHeartbeat)
		}
		ch.HeartbeatSeconds = *e.ValueUnsignedInt
	}
	if len(c.Header) > maxChannelHeaders {
		return nil, ch, fmt.Sprintf("channel.header holds at most %d headers", maxChannelHeaders)
	}
	for _, h := range c.Header {
		if _, _, ok := webhook.ChannelHeader(h); !ok {
			return nil, ch, fmt.Sprintf("channel.header %q is not a \"Name: value\" header this server may send", h)
		}
	}
	ch.Headers = c.Header
	return npis, ch, ""
}

// parseFilter reads one filter, "<focus>?identifier=<system>|<NPI>[,...]": the NPI system
// (or none) and valid NPIs only.
func parseFilter(focus, f string) ([]string, string) {
	bad := "backport-filter-criteria " + strconv.Quote(f) + " must be " + focus + "?identifier=" + fhirmap.SystemNPI + "|<NPI>"
	rest, ok := strings.CutPrefix(f, focus+"?identifier=")
	if !ok || rest == "" {
		return nil, bad
	}
	var npis []string
	for _, v := range strings.Split(rest, ",") {
		sys, npi, hasSys := strings.Cut(v, "|")
		if !hasSys {
			npi = sys
		} else if sys != fhirmap.SystemNPI {
			return nil, bad
		}
		if ident.ValidateNPI(npi) != nil {
			return nil, bad + ": " + strconv.Quote(npi) + " is not a valid NPI"
		}
		npis = append(npis, npi)
	}
	return npis, ""
}

// subscriptionResource renders a stored FHIR subscription as an R4 Subscription with the
// backport extensions.
func (s *Server) subscriptionResource(sub webhook.Subscription) map[string]any {
	c := sub.FHIR
	var filters []ext
	for _, f := range c.Filters {
		filters = append(filters, ext{URL: extFilterCriteria, ValueString: f})
	}
	channel := map[string]any{
		"type":     "rest-hook",
		"endpoint": sub.URL,
		"payload":  cmp.Or(c.Payload, ContentType),
		"_payload": map[string]any{"extension": []ext{{URL: extPayloadContent, ValueCode: c.Content}}},
	}
	if len(c.Headers) > 0 {
		channel["header"] = c.Headers
	}
	if c.HeartbeatSeconds > 0 {
		hb := c.HeartbeatSeconds
		channel["extension"] = []ext{{URL: extHeartbeatPeriod, ValueUnsignedInt: &hb}}
	}
	status, errText := subscriptionStatus(sub)
	res := map[string]any{
		"resourceType": "Subscription",
		"id":           resourceID(sub.ID),
		"meta":         metaOut{Profile: []string{profileSubscription}},
		"status":       status,
		"reason":       c.Reason,
		"criteria":     c.Topic,
		"_criteria":    map[string]any{"extension": filters},
		"channel":      channel,
	}
	if c.Reason == "" {
		res["reason"] = "Notifications of " + c.Topic
	}
	if errText != "" {
		res["error"] = errText
	}
	return res
}

// subscriptionStatus is a subscription's R4 status and the error text that goes with it: off,
// with the reason, once it is disabled (its receiver answered 410 Gone, its client was
// disabled, or the operator stopped it), else the state of its handshake and its error.
func subscriptionStatus(sub webhook.Subscription) (status, errText string) {
	if sub.Status == webhook.StatusDisabled {
		return "off", sub.DisabledReason
	}
	return sub.FHIR.State, sub.FHIR.Error
}

// resourceID is the Subscription id of a subscription: its webhook id with a hyphen for the
// underscore, which FHIR ids do not allow ("wh-" and 16 hex digits).
func resourceID(subID string) string { return strings.Replace(subID, "_", "-", 1) }

// subscriptionID is the webhook id of a Subscription id.
func subscriptionID(resourceID string) string { return strings.Replace(resourceID, "-", "_", 1) }

// subscriptionURL is a subscription's absolute URL.
func (s *Server) subscriptionURL(sub webhook.Subscription) string {
	return s.base + "/Subscription/" + resourceID(sub.ID)
}

// ownSubscription reads the request's subscription {id}, answering 404 when the client has
// none of that id.
func (s *Server) ownSubscription(w http.ResponseWriter, r *http.Request, i catalog.Interaction) (webhook.Subscription, string, bool) {
	_, owner, ct, ok := s.subscriptionGrant(w, r, i)
	if !ok {
		return webhook.Subscription{}, "", false
	}
	id := mux.Vars(r)["id"]
	sub, err := webhook.GetFHIR(r.Context(), s.st, owner, subscriptionID(id))
	if errors.Is(err, webhook.ErrNotFound) {
		Error(w, r, http.StatusNotFound, "not_found", "no Subscription "+id)
		return sub, "", false
	}
	if err != nil {
		s.fail(w, r, err)
		return sub, "", false
	}
	return sub, ct, true
}

func (s *Server) readSubscription(w http.ResponseWriter, r *http.Request) {
	if sub, ct, ok := s.ownSubscription(w, r, catalog.Read); ok {
		s.writeJSON(w, r, http.StatusOK, ct, s.subscriptionResource(sub))
	}
}

func (s *Server) deleteSubscription(w http.ResponseWriter, r *http.Request) {
	sub, _, ok := s.ownSubscription(w, r, catalog.Delete)
	if !ok {
		return
	}
	if err := webhook.DeleteFHIR(r.Context(), s.st, sub.Owner, sub.ID); err != nil && !errors.Is(err, webhook.ErrNotFound) {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// subscriptionStatus answers $status: a searchset Bundle holding the subscription's status
// Parameters (type query-status).
func (s *Server) subscriptionStatus(w http.ResponseWriter, r *http.Request) {
	sub, ct, ok := s.ownSubscription(w, r, catalog.Read)
	if !ok {
		return
	}
	total := 1
	s.writeJSON(w, r, http.StatusOK, ct, bundleOut{ResourceType: "Bundle", Type: "searchset", Total: &total,
		Link: []bundleLink{{Relation: "self", URL: s.subscriptionURL(sub) + "/$status"}},
		Entry: []bundleEntryOut{{FullURL: "urn:uuid:" + statusUUID(sub.ID, "status"), Resource: s.statusParameters(sub, "query-status", nil),
			Search: &entrySearch{Mode: "match"}}}})
}

// paramOut is one Parameters.parameter this surface writes.
type paramOut struct {
	Name           string     `json:"name"`
	Extension      []ext      `json:"extension,omitempty"`
	ValueReference *reference `json:"valueReference,omitempty"`
	ValueCanonical string     `json:"valueCanonical,omitempty"`
	ValueCode      string     `json:"valueCode,omitempty"`
	ValueString    string     `json:"valueString,omitempty"`
	ValueInstant   string     `json:"valueInstant,omitempty"`
	// ValueCodeableConcept carries the error parameter, a CodeableConcept in the IG's profile.
	ValueCodeableConcept *conceptText `json:"valueCodeableConcept,omitempty"`
	Part                 []paramOut   `json:"part,omitempty"`
}

// conceptText is a CodeableConcept of text alone.
type conceptText struct {
	Text string `json:"text"`
}

type reference struct {
	Reference string `json:"reference"`
}

// statusParameters is the backport SubscriptionStatus of sub: the counts in R4 are strings. A
// subscription with empty content is not told its topic in notifications, as the IG advises for
// a payload that is to carry nothing but the fact of a notification; $status tells it.
func (s *Server) statusParameters(sub webhook.Subscription, typ string, events []paramOut) map[string]any {
	c := sub.FHIR
	status, errText := subscriptionStatus(sub)
	ps := []paramOut{{Name: "subscription", ValueReference: &reference{Reference: s.subscriptionURL(sub)}}}
	if c.Content != "empty" || typ == "query-status" {
		ps = append(ps, paramOut{Name: "topic", ValueCanonical: c.Topic})
	}
	ps = append(ps,
		paramOut{Name: "status", ValueCode: status},
		paramOut{Name: "type", ValueCode: typ},
		paramOut{Name: "events-since-subscription-start", ValueString: strconv.FormatInt(c.Events, 10)},
	)
	ps = append(ps, events...)
	if errText != "" {
		ps = append(ps, paramOut{Name: "error", ValueCodeableConcept: &conceptText{Text: errText}})
	}
	return map[string]any{"resourceType": "Parameters", "meta": metaOut{Profile: []string{profileStatus}}, "parameter": ps}
}

// statusUUID is a stable urn:uuid value for a subscription's status entry of one notification,
// shaped as a version 4 UUID.
func statusUUID(subID, key string) string {
	h := fnv64(subID + "\x00" + key)
	g := fnv64(key + "\x00" + subID)
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(h>>32), uint16(h>>16), uint16(h)&0xfff, uint16(g>>48)&0xfff, g&0xffffffffffff)
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

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
