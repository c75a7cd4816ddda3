package fhir

import "testing"

// TestBodies: a body always has room for what it was asked for and starts empty, whatever
// buffers, of whatever capacity, were released before.
func TestBodies(t *testing.T) {
	sizes := []int{0, 1, minPooled - 1, minPooled, minPooled + 1, 12000, 100_000, maxPooled - 1, maxPooled, maxPooled + 1}
	for round := range 3 {
		for _, n := range sizes {
			b := newBody(n)
			if len(b) != 0 || cap(b) < n {
				t.Fatalf("round %d: newBody(%d) has length %d, capacity %d", round, n, len(b), cap(b))
			}
			b = append(b, "x"...)
			release(b)
			release(make([]byte, 0, n+n/3)) // a buffer of odd capacity, as append leaves them
		}
	}
}
