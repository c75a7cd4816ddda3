package fhir

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"providerdir/ident"
	"providerdir/webhook"
)

// A Subscription body of any shape is refused with a message, or accepted with what the
// backport profile and this server allow: a topic it offers, valid NPIs from filters on the
// topic's focus, a payload content it sends, a heartbeat in range and headers it may send.
func FuzzParseSubscription(f *testing.F) {
	s := &Server{base: "https://dir.example/fhir"}
	topic := s.topicURL(topics[0])
	valid := `{"resourceType":"Subscription","reason":"r","criteria":"` + topic + `",` +
		`"_criteria":{"extension":[{"url":"` + extFilterCriteria + `","valueString":"Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|1234567893"}]},` +
		`"channel":{"type":"rest-hook","endpoint":"https://hooks.example/x","payload":"application/fhir+json",` +
		`"header":["Authorization: Bearer abc"],` +
		`"extension":[{"url":"` + extHeartbeatPeriod + `","valueUnsignedInt":3600}],` +
		`"_payload":{"extension":[{"url":"` + extPayloadContent + `","valueCode":"full-resource"}]}}}`
	f.Add(valid)
	for _, r := range [][2]string{
		{"1234567893", "1234567890"}, {"1234567893", "1234567893,1245319599"}, {"Practitioner?", "Organization?"},
		{"3600", "59"}, {"3600", "-1"}, {"full-resource", "everything"}, {"rest-hook", "websocket"},
		{"Authorization: Bearer abc", "X-Service-Signature: forged"}, {"Authorization: Bearer abc", "Bad Header: x\\r\\ny"},
		{"https://hooks.example/x", ""}, {topic, topic + "x"},
	} {
		f.Add(strings.Replace(valid, r[0], r[1], 1))
	}
	f.Fuzz(func(t *testing.T, body string) {
		var in subscriptionIn
		if json.Unmarshal([]byte(body), &in) != nil {
			return
		}
		npis, ch, msg := s.parseSubscription(in)
		if msg != "" {
			if !utf8.ValidString(msg) {
				t.Fatalf("%q: a message that is not UTF-8: %q", body, msg)
			}
			return
		}
		tp, ok := s.topicByURL(in.Criteria)
		if !ok || ch.Topic != in.Criteria || ch.FocusType != tp.focus {
			t.Fatalf("%q: accepted for topic %q, focus %q", body, ch.Topic, ch.FocusType)
		}
		if len(npis) == 0 || len(ch.Filters) == 0 {
			t.Fatalf("%q: accepted without filters", body)
		}
		for _, npi := range npis {
			if ident.ValidateNPI(npi) != nil {
				t.Fatalf("%q: accepted NPI %q", body, npi)
			}
		}
		for _, f := range ch.Filters {
			if !strings.HasPrefix(f, tp.focus+"?identifier=") {
				t.Fatalf("%q: accepted filter %q", body, f)
			}
		}
		if !slices.Contains(payloadContents, ch.Content) {
			t.Fatalf("%q: accepted content %q", body, ch.Content)
		}
		if ch.HeartbeatSeconds != 0 && (ch.HeartbeatSeconds < MinHeartbeat || ch.HeartbeatSeconds > MaxHeartbeat) {
			t.Fatalf("%q: accepted heartbeat %d", body, ch.HeartbeatSeconds)
		}
		if len(ch.Headers) > maxChannelHeaders {
			t.Fatalf("%q: accepted %d headers", body, len(ch.Headers))
		}
		for _, h := range ch.Headers {
			if _, _, ok := webhook.ChannelHeader(h); !ok {
				t.Fatalf("%q: accepted header %q", body, h)
			}
		}
		if in.Channel.Type != "rest-hook" || in.Channel.Endpoint == "" {
			t.Fatalf("%q: accepted channel %+v", body, in.Channel)
		}
	})
}
