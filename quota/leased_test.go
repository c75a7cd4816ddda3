package quota

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

// recordCounting is a real store that counts the record reads and writes made through it.
type recordCounting struct {
	store.Store
	reads, writes atomic.Int64
}

func (c *recordCounting) GetRecord(ctx context.Context, kind, id string) (store.Record, error) {
	c.reads.Add(1)
	return c.Store.GetRecord(ctx, kind, id)
}

func (c *recordCounting) PutRecord(ctx context.Context, r store.Record) (store.Record, error) {
	c.writes.Add(1)
	return c.Store.PutRecord(ctx, r)
}

// closeAll closes the limiters, giving back what they lease, before the test looks at the
// store.
func closeAll(t *testing.T, limiters []*Limiter) {
	t.Helper()
	for _, l := range limiters {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// storedRemaining is what the store holds for subject under p at now, as a limiter that keeps
// nothing in memory sees it: the binding window's remaining slots.
func storedRemaining(t *testing.T, s store.Store, p Policy, subject string, now func() time.Time) int64 {
	t.Helper()
	d, err := New(s, now).Peek(context.Background(), p, subject)
	if err != nil {
		t.Fatal(err)
	}
	return d.Binding().Remaining
}

var minute6000 = Policy{Name: "smart", Windows: []Window{RollingMinute(6000)}}

// A lease is counted in one write and spent in memory: each request still reports its own
// remaining count, and the store counts the unspent slots until they are given back.
func TestLeasedSpendsALeaseInMemory(t *testing.T) {
	s := &recordCounting{Store: backends.Embedded(t)}
	clock := handclock.New()
	l := openLeased(t, s, clock.Now)
	ctx := context.Background()
	for i := range int64(100) {
		d, err := l.Allow(ctx, minute6000, "client")
		if err != nil || !d.Allowed || d.Binding().Remaining != 6000-i-1 {
			t.Fatalf("request %d: %+v %v", i, d, err)
		}
	}
	if got := s.writes.Load(); got != 1 {
		t.Fatalf("100 requests made %d writes, want 1 lease of %d", got, MaxLease)
	}
	if got := storedRemaining(t, s, minute6000, "client", clock.Now); got != 6000-MaxLease {
		t.Fatalf("the store holds %d remaining, want the lease of %d counted whole", got, MaxLease)
	}
	writeBehind(t, l) // the lease's bucket has not ended: nothing is given back yet
	if got := storedRemaining(t, s, minute6000, "client", clock.Now); got != 6000-MaxLease {
		t.Fatalf("after a pass within the bucket: %d remaining", got)
	}
	clock.Advance(time.Second)
	writeBehind(t, l)
	if got := storedRemaining(t, s, minute6000, "client", clock.Now); got != 6000-100 {
		t.Fatalf("after the bucket ended and a pass: %d remaining, want %d", got, 6000-100)
	}
}

// A lease admits only within the bucket it was counted in: the first request of the next
// bucket counts a new lease, giving the old one's leftovers back in the same write.
func TestLeasedStaysInItsBucket(t *testing.T) {
	s := &recordCounting{Store: backends.Embedded(t)}
	clock := handclock.New()
	clock.Advance(900 * time.Millisecond)
	l := openLeased(t, s, clock.Now)
	ctx := context.Background()
	allow := func() Decision {
		t.Helper()
		d, err := l.Allow(ctx, minute6000, "client")
		if err != nil || !d.Allowed {
			t.Fatalf("%+v %v", d, err)
		}
		return d
	}
	allow()
	clock.Advance(100*time.Millisecond - time.Nanosecond)
	allow()
	if got := s.writes.Load(); got != 1 {
		t.Fatalf("two requests in one bucket: %d writes", got)
	}
	clock.Advance(time.Nanosecond)
	if d := allow(); d.Binding().Remaining != 6000-3 {
		t.Fatalf("the next bucket's first request: %d remaining, want %d", d.Binding().Remaining, 6000-3)
	}
	if got := s.writes.Load(); got != 2 {
		t.Fatalf("a request in the next bucket: %d writes, want 2", got)
	}
	if got := storedRemaining(t, s, minute6000, "client", clock.Now); got != 6000-2-MaxLease {
		t.Fatalf("the store holds %d remaining, want %d (two spent, one new lease)", got, 6000-2-MaxLease)
	}
}

// Replicas that lease on one store admit exactly the limit between them when their requests
// keep coming: leases shrink to one slot near the limit, and a replica spends its leftovers
// before it leases again.
func TestLeasedReplicasShareTheLimit(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, replica := b.Open(t)
		clock := handclock.New()
		minute60 := Policy{Name: "m60", Windows: []Window{RollingMinute(60)}}
		limiters := []*Limiter{openLeased(t, s, clock.Now), openLeased(t, replica(), clock.Now)}
		ctx := context.Background()
		var admitted int64
		for i := range 80 {
			d, err := limiters[i%2].Allow(ctx, minute60, "client")
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed {
				admitted++
			}
			if d.Allowed != (i < 60) {
				t.Fatalf("request %d: allowed %v (%+v)", i, d.Allowed, d.States)
			}
		}
		if admitted != 60 {
			t.Fatalf("%d admitted, want 60", admitted)
		}
		closeAll(t, limiters)
		if got := storedRemaining(t, s, minute60, "client", clock.Now); got != 0 {
			t.Fatalf("after both closed: %d remaining, want 0", got)
		}
	})
}

