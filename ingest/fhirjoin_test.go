package ingest

import (
	"slices"
	"testing"
)

// The join keeps each individual's links in the order their reassignments were added, whatever
// the order of the individuals, and finds none for an individual it does not hold.
func TestPECOSJoinOf(t *testing.T) {
	b := newPECOSJoinBuilder()
	added := []pecosLink{{7, 100, 0}, {3, 200, 1}, {7, 50, 2}, {9, 1, 0}, {3, 300, 0}, {7, 100, 1}}
	b.pj.links = append(b.pj.links, added...)
	pj := b.join()
	tests := []struct {
		individual uint32
		want       []pecosLink
	}{
		{3, []pecosLink{{3, 200, 1}, {3, 300, 0}}},
		{7, []pecosLink{{7, 100, 0}, {7, 50, 2}, {7, 100, 1}}},
		{9, []pecosLink{{9, 1, 0}}},
		{1, nil}, {5, nil}, {10, nil},
	}
	for _, tt := range tests {
		if got := pj.of(tt.individual); !slices.Equal(got, tt.want) {
			t.Errorf("of(%d) = %v, want %v", tt.individual, got, tt.want)
		}
	}
	if got := (&pecosJoin{}).of(7); len(got) != 0 {
		t.Errorf("an empty join: %v", got)
	}
}
