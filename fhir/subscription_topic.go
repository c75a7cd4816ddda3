package fhir

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
)

// Subscription topics. R4 has no SubscriptionTopic resource, so the Subscriptions R5 Backport
// IG represents a topic on R4 as a Basic resource coded SubscriptionTopic that carries the R5
// elements in cross-version extensions. The server serves its two topics at both
// [base]/SubscriptionTopic and [base]/Basic (the same resources), each with read and a search
// by url, _id and (on Basic) code.

// Backport IG identifiers.
const (
	backportIG          = "http://hl7.org/fhir/uv/subscriptions-backport/ImplementationGuide/hl7.fhir.uv.subscriptions-backport|1.1.0"
	backportSD          = "http://hl7.org/fhir/uv/subscriptions-backport/StructureDefinition/"
	extTopicCanonical   = backportSD + "capabilitystatement-subscriptiontopic-canonical"
	extFilterCriteria   = backportSD + "backport-filter-criteria"
	extPayloadContent   = backportSD + "backport-payload-content"
	extHeartbeatPeriod  = backportSD + "backport-heartbeat-period"
	profileSubscription = backportSD + "backport-subscription"
	profileStatus       = backportSD + "backport-subscription-status-r4"
	r5TopicExt          = "http://hl7.org/fhir/5.0/StructureDefinition/extension-SubscriptionTopic."
	topicTypeName       = "SubscriptionTopic"
)

// topic is one subscription topic the server offers.
type topic struct {
	id, title, description string
	// focus is the resource type its notifications carry, and the type its filter names.
	focus string
}

// topics are the offered topics: a change of what the directory holds of a Practitioner's or
// an Organization's NPI between snapshots (its registry record appeared, changed, was
// deactivated or left the file, or its enrollment, exclusion, facility quality or payments
// changed), filtered by the NPI identifier.
var topics = []topic{
	{id: "practitioner-changed", title: "Practitioner changed", focus: fhirmap.TypePractitioner,
		description: "What the directory holds of a Practitioner's NPI changed between two source snapshots: its NPI registry record appeared, changed, was deactivated or was removed, or its enrollment, exclusion, facility quality or payments changed. A deactivated or removed focus is notified as a DELETE without the resource. Filter: Practitioner?identifier=" + fhirmap.SystemNPI + "|<NPI>."},
	{id: "organization-changed", title: "Organization changed", focus: fhirmap.TypeOrganization,
		description: "What the directory holds of an Organization's NPI changed between two source snapshots: its NPI registry record appeared, changed, was deactivated or was removed, or its enrollment, exclusion, facility quality or payments changed. A removed focus, or a deactivated one no longer served, is notified as a DELETE without the resource. Filter: Organization?identifier=" + fhirmap.SystemNPI + "|<NPI>."},
}

