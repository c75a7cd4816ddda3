package store_test

import (
	"bytes"
	"strings"
	"testing"

	"providerdir/store"
)

func TestArena(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
	}{
		{"nothing", nil},
		{"one small body", []int{10}},
		{"empty bodies", []int{0, 0, 5, 0}},
		{"bodies filling the first block and more", []int{20000, 20000, 20000, 1}},
		{"one body larger than any block so far", []int{100, 300000, 100}},
	}
	for _, tt := range tests {
		for _, lent := range []*store.Arena{nil, new(store.Arena)} {
			var copies, want [][]byte
			for i, n := range tt.sizes {
				b := []byte(strings.Repeat(string(rune('a'+i%26)), n))
				c := lent.Copy(b)
				if c == nil || cap(c) != len(c) {
					t.Errorf("%s: copy %d is nil or has capacity %d for length %d", tt.name, i, cap(c), len(c))
				}
				clear(b) // the source may be reused at once
				copies = append(copies, c)
				want = append(want, bytes.Repeat([]byte{byte('a' + i%26)}, n))
			}
			for i := range copies {
				_ = append(copies[i], "past the end"...)
			}
			for i := range copies {
				if !bytes.Equal(copies[i], want[i]) {
					t.Errorf("%s (arena %t): copy %d is %.20q..., want %.20q...", tt.name, lent != nil, i, copies[i], want[i])
				}
			}
		}
	}
}

// TestArenaReset: after Reset the arena serves the next reads from the largest block it had, so
// a request like the last allocates nothing.
func TestArenaReset(t *testing.T) {
	a := new(store.Arena)
	body := bytes.Repeat([]byte("x"), 1000)
	for range 100 {
		a.Copy(body)
	}
	grown := a.Cap()
	if grown < 100*len(body) {
		t.Fatalf("arena holds %d bytes after copying %d", grown, 100*len(body))
	}
	a.Reset()
	if allocs := testing.AllocsPerRun(10, func() {
		a.Reset()
		for range 100 {
			a.Copy(body)
		}
	}); allocs != 0 {
		t.Errorf("copies into a reset arena allocated %.0f times a run, want none", allocs)
	}
	if a.Cap() != grown {
		t.Errorf("after Reset the arena holds %d bytes, want the %d it had grown to", a.Cap(), grown)
	}
}
