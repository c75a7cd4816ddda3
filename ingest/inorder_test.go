package ingest

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// inOrder hands results over in order whatever order the work finishes in, and stops at the
// first error, of the work or of the consumer.
func TestInOrder(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name               string
		n                  int
		failWork, failCons int // index that fails, -1 for none
		want               []int
		err                error
	}{
		{"none", 0, -1, -1, nil, nil},
		{"all in order", 20, -1, -1, []int{0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225, 256, 289, 324, 361}, nil},
		{"work fails", 20, 5, -1, []int{0, 1, 4, 9, 16}, boom},
		{"consumer fails", 20, -1, 3, []int{0, 1, 4}, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			err := inOrder(context.Background(), tt.n, func(ctx context.Context, k int) (int, error) {
				time.Sleep(time.Duration((tt.n-k)%4) * time.Millisecond) // later work often finishes first
				if k == tt.failWork {
					return 0, boom
				}
				return k * k, nil
			}, func(v int) error {
				if len(got) == tt.failCons {
					return boom
				}
				got = append(got, v)
				return nil
			})
			if !errors.Is(err, tt.err) || !slices.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// inOrder runs no more calls of work at once than one per core and one more, and that many when
// each waits on something other than a core.
func TestInOrderConcurrency(t *testing.T) {
	var running, most atomic.Int64
	err := inOrder(context.Background(), 64, func(ctx context.Context, k int) (int, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		return k, nil
	}, func(int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := int64(runtime.GOMAXPROCS(0) + 1)
	if got := most.Load(); got != want {
		t.Errorf("at most %d calls ran at once, want %d", got, want)
	}
}