// name is the topic's computer-friendly name: its title's words, each capitalised, run together
// ("Practitioner changed" -> "PractitionerChanged").
func (t topic) name() string {
	var b strings.Builder
	for _, w := range strings.Fields(t.title) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// topicURL is a topic's canonical URL.
func (s *Server) topicURL(t topic) string { return s.base + "/SubscriptionTopic/" + t.id }

// topicByURL finds the topic with a canonical URL.
func (s *Server) topicByURL(u string) (topic, bool) {
	i := slices.IndexFunc(topics, func(t topic) bool { return s.topicURL(t) == u })
	if i < 0 {
		return topic{}, false
	}
	return topics[i], true
}

// topicResource renders a topic as the backport IG's R4 Basic.
func (s *Server) topicResource(t topic) map[string]any {
	return map[string]any{
		"resourceType": "Basic",
		"id":           t.id,
		"code": map[string]any{"coding": []map[string]string{
			{"system": "http://hl7.org/fhir/fhir-types", "code": topicTypeName}}},
		"extension": []ext{
			{URL: r5TopicExt + "url", ValueURI: s.topicURL(t)},
			{URL: r5TopicExt + "name", ValueString: t.name()},
			{URL: r5TopicExt + "title", ValueString: t.title},
			{URL: r5TopicExt + "status", ValueCode: "active"},
			{URL: r5TopicExt + "description", ValueMarkdown: t.description},
			{URL: r5TopicExt + "resourceTrigger", Extension: []ext{
				{URL: "description", ValueMarkdown: t.description},
				{URL: "resource", ValueURI: "http://hl7.org/fhir/StructureDefinition/" + t.focus},
				{URL: "supportedInteraction", ValueCode: "create"},
				{URL: "supportedInteraction", ValueCode: "update"},
				{URL: "supportedInteraction", ValueCode: "delete"},
			}},
			{URL: r5TopicExt + "canFilterBy", Extension: []ext{
				{URL: "description", ValueMarkdown: "The NPI: " + fhirmap.SystemNPI + "|<NPI>; several NPIs comma-separated."},
				{URL: "resource", ValueURI: t.focus},
				{URL: "filterParameter", ValueString: "identifier"},
			}},
			{URL: r5TopicExt + "notificationShape", Extension: []ext{
				{URL: "resource", ValueURI: t.focus},
			}},
		},
	}
}

// topicRoutes registers the topic read and search on /SubscriptionTopic and /Basic.
func (s *Server) topicRoutes(r *mux.Router) {
	for _, typ := range []string{topicTypeName, "Basic"} {
		r.HandleFunc("/"+typ, s.topicSearch).Methods(http.MethodGet, http.MethodHead)
		r.HandleFunc("/"+typ+`/{id:[A-Za-z0-9\-\.]{1,64}}`, s.topicRead).Methods(http.MethodGet, http.MethodHead)
	}
}

// topicAccess: topics are read under the SubscriptionTopic scopes at either path.
func (s *Server) topicAccess(w http.ResponseWriter, r *http.Request, i catalog.Interaction) (string, bool) {
	ct, ok := negotiate(r, r.URL.Query().Get("_format"))
	if !ok {
		notAcceptable(w, r)
		return "", false
	}
	_, ok = s.authorize(w, r, access{typ: topicTypeName, i: i})
	return ct, ok
}

func (s *Server) topicRead(w http.ResponseWriter, r *http.Request) {
	ct, ok := s.topicAccess(w, r, catalog.Read)
	if !ok {
		return
	}
	id := mux.Vars(r)["id"]
	i := slices.IndexFunc(topics, func(t topic) bool { return t.id == id })
	if i < 0 {
		Error(w, r, http.StatusNotFound, "not_found", "no subscription topic "+id)
		return
	}
	s.writeJSON(w, r, http.StatusOK, ct, s.topicResource(topics[i]))
}

// topicSearch answers a search of the topics: url (the canonical URL), _id, and code (only
// SubscriptionTopic is a code of these Basics); several values are comma-separated.
func (s *Server) topicSearch(w http.ResponseWriter, r *http.Request) {
	ct, ok := s.topicAccess(w, r, catalog.Search)
	if !ok {
		return
	}
	q := r.URL.Query()
	var entries []bundleEntryOut
	for _, t := range topics {
		if !matchAny(q, "url", s.topicURL(t)) || !matchAny(q, "_id", t.id) || !matchAny(q, "code", topicTypeName, "http://hl7.org/fhir/fhir-types|"+topicTypeName) {
			continue
		}
		entries = append(entries, bundleEntryOut{FullURL: s.base + "/" + topicTypeName + "/" + t.id, Resource: s.topicResource(t),
			Search: &entrySearch{Mode: "match"}})
	}
	self := s.base + r.URL.Path[strings.LastIndex(r.URL.Path, "/"):]
	if r.URL.RawQuery != "" {
		self += "?" + r.URL.RawQuery
	}
	total := len(entries)
	s.writeJSON(w, r, http.StatusOK, ct, bundleOut{ResourceType: "Bundle", Type: "searchset", Total: &total,
		Link: []bundleLink{{Relation: "self", URL: self}}, Entry: entries})
}

// matchAny reports whether the parameter name is absent or one of its comma-separated values is
// one of want.
func matchAny(q map[string][]string, name string, want ...string) bool {
	vals, ok := q[name]
	if !ok {
		return true
	}
	for _, v := range vals {
		for _, one := range strings.Split(v, ",") {
			if slices.Contains(want, one) {
				return true
			}
		}
	}
	return false
}
