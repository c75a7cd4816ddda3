package quota

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

var pilot = Policy{Name: "pilot", Windows: []Window{RollingMinute(60), RollingDay(1000)}}

// meterKind is one way a limiter holds its counts; the decision tests run on each.
type meterKind struct {
	name string
	// shared: limiters of other processes may meter on the same store.
	shared bool
	// leases: slots one limiter holds unspent count as used for the others, so racing
	// limiters admit at most, not exactly, what is free.
	leases bool
	open   func(tb testing.TB, s store.Store, now func() time.Time) *Limiter
}

var meterKinds = []meterKind{
	{"stored", true, false, func(_ testing.TB, s store.Store, now func() time.Time) *Limiter { return New(s, now) }},
	{"local", false, false, openLocal},
	{"leased", true, true, openLeased},
}

// openLocal returns a local limiter on s that writes behind only when the test says
// (writeBehind) and at the end of the test, when it is closed.
func openLocal(tb testing.TB, s store.Store, now func() time.Time) *Limiter {
	return closedAtEnd(tb, NewLocal(s, now, time.Hour, nil))
}

// openLeased returns a leasing limiter on s that gives back ended leases only when the test
// says (writeBehind) and at the end of the test, when it is closed.
func openLeased(tb testing.TB, s store.Store, now func() time.Time) *Limiter {
	return closedAtEnd(tb, NewLeased(s, now, time.Hour, nil))
}

// closedAtEnd closes l when the test ends; Close's own error fails the test.
func closedAtEnd(tb testing.TB, l *Limiter) *Limiter {
	tb.Cleanup(func() {
		if err := l.Close(); err != nil {
			tb.Error(err)
		}
	})
	return l
}

func eachMeter(t *testing.T, fn func(t *testing.T, m meterKind)) {
	for _, m := range meterKinds {
		t.Run(m.name, func(t *testing.T) { fn(t, m) })
	}
}

// writeBehind writes what a local limiter has counted to its store now; a stored limiter has
// written it already.
func writeBehind(tb testing.TB, l *Limiter) {
	tb.Helper()
	var pass func(context.Context) error
	switch m := l.m.(type) {
	case *localMeter:
		pass = m.writeBehind
	case *leasedMeter:
		pass = m.giveBack
	default:
		return
	}
	if err := pass(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

// step is one request of a scenario: move the clock, ask, compare.
type step struct {
	advance   time.Duration
	repeat    int // ask this many times (0 means once), all expecting the same answer
	allowed   bool
	remaining int64 // of the binding window, after the request
}

func runSteps(t *testing.T, l *Limiter, clock *handclock.Clock, p Policy, subject string, steps []step) {
	t.Helper()
	ctx := context.Background()
	for i, s := range steps {
		clock.Advance(s.advance)
		for r := range max(1, s.repeat) {
			d, err := l.Allow(ctx, p, subject)
			if err != nil {
				t.Fatalf("step %d.%d: %v", i, r, err)
			}
			if d.Allowed != s.allowed {
				t.Fatalf("step %d.%d at %s: allowed %v, want %v (%+v)", i, r, clock.Now().Format(time.StampNano), d.Allowed, s.allowed, d.States)
			}
			if r == max(1, s.repeat)-1 && d.Binding().Remaining != s.remaining {
				t.Fatalf("step %d: remaining %d, want %d (%+v)", i, d.Binding().Remaining, s.remaining, d.States)
			}
		}
	}
}

func TestWindowBoundaries(t *testing.T) {
	minute3 := Policy{Name: "m3", Windows: []Window{{Name: NameMinute, Length: time.Minute, Step: time.Second, Limit: 3}}}
	tests := []struct {
		name   string
		policy Policy
		steps  []step
	}{
		{"the 61st request in a rolling minute is refused", pilot, []step{
			{advance: 200 * time.Millisecond, repeat: 59, allowed: true, remaining: 1},
			{advance: 30 * time.Second, allowed: true, remaining: 0}, // the 60th
			{advance: 29 * time.Second, repeat: 5, allowed: false, remaining: 0},
			// The first 59 are in the bucket [0s,1s): they count until 1s + 60s = 61s.
			{advance: 1800*time.Millisecond - time.Nanosecond, allowed: false, remaining: 0}, // 60.999999999s
			{advance: time.Nanosecond, repeat: 59, allowed: true, remaining: 0},              // 61s: 59 slots back
			{advance: 0, allowed: false, remaining: 0},
		}},
		{"a refused request is not counted", minute3, []step{
			{advance: 0, repeat: 3, allowed: true, remaining: 0},
			{advance: 10 * time.Second, repeat: 50, allowed: false, remaining: 0},
			{advance: 51 * time.Second, repeat: 3, allowed: true, remaining: 0}, // 61s: all 3 back, none spent by the refusals
		}},
		{"the window slides one bucket at a time", minute3, []step{
			{advance: 500 * time.Millisecond, allowed: true, remaining: 2},    // bucket 0, released at 61s
			{advance: 9700 * time.Millisecond, allowed: true, remaining: 1},   // 10.2s: bucket 10, released at 71s
			{advance: 10700 * time.Millisecond, allowed: true, remaining: 0},  // 20.9s: bucket 20, released at 81s
			{advance: 40099 * time.Millisecond, allowed: false, remaining: 0}, // 60.999s
			{advance: time.Millisecond, allowed: true, remaining: 0},          // 61s
			{advance: 9999 * time.Millisecond, allowed: false, remaining: 0},  // 70.999s
			{advance: time.Millisecond, allowed: true, remaining: 0},          // 71s
		}},
	}
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		eachMeter(t, func(t *testing.T, m meterKind) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					s, _ := b.Open(t)
					clock := handclock.New()
					runSteps(t, m.open(t, s, clock.Now), clock, tt.policy, "subject", tt.steps)
				})
			}
		})
	})
}

