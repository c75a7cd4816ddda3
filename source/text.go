package source

import (
	"encoding/binary"
	"errors"
	"io"
	"unicode/utf8"
)

// textReader turns the bytes of a published file into UTF-8 text, streaming. It drops a leading
// UTF-8 byte-order mark, passes valid UTF-8 through untouched, and decodes every byte that is not
// part of a valid UTF-8 sequence as ISO-8859-1.
//
// Deciding per byte rather than per file is deliberate: the Census county file is Latin-1 with
// its first non-ASCII byte a megabyte in (Doña Ana County), NPPES has shipped both encodings, and
// a sniff of the first block cannot tell. A Latin-1 file whose accented letters happened to form
// valid UTF-8 pairs ("Ã©") would be misread, but such pairs do not occur in names and addresses.
//
// It also enforces the record-size bound: the table marks where each record ends, and if the
// reader is asked for more than limit bytes past that mark, the file is abandoned with
// errRecordTooLong rather than letting the CSV reader buffer an unbalanced quote to the end of a
// multi-gigabyte file.
type textReader struct {
	src    io.Reader
	raw    []byte
	r, w   int   // raw[r:w] is read but not yet decoded
	err    error // sticky error from src
	begun  bool  // the byte-order mark check is done
	pend   [4]byte
	pi, pn int // pend[pi:pn] is decoded but did not fit the caller's buffer

	nraw   int64 // bytes read from src
	nout   int64 // bytes handed out
	latin1 int64 // bytes decoded as ISO-8859-1

	mark  int64 // decoded offset where the current record starts
	limit int64 // bytes allowed past mark before giving up; 0 means no limit
}

var errRecordTooLong = errors.New("record too long")

func newTextReader(src io.Reader, limit int64) *textReader {
	return &textReader{src: src, raw: make([]byte, 64<<10), limit: limit}
}

func (t *textReader) fill() {
	if t.r > 0 {
		t.w = copy(t.raw, t.raw[t.r:t.w])
		t.r = 0
	}
	for t.w < len(t.raw) && t.err == nil {
		n, err := t.src.Read(t.raw[t.w:])
		t.w += n
		t.nraw += int64(n)
		t.err = err
		if n > 0 {
			break
		}
	}
	if !t.begun && (t.w >= 3 || t.err != nil) {
		t.begun = true
		if t.w >= 3 && t.raw[0] == 0xEF && t.raw[1] == 0xBB && t.raw[2] == 0xBF {
			t.r = 3
		}
	}
}

const asciiMask = 0x8080808080808080

func (t *textReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if t.limit > 0 && t.nout-t.mark > t.limit {
		return 0, errRecordTooLong
	}
	n := 0
	for t.pi < t.pn && n < len(p) {
		p[n] = t.pend[t.pi]
		n++
		t.pi++
	}
	for n < len(p) {
		if t.r == t.w || !t.begun {
			if t.err != nil {
				break
			}
			if n > 0 && t.r == t.w {
				break // hand out what is decoded rather than block on more input
			}
			t.fill()
			continue
		}
		c := t.raw[t.r]
		if c < utf8.RuneSelf {
			// Copy the run of ASCII bytes, eight at a time while possible.
			j, end := t.r, t.w
			if room := t.r + len(p) - n; room < end {
				end = room
			}
			for j+8 <= end && binary.LittleEndian.Uint64(t.raw[j:])&asciiMask == 0 {
				j += 8
			}
			for j < end && t.raw[j] < utf8.RuneSelf {
				j++
			}
			n += copy(p[n:], t.raw[t.r:j])
			t.r = j
			continue
		}
		if !utf8.FullRune(t.raw[t.r:t.w]) && t.err == nil {
			if n > 0 {
				break
			}
			t.fill()
			continue
		}
		var seq []byte
		if r, size := utf8.DecodeRune(t.raw[t.r:t.w]); r == utf8.RuneError && size <= 1 {
			t.pend[0], t.pend[1] = 0xC0|c>>6, 0x80|c&0x3F
			seq = t.pend[:2]
			t.latin1++
			t.r++
		} else {
			seq = t.raw[t.r : t.r+size]
			t.r += size
		}
		k := copy(p[n:], seq)
		n += k
		if k < len(seq) {
			t.pn = copy(t.pend[:], seq[k:])
			t.pi = 0
		}
	}
	t.nout += int64(n)
	if n == 0 && t.err != nil {
		return 0, t.err
	}
	return n, nil
}

func (t *textReader) encoding() string {
	if t.latin1 > 0 {
		return "ISO-8859-1"
	}
	return "UTF-8"
}
