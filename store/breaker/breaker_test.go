package breaker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"providerdir/store"
)

// step is one event of a scenario: the clock moves by advance, then a call asks to be admitted;
// if it is, it ends with outcome. want is the state after the step.
type step struct {
	advance time.Duration
	outcome Outcome
	admit   bool // whether the call is admitted
	probe   bool // whether the admitted call is the probe
	want    State
}

func TestBreakerStates(t *testing.T) {
	const coolDown = 10 * time.Second
	fail := func(want State) step { return step{outcome: Unavailable, admit: true, want: want} }
	ok := step{outcome: Answered, admit: true, want: Closed}
	refused := func(advance time.Duration) step { return step{advance: advance, want: Open} }
	cases := []struct {
		name  string
		steps []step
	}{
		{"answers keep it closed", []step{ok, ok, ok}},
		{"opens after three failures in a row", []step{fail(Closed), fail(Closed), fail(Open), refused(0)}},
		{"an answer resets the count", []step{fail(Closed), fail(Closed), ok, fail(Closed), fail(Closed), fail(Open)}},
		{"unknown outcomes neither count nor reset", []step{
			fail(Closed), fail(Closed), {outcome: Unknown, admit: true, want: Closed}, fail(Open),
		}},
		{"refuses until the cool-down has passed", []step{
			fail(Closed), fail(Closed), fail(Open),
			refused(coolDown / 2), refused(coolDown/2 - time.Millisecond),
		}},
		{"a probe that is answered closes it", []step{
			fail(Closed), fail(Closed), fail(Open),
			{advance: coolDown, outcome: Answered, admit: true, probe: true, want: Closed},
			ok,
		}},
		{"a probe that fails opens it for another cool-down", []step{
			fail(Closed), fail(Closed), fail(Open),
			{advance: coolDown, outcome: Unavailable, admit: true, probe: true, want: Open},
			refused(coolDown - time.Millisecond),
			{advance: time.Millisecond, outcome: Answered, admit: true, probe: true, want: Closed},
		}},
		{"a probe that tells nothing lets the next call probe at once", []step{
			fail(Closed), fail(Closed), fail(Open),
			{advance: coolDown, outcome: Unknown, admit: true, probe: true, want: Open},
			{outcome: Answered, admit: true, probe: true, want: Closed},
		}},
		{"after closing it takes three failures again", []step{
			fail(Closed), fail(Closed), fail(Open),
			{advance: coolDown, outcome: Answered, admit: true, probe: true, want: Closed},
			fail(Closed), fail(Closed), fail(Open),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Unix(1_700_000_000, 0)
			b := New(3, coolDown, func() time.Time { return now })
			for i, s := range tc.steps {
				now = now.Add(s.advance)
				probe, err := b.Allow()
				if admitted := err == nil; admitted != s.admit {
					t.Fatalf("step %d: admitted %v (%v), want %v", i, admitted, err, s.admit)
				}
				if err != nil {
					if !errors.Is(err, store.ErrUnavailable) {
						t.Fatalf("step %d: refusal %v does not match store.ErrUnavailable", i, err)
					}
				} else {
					if probe != s.probe {
						t.Fatalf("step %d: probe %v, want %v", i, probe, s.probe)
					}
					b.Done(probe, s.outcome)
				}
				if got := b.State(); got != s.want {
					t.Fatalf("step %d: state %s, want %s", i, got, s.want)
				}
			}
		})
	}
}

// While a probe is out, other calls are refused, and calls admitted before the circuit opened
// that end late change nothing.
func TestBreakerConcurrentCalls(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	b := New(2, time.Second, func() time.Time { return now })
	late, err := b.Allow() // admitted while closed, ends after the circuit opened
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		p, err := b.Allow()
		if err != nil {
			t.Fatal(err)
		}
		b.Done(p, Unavailable)
	}
	b.Done(late, Answered)
	if got := b.State(); got != Open {
		t.Fatalf("a late answer changed the open circuit to %s", got)
	}
	now = now.Add(time.Second)
	probe, err := b.Allow()
	if err != nil || !probe {
		t.Fatalf("after the cool-down: probe %v, %v", probe, err)
	}
	if _, err := b.Allow(); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("a second call while probing: %v, want ErrUnavailable", err)
	}
	if got := b.State(); got != Probing {
		t.Errorf("state while probing %s", got)
	}
	b.Done(probe, Answered)
	if p, err := b.Allow(); err != nil || p {
		t.Errorf("after the probe was answered: probe %v, %v; want an ordinary admitted call", p, err)
	}
}

// Which results count against the store: only unavailability, and not when the caller gave up.
func TestOutcomes(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	unavailable := fmt.Errorf("store/mongo: get: %w: connection refused", store.ErrUnavailable)
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want Outcome
	}{
		{"answered", context.Background(), nil, Answered},
		{"not found", context.Background(), store.ErrNotFound, Answered},
		{"conflict", context.Background(), store.ErrConflict, Answered},
		{"other error", context.Background(), errors.New("disk full"), Answered},
		{"unavailable", context.Background(), unavailable, Unavailable},
		{"unavailable after the caller gave up", cancelled, unavailable, Unknown},
		{"cancelled", context.Background(), context.Canceled, Unknown},
	}
	for _, tc := range cases {
		if got := outcome(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%s: outcome %d, want %d", tc.name, got, tc.want)
		}
	}
}