// A replica's unspent lease counts as used for the other replica until it is given back, and
// a lease takes at most a LeaseShare-th of what is free.
func TestLeasedLeftoversCountForOthers(t *testing.T) {
	s := backends.Embedded(t)
	clock := handclock.New()
	minute160 := Policy{Name: "m160", Windows: []Window{RollingMinute(160)}}
	a, b := openLeased(t, s, clock.Now), openLeased(t, s, clock.Now)
	ctx := context.Background()
	if d, err := a.Allow(ctx, minute160, "client"); err != nil || d.Binding().Remaining != 159 {
		t.Fatalf("a: %+v %v", d, err)
	}
	// a leased 160/16 = 10 and spent 1; b sees the 9 left in a's hands as used.
	if d, err := b.Allow(ctx, minute160, "client"); err != nil || d.Binding().Remaining != 150-1 {
		t.Fatalf("b: %+v %v", d, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// b leased 150/16 = 9 of its own: the store counts a's one and b's nine.
	if got := storedRemaining(t, s, minute160, "client", clock.Now); got != 150 {
		t.Fatalf("after a gave its leftovers back: the store holds %d remaining, want 150", got)
	}
}

// A subject whose lease has ended and that went a whole pass unmetered is dropped from memory.
func TestLeasedDropsIdleSubjects(t *testing.T) {
	s := backends.Embedded(t)
	clock := handclock.New()
	l := openLeased(t, s, clock.Now)
	m := l.m.(*leasedMeter)
	if _, err := l.Allow(context.Background(), minute6000, "client"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	writeBehind(t, l) // gives the leftovers back; the subject was metered since the last pass
	if m.subjects.len() != 1 {
		t.Fatalf("%d subjects held after the first pass, want 1", m.subjects.len())
	}
	writeBehind(t, l)
	if m.subjects.len() != 0 {
		t.Fatalf("%d subjects held after an idle pass, want 0", m.subjects.len())
	}
	if got := storedRemaining(t, s, minute6000, "client", clock.Now); got != 5999 {
		t.Fatalf("%d remaining, want 5999", got)
	}
}

// Whatever the interleaving, leasing replicas never admit more than a window's limit in any
// interval of its length, and once they have closed the store counts exactly what they
// admitted: random requests from three replicas, the clock moving by random steps.
func TestLeasedNeverAdmitsPastTheLimit(t *testing.T) {
	policy := Policy{Name: "p", Windows: []Window{RollingMinute(400), {Name: "10s", Length: 10 * time.Second, Step: 500 * time.Millisecond, Limit: 150}}}
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed))
			s := backends.Embedded(t)
			clock := handclock.New()
			limiters := []*Limiter{openLeased(t, s, clock.Now), openLeased(t, s, clock.Now), openLeased(t, s, clock.Now)}
			var admitted []time.Time
			for range 3000 {
				// Bursts apart: mostly a few milliseconds, now and then most of a window, so
				// that leases are taken while much is free and meet the ends of their buckets.
				step := time.Duration(rng.IntN(20)) * time.Millisecond
				if rng.IntN(300) == 0 {
					step = time.Duration(rng.IntN(60_000)) * time.Millisecond
				}
				clock.Advance(step)
				l := limiters[rng.IntN(len(limiters))]
				if rng.IntN(200) == 0 {
					writeBehind(t, l)
				}
				d, err := l.Allow(context.Background(), policy, "client")
				if err != nil {
					t.Fatal(err)
				}
				if d.Allowed {
					admitted = append(admitted, clock.Now())
				}
			}
			for _, w := range policy.Windows {
				for i, from := range admitted {
					n := 0
					for _, at := range admitted[i:] {
						if at.Sub(from) <= w.Length {
							n++
						}
					}
					if int64(n) > w.Limit {
						t.Fatalf("window %s: %d admitted in the %s from %s", w.Name, n, w.Length, from.Format(time.StampMilli))
					}
				}
			}
			closeAll(t, limiters)
			states, _, err := readWindows(context.Background(), s, policy, policy.Name+"/client")
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range policy.Windows {
				states[i].prune(clock.Now())
				want := 0
				for _, at := range admitted {
					if states[i].release(states[i].bucketOf(at)).After(clock.Now()) {
						want++
					}
				}
				if got := states[i].used(); got != int64(want) {
					t.Fatalf("window %s: the store counts %d, %d admitted still in it", w.Name, got, want)
				}
			}
			t.Logf("%d admitted of 3000", len(admitted))
		})
	}
}
