package source

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// decodeAll is the obvious whole-buffer version of textReader, against which the streaming one is
// checked.
func decodeAll(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF})
	var out []byte
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			out = utf8.AppendRune(out, rune(b[0]))
			b = b[1:]
			continue
		}
		out = append(out, b[:size]...)
		b = b[size:]
	}
	return out
}

// readSmall reads everything from r through a buffer of n bytes at a time.
func readSmall(t *testing.T, r io.Reader, n int) []byte {
	t.Helper()
	var out []byte
	p := make([]byte, n)
	for range 1 << 20 {
		k, err := r.Read(p)
		out = append(out, p[:k]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no progress")
	return nil
}

func TestTextReader(t *testing.T) {
	tests := []struct {
		name, in, want, enc string
	}{
		{"ascii", "a,b\r\n1,2\r\n", "a,b\r\n1,2\r\n", "UTF-8"},
		{"utf8", "Doña Ana,Añasco\n", "Doña Ana,Añasco\n", "UTF-8"},
		{"latin1", "Do\xf1a Ana,A\xf1asco\n", "Doña Ana,Añasco\n", "ISO-8859-1"},
		{"bom", "\xef\xbb\xbfNPI,x\n", "NPI,x\n", "UTF-8"},
		{"bom only", "\xef\xbb\xbf", "", "UTF-8"},
		{"bom latin1", "\xef\xbb\xbfM\xfcller\n", "Müller\n", "ISO-8859-1"},
		{"mixed", "Müller,M\xfcller", "Müller,Müller", "ISO-8859-1"},
		{"truncated sequence at end", "ab\xc3", "abÃ", "ISO-8859-1"},
		{"lone continuation", "\x80\xbf", "\u0080¿", "ISO-8859-1"},
		{"four byte", "x\U0001F600y", "x\U0001F600y", "UTF-8"},
		{"empty", "", "", "UTF-8"},
		{"two bytes", "ab", "ab", "UTF-8"},
	}
	for _, tt := range tests {
		for _, mode := range []string{"whole", "one byte in", "one byte out", "both"} {
			var src io.Reader = strings.NewReader(tt.in)
			if mode == "one byte in" || mode == "both" {
				src = iotest.OneByteReader(src)
			}
			tr := newTextReader(src, 0)
			n := 4096
			if mode == "one byte out" || mode == "both" {
				n = 1
			}
			got := readSmall(t, tr, n)
			if string(got) != tt.want {
				t.Errorf("%s/%s: got %q, want %q", tt.name, mode, got, tt.want)
			}
			if tr.encoding() != tt.enc {
				t.Errorf("%s/%s: encoding %s, want %s", tt.name, mode, tr.encoding(), tt.enc)
			}
			if tr.nraw != int64(len(tt.in)) {
				t.Errorf("%s/%s: counted %d raw bytes, want %d", tt.name, mode, tr.nraw, len(tt.in))
			}
		}
	}
}

func TestTextReaderLongLatin1(t *testing.T) {
	// The county file's first Latin-1 byte is a megabyte in: per-byte decoding must still catch it.
	in := strings.Repeat("abcdefghij", 200_000) + "Do\xf1a Ana\n" + strings.Repeat("x", 100_000)
	got, err := io.ReadAll(newTextReader(strings.NewReader(in), 0))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, decodeAll([]byte(in))) || !utf8.Valid(got) {
		t.Error("long input decoded wrongly")
	}
}

func TestTextReaderError(t *testing.T) {
	tr := newTextReader(iotest.TimeoutReader(strings.NewReader("abc")), 0)
	got, err := io.ReadAll(tr)
	if err != iotest.ErrTimeout {
		t.Errorf("got %q, %v; want the source error", got, err)
	}
}

func FuzzTextReader(f *testing.F) {
	f.Add([]byte("Do\xf1a Ana,\xef\xbb\xbf\r\n"), 3)
	f.Add([]byte("\xef\xbb\xbfMüller"), 1)
	f.Add([]byte("\xf0\x9f\x98"), 2)
	f.Fuzz(func(t *testing.T, in []byte, n int) {
		n = 1 + (n&0xff)%64
		got := readSmall(t, newTextReader(iotest.HalfReader(bytes.NewReader(in)), 0), n)
		if !utf8.Valid(got) {
			t.Fatalf("output not UTF-8: %q", got)
		}
		if want := decodeAll(in); !bytes.Equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}
