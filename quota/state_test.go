package quota

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

func TestEncodingRoundTrip(t *testing.T) {
	p := Policy{Name: "p", Windows: []Window{RollingMinute(5), RollingDay(9)}}
	states, _ := decode(nil, p)
	base := time.Date(2025, 6, 8, 12, 0, 0, 0, time.UTC)
	for _, off := range []time.Duration{0, 0, time.Second, 59 * time.Second, 3 * time.Minute, 3 * time.Minute} {
		for i := range states {
			states[i].add(base.Add(off), 1)
		}
	}
	got, err := decode(encode(states), p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, states) {
		t.Fatalf("round trip\n got %+v\nwant %+v", got, states)
	}
	if want := []bucket{{idx: base.Unix(), n: 2}, {idx: base.Unix() + 1, n: 1}, {idx: base.Unix() + 59, n: 1}, {idx: base.Unix() + 180, n: 2}}; !reflect.DeepEqual(states[0].buckets, want) {
		t.Fatalf("minute buckets %+v, want %+v", states[0].buckets, want)
	}

	// A policy whose window changed shape drops that window's history and keeps the others.
	changed := Policy{Name: "p", Windows: []Window{{Name: "w", Length: time.Minute, Step: 2 * time.Second, Limit: 5}, RollingDay(100)}}
	got, err = decode(encode(states), changed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0].buckets) != 0 || !reflect.DeepEqual(got[1].buckets, states[1].buckets) || got[1].w.Limit != 100 {
		t.Fatalf("after a policy change: %+v", got)
	}
}

func TestDecodeRejects(t *testing.T) {
	p := Policy{Name: "p", Windows: []Window{RollingMinute(5)}}
	tests := map[string][]byte{
		"unknown version":    {9},
		"truncated":          {1, 1},
		"trailing bytes":     append(encode([]windowState{{w: RollingMinute(5)}}), 0),
		"zero count":         {1, 1, 0x80, 0xdc, 0xfe, 0xa5, 0xde, 0x01, 0x80, 0xa8, 0xd6, 0xb9, 0x07, 1, 2, 0},
		"count beyond bytes": {1, 1, 1, 1, 200, 1},
	}
	for name, body := range tests {
		if _, err := decode(body, p); err == nil {
			t.Errorf("%s: decoded %x", name, body)
		}
	}
}

func FuzzDecode(f *testing.F) {
	p := Policy{Name: "p", Windows: []Window{RollingMinute(60), RollingDay(1000)}}
	states, _ := decode(nil, p)
	now := time.Date(2025, 6, 8, 12, 0, 0, 0, time.UTC)
	for i := range 50 {
		for j := range states {
			states[j].add(now.Add(time.Duration(i*i)*time.Second), 1)
		}
	}
	f.Add(encode(states))
	f.Add([]byte{})
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decode(body, p)
		if err != nil {
			return
		}
		// Whatever decodes is usable and stable: evaluating never panics and re-encoding gives
		// a record that decodes to the same state.
		evaluate(got, now, 1)
		again, err := decode(encode(got), p)
		if err != nil {
			t.Fatalf("re-encoded state does not decode: %v", err)
		}
		if !bytes.Equal(encode(again), encode(got)) {
			t.Fatal("encoding is not stable")
		}
	})
}

func TestBindingAndRetryAfter(t *testing.T) {
	at := time.Date(2025, 6, 8, 12, 0, 0, 0, time.UTC)
	minute := func(rem int64, reset time.Duration) State {
		return State{Window: RollingMinute(60), Remaining: rem, Used: 60 - rem, Reset: at.Add(reset)}
	}
	day := func(rem int64, reset time.Duration) State {
		return State{Window: RollingDay(1000), Remaining: rem, Used: 1000 - rem, Reset: at.Add(reset)}
	}
	tests := []struct {
		name    string
		d       Decision
		binding string
		retry   time.Duration
	}{
		{"minute has fewer left", Decision{Allowed: true, At: at, States: []State{minute(59, time.Minute), day(999, 24*time.Hour)}}, NameMinute, 0},
		{"day has fewer left", Decision{Allowed: true, At: at, States: []State{minute(59, time.Minute), day(3, time.Hour)}}, NameDay, 0},
		{"a tie goes to the longer window", Decision{Allowed: false, At: at, States: []State{minute(0, 20*time.Second), day(0, time.Hour)}}, NameDay, time.Hour},
		{"refused on the minute alone", Decision{Allowed: false, At: at, States: []State{minute(0, 20*time.Second), day(10, time.Hour)}}, NameMinute, 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Binding().Name; got != tt.binding {
				t.Errorf("binding %s, want %s", got, tt.binding)
			}
			if got := tt.d.RetryAfter(); got != tt.retry {
				t.Errorf("retry after %s, want %s", got, tt.retry)
			}
		})
	}
}

// TestModel replays random traffic and checks every decision against a direct reading of the
// semantics in the package comment: a request is admitted exactly when fewer than Limit
// admitted requests have a release time after it, and no closed interval of one window length
// ever holds more than Limit admissions.
func TestModel(t *testing.T) {
	w := Window{Name: "w", Length: 10 * time.Second, Step: time.Second, Limit: 4}
	p := Policy{Name: "model", Windows: []Window{w}}
	s := backends.Embedded(t)
	clock := handclock.New()
	l := New(s, clock.Now)
	rng := rand.New(rand.NewPCG(1, 2))
	var admitted []time.Time
	release := func(t time.Time) time.Time {
		return time.Unix(0, (floorDiv(t.UnixNano(), int64(w.Step))+1)*int64(w.Step)+int64(w.Length))
	}
	for i := range 300 {
		clock.Advance(time.Duration(rng.Int64N(int64(1500 * time.Millisecond))))
		now := clock.Now()
		counted := 0
		for _, a := range admitted {
			if release(a).After(now) {
				counted++
			}
		}
		d, err := l.Allow(context.Background(), p, "s")
		if err != nil {
			t.Fatal(err)
		}
		if want := counted < int(w.Limit); d.Allowed != want {
			t.Fatalf("request %d at %s: allowed %v, the model says %v (%d counted)", i, now, d.Allowed, want, counted)
		}
		if d.Allowed {
			admitted = append(admitted, now)
		}
	}
	for i, a := range admitted {
		in := 0
		for _, b := range admitted[i:] {
			if b.Sub(a) <= w.Length {
				in++
			}
		}
		if in > int(w.Limit) {
			t.Fatalf("%d admissions within %s of %s", in, w.Length, a)
		}
	}
	if len(admitted) < 50 || len(admitted) > 250 {
		t.Fatalf("%d of 300 admitted: the traffic does not exercise the limit", len(admitted))
	}
}
