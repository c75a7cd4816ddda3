package quota

import (
	"context"
	"testing"
	"time"

	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

// Refund takes an admitted request's units back out of every window, so that exactly they are
// admitted again; a refund whose lease was given back since comes out of the record; one whose
// bucket has left every window takes nothing; a refused decision cannot be refunded.
func TestRefund(t *testing.T) {
	eachMeter(t, func(t *testing.T, m meterKind) {
		clock := handclock.New()
		l := m.open(t, backends.Embedded(t), clock.Now)
		ctx := context.Background()
		p := Policy{Name: "p", Windows: []Window{RollingMinute(3), RollingHour(5)}}
		allow := func(n int64, want bool) Decision {
			t.Helper()
			d, err := l.AllowN(ctx, p, "k", n)
			if err != nil || d.Allowed != want {
				t.Fatalf("AllowN(%d): allowed %v, %v; want %v (%+v)", n, d.Allowed, err, want, d.States)
			}
			return d
		}
		refund := func(d Decision, minute, hour int64) {
			t.Helper()
			got, err := l.Refund(ctx, p, "k", d)
			if err != nil || !got.Allowed || got.States[0].Remaining != minute || got.States[1].Remaining != hour {
				t.Fatalf("Refund: %+v, %v; want %d left in the minute and %d in the hour", got.States, err, minute, hour)
			}
		}

		first := allow(1, true)
		batch := allow(2, true)
		refund(batch, 2, 4)
		allow(1, true)
		allow(1, true)
		allow(1, false) // the refund freed two slots, not more

		clock.Advance(time.Minute + time.Second) // the minute's requests have left it
		writeBehind(t, l)
		late := allow(1, true)
		clock.Advance(10 * time.Second) // a later bucket: a lease that held the slot has ended
		refund(late, 3, 2)

		clock.Advance(2 * time.Hour)
		refund(first, 3, 5)

		allow(3, true)
		if _, err := l.Refund(ctx, p, "k", allow(1, false)); err == nil {
			t.Error("a refused decision was refunded")
		}
	})
}