// TestDayBoundary spends a pilot key's 1,000 daily requests across 16.65 hours, one a minute
// so the minute window never binds, and checks the 1,001st and the slide of the first.
func TestDayBoundary(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		eachMeter(t, func(t *testing.T, m meterKind) {
			s, _ := b.Open(t)
			clock := handclock.New()
			dayBoundary(t, m.open(t, s, clock.Now), clock)
		})
	})
}

// dayBoundary spends the 1,000 daily requests of l as TestDayBoundary says.
func dayBoundary(t *testing.T, l *Limiter, clock *handclock.Clock) {
	ctx := context.Background()
	first := clock.Now().Add(30 * time.Second)
	clock.Set(first)
	for i := range 1000 {
		d, err := l.Allow(ctx, pilot, "key:day")
		if err != nil || !d.Allowed {
			t.Fatalf("request %d: %+v %v", i+1, d, err)
		}
		if got := d.States[1].Remaining; got != int64(999-i) {
			t.Fatalf("request %d: day remaining %d", i+1, got)
		}
		clock.Advance(time.Minute - time.Millisecond)
	}
	d, err := l.Allow(ctx, pilot, "key:day")
	if err != nil || d.Allowed {
		t.Fatalf("the 1,001st request in 24 hours: %+v %v", d, err)
	}
	// The first request sits in the minute bucket starting at first-30s; it counts until
	// that bucket's end plus 24 hours.
	release := first.Truncate(time.Minute).Add(time.Minute + 24*time.Hour)
	if b := d.Binding(); b.Name != NameDay || b.Remaining != 0 || !b.Reset.Equal(release) {
		t.Fatalf("binding %+v, want the day window empty until %s", b, release)
	}
	if got := d.RetryAfter(); got != release.Sub(clock.Now()) {
		t.Fatalf("retry after %s, want %s", got, release.Sub(clock.Now()))
	}
	clock.Set(release.Add(-time.Nanosecond))
	if d, _ := l.Allow(ctx, pilot, "key:day"); d.Allowed {
		t.Fatal("admitted a nanosecond before the first request left the window")
	}
	clock.Set(release)
	if d, _ := l.Allow(ctx, pilot, "key:day"); !d.Allowed || d.States[1].Remaining != 0 {
		t.Fatalf("at the release: %+v", d)
	}
	if d, _ := l.Allow(ctx, pilot, "key:day"); d.Allowed {
		t.Fatal("one slot came back, two were used")
	}
}

