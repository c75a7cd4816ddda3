package csvscan

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// differ reads every record of input with both readers, a buffer of bufSize for this one, and
// returns how they differ, or "". Records, errors (kind, lines and column), offsets and field
// positions must all agree.
func differ(input string, fieldsPerRecord, bufSize int, oneByte bool) string {
	var src io.Reader = strings.NewReader(input)
	if oneByte {
		src = iotest.OneByteReader(src)
	}
	ours := NewReader(src, bufSize)
	ours.FieldsPerRecord = fieldsPerRecord
	std := csv.NewReader(strings.NewReader(input))
	std.ReuseRecord = true
	std.FieldsPerRecord = fieldsPerRecord
	for n := 0; ; n++ {
		want, wantErr := std.Read()
		got, err := ours.Read()
		if msg := sameError(err, wantErr); msg != "" {
			return fmt.Sprintf("record %d: %s", n, msg)
		}
		var pe *csv.ParseError
		complete := wantErr == nil || (errors.As(wantErr, &pe) && errors.Is(pe.Err, csv.ErrFieldCount))
		if complete && !slices.Equal(got, want) {
			return fmt.Sprintf("record %d: %q, encoding/csv %q", n, got, want)
		}
		if got, want := ours.InputOffset(), std.InputOffset(); got != want {
			return fmt.Sprintf("record %d: offset %d, encoding/csv %d", n, got, want)
		}
		if wantErr == io.EOF {
			return ""
		}
		if complete {
			for i := range want {
				gl, gc := ours.FieldPos(i)
				wl, wc := std.FieldPos(i)
				if gl != wl || gc != wc {
					return fmt.Sprintf("record %d field %d: at %d:%d, encoding/csv %d:%d", n, i, gl, gc, wl, wc)
				}
			}
		}
	}
}

func sameError(got, want error) string {
	var gp, wp *csv.ParseError
	switch {
	case (got == nil) != (want == nil):
		return fmt.Sprintf("error %v, encoding/csv %v", got, want)
	case errors.As(want, &wp):
		if !errors.As(got, &gp) || *gp != *wp {
			return fmt.Sprintf("error %#v, encoding/csv %#v", got, want)
		}
	case want != nil && !errors.Is(got, want):
		return fmt.Sprintf("error %v, encoding/csv %v", got, want)
	}
	return ""
}

func TestMatchesEncodingCSV(t *testing.T) {
	inputs := map[string]string{
		"empty":                   "",
		"one field":               "a",
		"plain":                   "a,b,c\nd,e,f\n",
		"no final newline":        "a,b\nc,d",
		"crlf":                    "a,b\r\nc,d\r\n",
		"cr inside a field":       "a\rb,c\n",
		"cr before crlf":          "a\r\r\n",
		"cr at the end":           "a,b\r",
		"empty lines":             "\n\r\n\na,b\n\n\nc,d\n\n",
		"only a cr":               "\r",
		"empty fields":            ",,\n,\n",
		"quoted":                  `"a","b ""c""",""` + "\n",
		"quoted, no newline":      `"a","b"`,
		"quoted line break":       "\"a\nb\",c\nd,e\n",
		"quoted crlf":             "\"a\r\nb\",c\r\n",
		"quoted empty lines":      "\"a\n\n\nb\"\n",
		"bare quote":              "a,b\"c\nd,e\n",
		"quote after quoted":      "\"a\"b,c\nd,e\n",
		"quote then cr":           "\"a\"\rb\n",
		"open quote at the end":   "a,\"bc",
		"open quote, cr at end":   "a,\"bc\r",
		"open quote and newline":  "a,\"bc\n",
		"open quote across lines": "a,\"b\nc\r\nd",
		"field count":             "a,b\nc\nd,e,f\ng,h\n",
		"unicode":                 "Doña,Ñandú,\"Zoë\"\n",
		"nul and high bytes":      "a\x00b,\xff\xfe\n",
		"quoted then unquoted":    "\"a\",b,\"c\"\n",
		"comma in quotes":         "\"a,b\",\"c\nd,e\"\n",
		"line break then quote":   "\"a\n\"\n",
	}
	for name, in := range inputs {
		for _, fields := range []int{0, -1, 2} {
			for _, bufSize := range []int{1, 7, 4096} {
				for _, oneByte := range []bool{false, true} {
					if msg := differ(in, fields, bufSize, oneByte); msg != "" {
						t.Errorf("%s (fields %d, buffer %d, one byte %t) %q: %s", name, fields, bufSize, oneByte, in, msg)
					}
				}
			}
		}
	}
}

func FuzzMatchesEncodingCSV(f *testing.F) {
	f.Add("a,b\n\"c\"\"d\",e\r\n\n\"f\ng\",h", 0, 16)
	f.Add("x\"y,z\n\"a\"b\n\"open", 2, 3)
	f.Add("\"\"\"\",\"\r\n\",\r\r\n,\n", -1, 1)
	f.Fuzz(func(t *testing.T, in string, fields, bufSize int) {
		fields = fields%4 - 1
		bufSize = 1 + abs(bufSize)%64
		if msg := differ(in, fields, bufSize, false); msg != "" {
			t.Fatalf("fields %d, buffer %d, %q: %s", fields, bufSize, in, msg)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestSourceError passes an error of the source through once its data is read.
func TestSourceError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := NewReader(io.MultiReader(strings.NewReader("a,b\n"), iotest.ErrReader(boom)), 16)
	if rec, err := r.Read(); err != nil || !slices.Equal(rec, []string{"a", "b"}) {
		t.Fatalf("first record %q, %v", rec, err)
	}
	if _, err := r.Read(); !errors.Is(err, boom) {
		t.Fatalf("then %v, want the source's error", err)
	}
}

// BenchmarkRead compares the reader with encoding/csv on rows shaped like NPPES: 330 quoted
// fields, most of them empty.
func BenchmarkRead(b *testing.B) {
	var row strings.Builder
	for i := range 330 {
		if i > 0 {
			row.WriteByte(',')
		}
		switch {
		case i < 40:
			fmt.Fprintf(&row, `"value %d"`, i)
		default:
			row.WriteString(`""`)
		}
	}
	row.WriteString("\r\n")
	data := []byte(strings.Repeat(row.String(), 2000))
	readers := map[string]func(io.Reader) func() ([]string, error){
		"csvscan": func(r io.Reader) func() ([]string, error) { return NewReader(r, 64<<10).Read },
		"encoding-csv": func(r io.Reader) func() ([]string, error) {
			c := csv.NewReader(r)
			c.ReuseRecord = true
			return c.Read
		},
	}
	for name, open := range readers {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				read := open(bytes.NewReader(data))
				for {
					if _, err := read(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
