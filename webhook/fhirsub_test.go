package webhook

import (
	"context"
	"testing"
	"time"

	"providerdir/testing/backends"
)

func TestChannelHeader(t *testing.T) {
	tests := []struct {
		in, name, value string
		ok              bool
	}{
		{"Authorization: Bearer abc", "Authorization", "Bearer abc", true},
		{"X-Tenant:42", "X-Tenant", "42", true},
		{"no colon", "", "", false},
		{": empty name", "", "", false},
		{"Bad Name: x", "", "", false},
		{"X-A: line\r\nX-B: injected", "", "", false},
		{"X-Service-Signature: t=1,v1=00", "", "", false},
		{"x-service-event-id: evt_1", "", "", false},
		{"Content-Type: text/plain", "", "", false},
		{"Host: elsewhere", "", "", false},
	}
	for _, tt := range tests {
		name, value, ok := ChannelHeader(tt.in)
		if name != tt.name || value != tt.value || ok != tt.ok {
			t.Errorf("ChannelHeader(%q) = %q, %q, %v", tt.in, name, value, ok)
		}
	}
}

// Heartbeat n of an active FHIR subscription is enqueued once, when n periods have passed
// since its activation; a requested subscription, a webhook and a subscription without a
// period get none.
func TestHeartbeats(t *testing.T) {
	st := backends.Embedded(t)
	ctx := context.Background()
	start := time.Now().UTC().Truncate(time.Second)
	put := func(ch *FHIRChannel) Subscription {
		s := Subscription{ID: newSubscriptionID(), Owner: FHIROwner("c"), URL: "https://192.0.2.1/h", Events: []string{EventProviderChanged},
			NPIs: []string{"1234567893"}, Status: StatusActive, CreatedAt: start, Secret: NewSecret(), FHIR: ch}
		rec, err := s.record()
		if err == nil {
			_, err = st.PutRecord(ctx, rec)
		}
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	active := put(&FHIRChannel{State: FHIRActive, HeartbeatSeconds: 60, ActivatedAt: &start})
	requested := put(&FHIRChannel{State: FHIRRequested, HeartbeatSeconds: 60})
	silent := put(&FHIRChannel{State: FHIRActive, ActivatedAt: &start})
	hook := put(nil)
	steps := []struct {
		after time.Duration
		want  []string
	}{
		{59 * time.Second, nil},
		{60 * time.Second, []string{"evt_heartbeat_1"}},
		{61 * time.Second, []string{"evt_heartbeat_1"}},
		{5 * time.Minute, []string{"evt_heartbeat_1", "evt_heartbeat_5"}},
	}
	for _, step := range steps {
		for range 2 { // a repeat, as a second worker would run it, adds nothing
			if err := Heartbeats(ctx, st, start.Add(step.after)); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for _, d := range deliveriesOf(t, st, active.ID) {
			if d.Event != EventHeartbeat {
				t.Errorf("%s is a %s", d.ID, d.Event)
			}
			got = append(got, d.EventID)
		}
		if len(got) != len(step.want) || (len(got) > 0 && (got[0] != step.want[0] || got[len(got)-1] != step.want[len(step.want)-1])) {
			t.Errorf("after %s: %v, want %v", step.after, got, step.want)
		}
	}
	for _, s := range []Subscription{requested, silent, hook} {
		if ds := deliveriesOf(t, st, s.ID); len(ds) != 0 {
			t.Errorf("%+v got %d heartbeats", s.FHIR, len(ds))
		}
	}
}

// A FHIR subscription wants events only while active; webhooks as before.
func TestWantsFHIR(t *testing.T) {
	for _, tt := range []struct {
		ch   *FHIRChannel
		want bool
	}{
		{nil, true},
		{&FHIRChannel{State: FHIRRequested}, false},
		{&FHIRChannel{State: FHIRActive}, true},
		{&FHIRChannel{State: FHIRError}, false},
	} {
		s := Subscription{Status: StatusActive, Events: []string{EventProviderChanged}, FHIR: tt.ch}
		if got := s.Wants(EventProviderChanged); got != tt.want {
			t.Errorf("%+v: Wants = %v", tt.ch, got)
		}
	}
}