// seed writes a window record directly, as if n requests had been admitted at each time.
func seed(t *testing.T, s store.Store, p Policy, subject string, at map[time.Time]int64) {
	t.Helper()
	states, _ := decode(nil, p)
	var expires time.Time
	for when, n := range at {
		for range n {
			for i := range states {
				states[i].add(when, 1)
			}
		}
	}
	for i := range states {
		if e := states[i].expiry(); e.After(expires) {
			expires = e
		}
	}
	if _, err := s.PutRecord(context.Background(), store.Record{Kind: RecordKind, ID: p.Name + "/" + subject, Body: encode(states), ExpiresAt: expires}); err != nil {
		t.Fatal(err)
	}
}

// race runs n goroutines that each ask once, released together, and counts admissions.
func race(t *testing.T, limiters []*Limiter, p Policy, subject string, n int) int64 {
	t.Helper()
	var admitted atomic.Int64
	var wg sync.WaitGroup
	gate := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			<-gate
			d, err := limiters[i%len(limiters)].Allow(context.Background(), p, subject)
			if err != nil {
				errs <- err
				return
			}
			if d.Allowed {
				admitted.Add(1)
			}
		})
	}
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return admitted.Load()
}

func TestConcurrency(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		eachMeter(t, func(t *testing.T, m meterKind) {
			tests := []struct {
				name     string
				seeded   int64 // requests already in the day window, one per minute
				replicas int
				want     int64
			}{
				{"200 race the last daily slot", 999, 1, 1},
				{"200 race a fresh minute", 0, 1, 60},
				{"200 race the last 5 daily slots on two replicas", 995, 2, 5},
				// Limiters serialise one subject's requests within a process; many limiters on
				// one store leave only the compare-and-swap to keep the count exact.
				{"200 race a fresh minute on 8 limiters", 0, 8, 60},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.replicas > 1 && !m.shared {
						t.Skip("a local limiter is the only one on its store")
					}
					s, replica := b.Open(t)
					clock := handclock.New()
					at := map[time.Time]int64{}
					for i := range tt.seeded {
						at[clock.Now().Add(time.Duration(i)*time.Minute)] = 1
					}
					clock.Advance(time.Duration(tt.seeded) * time.Minute)
					seed(t, s, pilot, "key:race", at)
					limiters := []*Limiter{m.open(t, s, clock.Now)}
					for i := 1; i < tt.replicas; i++ {
						other := s
						if i%2 == 1 {
							other = replica()
						}
						if m.leases {
							limiters = append(limiters, m.open(t, other, clock.Now))
						} else {
							limiters = append(limiters, New(other, clock.Now))
						}
					}
					got := race(t, limiters, pilot, "key:race", 200)
					if m.leases {
						// Every slot is either admitted or given back: none is lost or counted
						// twice once the limiters have closed.
						closeAll(t, limiters)
						if got > tt.want || storedRemaining(t, s, pilot, "key:race", clock.Now) != tt.want-got {
							t.Fatalf("%d admitted of %d free, %d left in the store", got, tt.want, storedRemaining(t, s, pilot, "key:race", clock.Now))
						}
						return
					}
					if got != tt.want {
						t.Fatalf("%d admitted, want exactly %d", got, tt.want)
					}
					d, err := limiters[0].Peek(context.Background(), pilot, "key:race")
					if err != nil || d.Allowed || d.Binding().Remaining != 0 {
						t.Fatalf("after the race: %+v %v", d, err)
					}
				})
			}
		})
	})
}

func TestPeekCountsNothing(t *testing.T) {
	eachMeter(t, func(t *testing.T, m meterKind) {
		s := backends.Embedded(t)
		clock := handclock.New()
		peekCountsNothing(t, s, m.open(t, s, clock.Now), clock)
	})
}

