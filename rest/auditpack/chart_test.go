package auditpack

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The axis ends beyond its top value, on a round tick, with four to eight ticks from 0.
func TestAxis(t *testing.T) {
	for _, top := range []float64{0, 0.004, 0.6756, 1, 3, 9.99, 10, 12.5, 190.2873, 5000, 123456} {
		end, ticks := axis(top)
		if !(end > top) || ticks[0] != 0 || ticks[len(ticks)-1] != end || len(ticks) < 4 || len(ticks) > 8 || !slices.IsSorted(ticks) {
			t.Errorf("axis(%v) = %v, %v", top, end, ticks)
		}
	}
	if c := (Chart{}); c.TickLabel(0.30000000000000004) != "0.3" {
		t.Errorf("tick label %q", c.TickLabel(0.30000000000000004))
	}
}

func TestSegments(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []Segment
	}{
		{"", nil},
		{"plain", []Segment{{"plain", false}}},
		{"run `a b` now.", []Segment{{"run ", false}, {"a b", true}, {" now.", false}}},
		{"`x``y`", []Segment{{"x", true}, {"y", true}}},
		{"odd ` tick", []Segment{{"odd ` tick", false}}},
		{"`a` then ` b", []Segment{{"a", true}, {" then ` b", false}}},
	} {
		if got := Segments(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Segments(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzSegments: no segment is empty, no command holds a backtick, at most one unpaired backtick
// survives, and nothing but the paired backticks is lost.
func FuzzSegments(f *testing.F) {
	for _, s := range []string{"", "a`b`c", "``", "`", "x`y", "`a` `b`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) {
			return
		}
		segs := Segments(in)
		var text strings.Builder
		for _, s := range segs {
			if s.Text == "" || (s.Code && strings.Contains(s.Text, "`")) {
				t.Fatalf("Segments(%q): segment %v", in, s)
			}
			text.WriteString(s.Text)
		}
		kept := strings.Count(text.String(), "`")
		removed := strings.Count(in, "`") - kept
		if kept > 1 || removed%2 != 0 || removed < 0 || text.Len()+removed != len(in) ||
			strings.ReplaceAll(text.String(), "`", "") != strings.ReplaceAll(in, "`", "") {
			t.Fatalf("Segments(%q) = %v", in, segs)
		}
	})
}
