package requestid

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"3f2b8c1e-6a4d-4e2f-9b1a-0c5d7e8f9a0b", true},
		{"01J9Z7Q4X1ABCDEF", true},
		{"req:1.2_3-4", true},
		{strings.Repeat("a", MaxLen), true},
		{"", false},
		{strings.Repeat("a", MaxLen+1), false},
		{"has space", false},
		{"line\nbreak", false},
		{`quote"`, false},
		{"ünicode", false},
	}
	for _, tt := range tests {
		if got := Valid(tt.id); got != tt.want {
			t.Errorf("Valid(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id := New()
		if !uuid.MatchString(id) || !Valid(id) {
			t.Fatalf("New() = %q, not a valid v4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("New() repeated %q", id)
		}
		seen[id] = true
	}
}

func TestContext(t *testing.T) {
	if got := From(context.Background()); got != "" {
		t.Fatalf("From(empty) = %q", got)
	}
	if got := From(With(context.Background(), "abc")); got != "abc" {
		t.Fatalf("From = %q, want abc", got)
	}
}