// peekCountsNothing peeks and allows with l on s as TestPeekCountsNothing says.
func peekCountsNothing(t *testing.T, s store.Store, l *Limiter, clock *handclock.Clock) {
	ctx := context.Background()
	p := Policy{Name: "p", Windows: []Window{RollingHour(2)}}
	for range 5 {
		d, err := l.Peek(ctx, p, "a")
		if err != nil || !d.Allowed || d.States[0].Remaining != 2 || !d.States[0].Reset.Equal(clock.Now().Add(time.Hour)) {
			t.Fatalf("peek of an idle subject: %+v %v", d, err)
		}
	}
	writeBehind(t, l)
	if _, err := s.GetRecord(ctx, RecordKind, "p/a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("peek wrote a record: %v", err)
	}
	for range 2 {
		if d, _ := l.Allow(ctx, p, "a"); !d.Allowed {
			t.Fatal("refused within the limit")
		}
	}
	if d, _ := l.Peek(ctx, p, "a"); d.Allowed || d.States[0].Remaining != 0 {
		t.Fatalf("peek of a full window: %+v", d)
	}
	if d, _ := l.Allow(ctx, p, "b"); !d.Allowed {
		t.Fatal("subjects share a window")
	}
	q := Policy{Name: "q", Windows: p.Windows}
	if d, _ := l.Allow(ctx, q, "a"); !d.Allowed {
		t.Fatal("policies share a window")
	}
}

// TestRecordExpires checks that the record carries the expiry of its newest bucket, so idle
// subjects are reclaimed.
func TestRecordExpires(t *testing.T) {
	eachMeter(t, func(t *testing.T, m meterKind) {
		s := backends.Embedded(t)
		clock := handclock.New()
		l := m.open(t, s, clock.Now)
		if _, err := l.Allow(context.Background(), pilot, "x"); err != nil {
			t.Fatal(err)
		}
		clock.Advance(90 * time.Second)
		if _, err := l.Allow(context.Background(), pilot, "x"); err != nil {
			t.Fatal(err)
		}
		writeBehind(t, l)
		rec, err := s.GetRecord(context.Background(), RecordKind, "pilot/x")
		if err != nil {
			t.Fatal(err)
		}
		want := clock.Now().Truncate(time.Minute).Add(time.Minute + 24*time.Hour)
		if !rec.ExpiresAt.Equal(want) {
			t.Fatalf("expires %s, want %s", rec.ExpiresAt, want)
		}
	})
}

func TestInvalidPolicy(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
	}{
		{"no name", Policy{Windows: []Window{RollingHour(1)}}},
		{"bad name", Policy{Name: "a/b", Windows: []Window{RollingHour(1)}}},
		{"no window", Policy{Name: "p"}},
		{"unnamed window", Policy{Name: "p", Windows: []Window{{Length: time.Hour, Step: time.Minute, Limit: 1}}}},
		{"step not dividing", Policy{Name: "p", Windows: []Window{{Name: "w", Length: time.Hour, Step: 7 * time.Minute, Limit: 1}}}},
		{"zero step", Policy{Name: "p", Windows: []Window{{Name: "w", Length: time.Hour, Limit: 1}}}},
		{"too fine", Policy{Name: "p", Windows: []Window{{Name: "w", Length: time.Hour, Step: time.Millisecond, Limit: 1}}}},
		{"negative limit", Policy{Name: "p", Windows: []Window{{Name: "w", Length: time.Hour, Step: time.Minute, Limit: -1}}}},
	}
	eachMeter(t, func(t *testing.T, m meterKind) {
		l := m.open(t, backends.Embedded(t), nil)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if _, err := l.Allow(context.Background(), tt.p, "s"); err == nil {
					t.Fatal("Allow accepted an invalid policy")
				}
				if _, err := l.Peek(context.Background(), tt.p, "s"); err == nil {
					t.Fatal("Peek accepted an invalid policy")
				}
			})
		}
	})
}

