package store

import (
	"errors"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []Cursor{
		{ID: "a"},
		{Value: "smith", ID: "1234567893"},
		{Value: "\xff\xfe not utf-8", ID: "id\xc3"},
		{Value: "", ID: "x\x01y"},
	} {
		got, err := DecodeCursor(c.Encode())
		if err != nil || got != c {
			t.Errorf("round trip of %q: %q, %v", c, got, err)
		}
	}
}

func TestDecodeCursorRejects(t *testing.T) {
	for _, s := range []string{"", "!!!", Cursor{Value: "v"}.Encode(), "_w"} {
		if _, err := DecodeCursor(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("DecodeCursor(%q) = %v, want ErrInvalid", s, err)
		}
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(Cursor{Value: "v", ID: "i"}.Encode())
	f.Add("AA")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := DecodeCursor(s)
		if err != nil {
			return
		}
		if back, err := DecodeCursor(c.Encode()); err != nil || back != c {
			t.Fatalf("re-encoding %q: %q, %v", c, back, err)
		}
	})
}
