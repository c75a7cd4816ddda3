package fhir

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/webhook"
)

// FHIR subscriptions (Subscriptions R5 Backport IG on R4): create, read, delete and $status of
// a client's Subscription resources, stored as webhook subscriptions of the FHIR kind and
// notified through the webhook outbox (package webhook). The notification Bundles are rendered
// here, at send time, by Notification. The surface's files:
//
//   - subscription.go: the routes, the interactions and the resource as read back;
//   - subscription_parse.go: the create body, checked and turned into a webhook.FHIRChannel;
//   - subscription_status.go: the $status Parameters;
//   - subscription_notify.go: the notification Bundles the webhook worker sends;
//   - subscription_topic.go: the topics, served as SubscriptionTopic and Basic.
//
// Package webhook keeps the stored side: fhirsub.go the records, fhirsub_delivery.go the
// handshake and the notification requests, fhirsub_heartbeat.go the heartbeats.

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

// subscriptionCapabilities are the CapabilityStatement entries of subscriptions: Subscription
// (create, read, delete, $status) advertising each topic's canonical URL, and Basic, the R4
// form of the topics.
func subscriptionCapabilities(base string) []capResource {
	sub := capResource{
		Type: "Subscription", Profile: "http://hl7.org/fhir/StructureDefinition/Subscription",
		SupportedProfile: []string{profileSubscription},
		Documentation: "Topic-based subscriptions (Subscriptions R5 Backport IG) of the client that created them, under the " +
			"scope system/Subscription.* (or .cruds). criteria is a topic's canonical URL; the backport-filter-criteria " +
			"extension on _criteria names the NPIs (Practitioner?identifier=" + fhirmap.SystemNPI + "|<NPI>, or " +
			"Organization?...); channel rest-hook to an https endpoint; payload content empty, id-only or full-resource " +
			"(full-resource needs the read scope of the topic's resource type, and a notification carries the focus " +
			"resource and what changed in its record only while the client's scopes read that type); " +
			"heartbeat period " + strconv.Itoa(MinHeartbeat) + " to " + strconv.Itoa(MaxHeartbeat) + " seconds. Notifications " +
			"carry X-Service-Signature signed with the secret returned once in the create response, and each event the " +
			"provenance delta of its focus.",
		Interaction: []capInteraction{{Code: "create"}, {Code: "read"}, {Code: "delete"}},
		Versioning:  "no-version", ConditionalRead: "not-supported", ConditionalDelete: "not-supported",
		Operation: []capOperation{{Name: "status", Definition: "http://hl7.org/fhir/uv/subscriptions-backport/OperationDefinition/backport-subscription-status",
			Documentation: "GET [base]/Subscription/[id]/$status"}},
	}
	for _, t := range topics {
		sub.Extension = append(sub.Extension, capExtension{URL: extTopicCanonical, ValueCanonical: base + "/SubscriptionTopic/" + t.id})
	}
	topicURL, _ := serverParamOf("Basic", "url")
	basic := capResource{
		Type: "Basic", Profile: "http://hl7.org/fhir/StructureDefinition/Basic",
		Documentation: "The subscription topics, as the backport IG represents SubscriptionTopic on R4 (Basic coded " +
			topicTypeName + "); also served at [base]/" + topicTypeName + ". Scope system/" + topicTypeName + ".rs.",
		Interaction: []capInteraction{{Code: "read"}, {Code: "search-type"}},
		Versioning:  "no-version", ConditionalRead: "not-supported", ConditionalDelete: "not-supported",
		SearchParam: []capSearchParam{
			{Name: "code", Definition: "http://hl7.org/fhir/SearchParameter/Basic-code", Type: "token"},
			{Name: "url", Definition: topicURL.canonical(base), Type: "uri", Documentation: "the topic's canonical URL; defined by this server"},
			{Name: "_id", Definition: "http://hl7.org/fhir/SearchParameter/Resource-id", Type: "token"},
		},
	}
	return []capResource{sub, basic}
}
