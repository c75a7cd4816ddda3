package fhir

import (
	"encoding/base64"
	"testing"
)

// A _cursor of any shape decodes only to a token that names a generation and a position, and
// the token a link carries decodes to itself.
func FuzzDecodePageToken(f *testing.F) {
	f.Add(pageToken{Generation: "g20250608", Cursor: "c1", Total: 42, Query: "q"}.encode())
	f.Add(pageToken{Generation: "g", Cursor: "c", Back: true}.encode())
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"g":"","c":"x"}`)))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"g":"g","c":"x","t":"many"}`)))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`[1,2]`)))
	f.Add("e30")
	f.Add("====")
	f.Fuzz(func(t *testing.T, s string) {
		tok, ok := decodePageToken(s)
		if !ok {
			if tok != (pageToken{}) {
				t.Fatalf("%q: refused but decoded to %+v", s, tok)
			}
			return
		}
		if tok.Generation == "" || tok.Cursor == "" {
			t.Fatalf("%q: accepted without a generation or position: %+v", s, tok)
		}
		again, ok := decodePageToken(tok.encode())
		if !ok || again != tok {
			t.Fatalf("%q: %+v encodes to a token that decodes to %+v (%v)", s, tok, again, ok)
		}
	})
}
