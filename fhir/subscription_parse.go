package fhir

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"providerdir/ident"
	"providerdir/mapping/fhirmap"
	"providerdir/webhook"
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