// BenchmarkAllow is a subject's first request, one admission and one refusal, with each meter
// on each backend: on the store, a read and an unsynced write each, the refusal a read; in
// memory, the first a read of the store, the others a look-up and a few additions; leased, a
// read and a write per lease, the other admissions a look-up, the refusal a read. The passes
// off the request path (write-behind, giving leases back) are not in the figures. Without
// MONGODB_URI the mongo runs skip.
func BenchmarkAllow(b *testing.B) {
	for _, be := range backends.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			for _, m := range meterKinds {
				if !m.shared && be.Name != "embedded" {
					continue // a local limiter is for the embedded store, which one process owns
				}
				b.Run(m.name, func(b *testing.B) { benchmarkAllow(b, be, m) })
			}
		})
	}
}

func benchmarkAllow(b *testing.B, be backends.Backend, m meterKind) {
	open := func(b *testing.B) store.Store {
		s, _ := be.Open(b)
		return s
	}
	// A subject's first request in its windows: a record that is not there, read and created.
	b.Run("new subject", func(b *testing.B) {
		l := m.open(b, open(b), nil)
		p := Policy{Name: "bench", Windows: []Window{RollingHour(1000)}}
		i := 0
		for b.Loop() {
			i++
			if d, err := l.Allow(context.Background(), p, "ip:"+strconv.Itoa(i)); err != nil || !d.Allowed {
				b.Fatalf("%+v %v", d, err)
			}
		}
	})
	for _, admit := range []bool{true, false} {
		name := map[bool]string{true: "admitted", false: "refused"}[admit]
		b.Run(name, func(b *testing.B) {
			clock := handclock.New()
			l := m.open(b, open(b), clock.Now)
			// A SMART client's budget, read at 2,000 a second.
			p := Policy{Name: "bench", Windows: []Window{RollingMinute(1 << 40)}}
			if !admit { // one slot, taken before the loop, and the clock stands still
				p.Windows[0].Limit = 1
				if _, err := l.Allow(context.Background(), p, "key:bench"); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if admit {
					clock.Advance(500 * time.Microsecond)
				}
				d, err := l.Allow(context.Background(), p, "key:bench")
				if err != nil || d.Allowed != admit {
					b.Fatalf("%+v %v", d, err)
				}
			}
		})
	}
}

// AllowN admits a cost only when every window has that many free slots, counts it whole, and
// counts nothing when it refuses; Retry-After is when the cost fits, not when one slot frees.
func TestAllowN(t *testing.T) {
	eachMeter(t, func(t *testing.T, m meterKind) {
		clock := handclock.New()
		allowN(t, m.open(t, backends.Embedded(t), clock.Now), clock)
	})
}

// allowN decides costs with l as TestAllowN says.
func allowN(t *testing.T, l *Limiter, clock *handclock.Clock) {
	ctx := context.Background()
	p := Policy{Name: "npis", Windows: []Window{{Name: NameMinute, Length: time.Minute, Step: time.Second, Limit: 10}}}
	steps := []struct {
		advance   time.Duration
		n         int64
		allowed   bool
		remaining int64
		retry     time.Duration
	}{
		{0, 4, true, 6, 0},
		{10 * time.Second, 5, true, 1, 0},
		{0, 2, false, 1, 51 * time.Second}, // needs the first 4 gone: bucket [0s,1s) leaves at 61s
		{0, 1, true, 0, 0},                 // the refusal counted nothing
		{51 * time.Second, 4, true, 0, 0},  // 61s: the first 4 are back
	}
	for i, st := range steps {
		clock.Advance(st.advance)
		d, err := l.AllowN(ctx, p, "k", st.n)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if d.Allowed != st.allowed || d.States[0].Remaining != st.remaining || d.RetryAfter() != st.retry {
			t.Fatalf("step %d: allowed %v remaining %d retry %s, want %v %d %s", i, d.Allowed, d.States[0].Remaining, d.RetryAfter(), st.allowed, st.remaining, st.retry)
		}
	}
	for _, n := range []int64{0, -1, 11} {
		if _, err := l.AllowN(ctx, p, "k", n); err == nil {
			t.Errorf("a cost of %d was decided", n)
		}
	}
}
