package fhir

import (
	"fmt"
	"strconv"

	"providerdir/webhook"
)

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
