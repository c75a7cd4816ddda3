// Package csvscan splits comma-separated text into records exactly as encoding/csv does with
// its defaults (RFC 4180 quoting, \r\n read as \n, empty lines skipped, the same *csv.ParseError
// for the same malformed input), but faster on the files this project reads.
//
// A national NPPES file is nine million rows of 330 quoted fields, most of them empty, and
// encoding/csv's cost is per field: it copies every field into a buffer, notes its line and
// column, and then copies the buffer into the record's string. This
// reader finds a line in its own buffer, notes where each field starts and ends, and makes the
// record's string with one copy of the line; only a record with a doubled quote or a quoted
// line break has its fields copied out one by one. Lines and columns are worked out from the
// field offsets when FieldPos asks, which is rare. FuzzMatchesEncodingCSV holds it to
// encoding/csv on arbitrary input.
package csvscan

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
)

// Reader reads records from comma-separated text. It behaves as a *csv.Reader with
// ReuseRecord set and its other options, but FieldsPerRecord, at their defaults.
type Reader struct {
	src io.Reader
	// buf[start:end] is read and not consumed; start is where the current record begins.
	buf        []byte
	start, end int
	srcErr     error // sticky error of src

	// FieldsPerRecord is as in csv.Reader: a positive value is the number of fields every
	// record must have, 0 sets it from the first record, a negative value checks nothing.
	FieldsPerRecord int

	numLine int   // lines read so far
	offset  int64 // bytes consumed so far

	// The record read last: its text (buf[recStart:recEnd], line breaks as read), the line it
	// starts on, and its fields' spans in that text. rec holds the fields; scratch the
	// rewritten text of a record that needs it.
	recStart, recEnd int
	recLine          int
	spans            []span
	rec              []string
	scratch          []byte
	fieldIdx         []int
}

// span is a field of the record text: where it starts (its opening quote if quoted), where its
// content lies, and whether that content must be rewritten (it holds doubled quotes or a
// quoted line break) rather than taken as it is.
type span struct {
	at, from, to int
	rewrite      bool
}

// NewReader returns a Reader of src with a read buffer of bufSize bytes; a longer line grows
// it.
func NewReader(src io.Reader, bufSize int) *Reader {
	return &Reader{src: src, buf: make([]byte, max(bufSize, 16))}
}

// InputOffset returns the offset in the input just past the last record read, as
// csv.Reader.InputOffset does.
func (r *Reader) InputOffset() int64 { return r.offset }

// FieldPos returns the line and 1-based byte column at which field i of the record read last
// starts, as csv.Reader.FieldPos does. It panics if i is out of range.
func (r *Reader) FieldPos(i int) (line, column int) {
	if i < 0 || i >= len(r.spans) {
		panic("csvscan: out of range index passed to FieldPos")
	}
	at := r.spans[i].at
	if r.numLine == r.recLine { // a record on one line, the common case
		return r.recLine, at + 1
	}
	text := r.buf[r.recStart:r.recEnd]
	line = r.recLine + bytes.Count(text[:at], []byte{'\n'})
	return line, at - (bytes.LastIndexByte(text[:at], '\n') + 1) + 1
}

// fill reads more input into buf after end, moving the current record to the front or
// growing buf when there is no room. It returns false when src has nothing more to give.
func (r *Reader) fill() bool {
	if r.srcErr != nil {
		return false
	}
	if r.end == len(r.buf) {
		if r.start > 0 {
			n := copy(r.buf, r.buf[r.start:r.end])
			r.recStart -= r.start
			r.recEnd -= r.start
			r.end = n
			r.start = 0
		} else {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
	}
	for {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.srcErr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// line finds the line that begins at from (relative to start): it returns where its content
// ends, before its \n or \r\n, and where the next line begins. last reports a line the input
// ends without a newline; a \r ending the input is dropped from it, as encoding/csv does. ok
// is false at the end of input. Positions relative to start stay valid while a record is
// read: fill keeps buf[start:] together.
func (r *Reader) line(from int) (end, next int, last, ok bool) {
	for {
		if i := bytes.IndexByte(r.buf[r.start+from:r.end], '\n'); i >= 0 {
			end, next = from+i, from+i+1
			if end > from && r.buf[r.start+end-1] == '\r' {
				end--
			}
			return end, next, false, true
		}
		if !r.fill() {
			break
		}
	}
	if r.start+from == r.end {
		return 0, 0, false, false
	}
	end = r.end - r.start
	next = end
	if r.buf[r.start+end-1] == '\r' {
		end--
	}
	return end, next, true, true
}

// Read returns the next record. The slice is reused by the next call; the strings are not.
// Errors are those of csv.Reader.Read: a *csv.ParseError for a malformed record, returned
// with what was parsed of it, io.EOF at the end, or the error of the source.
func (r *Reader) Read() ([]string, error) {
	r.spans = r.spans[:0]
	r.rec = r.rec[:0]
	var end, next int
	var last bool
	for { // skip empty lines
		var ok bool
		if end, next, last, ok = r.line(0); !ok {
			r.recStart, r.recEnd = r.start, r.start
			return nil, r.eof()
		}
		r.numLine++
		if end > 0 {
			break
		}
		r.consume(next)
	}
	r.recLine = r.numLine
	rewrite := false
	var err error
	pos := 0                          // parse position, relative to start
	lineAt := 0                       // where the current line begins
	b := r.buf[r.start : r.start+end] // the record up to the end of its current line
fields:
	for {
		if pos == len(b) || b[pos] != '"' {
			// An unquoted field runs to the next comma or the end of the line, and holds no
			// quote.
			j := pos
			for j < len(b) && b[j] != ',' && b[j] != '"' {
				j++
			}
			if j < len(b) && b[j] == '"' {
				err = &csv.ParseError{StartLine: r.recLine, Line: r.numLine, Column: j - lineAt + 1, Err: csv.ErrBareQuote}
				break fields
			}
			r.spans = append(r.spans, span{pos, pos, j, false})
			if j == len(b) {
				break fields
			}
			pos = j + 1
			continue
		}
		// A quoted field runs to a quote followed by a comma or the end of the line. A doubled
		// quote stands for one, and a line break is part of the field.
		at := pos
		from := pos + 1
		pos = from
		rewriteField := false
		for {
			// Most fields are short or empty: a few bytes are looked at before IndexByte, whose
			// call costs more than that.
			j, near := pos, min(len(b), pos+8)
			for j < near && b[j] != '"' {
				j++
			}
			if j == near && j < len(b) {
				if k := bytes.IndexByte(b[j:], '"'); k >= 0 {
					j += k
				} else {
					j = len(b)
				}
			}
			if j == len(b) {
				if last { // the input ends inside the field
					err = &csv.ParseError{StartLine: r.recLine, Line: r.numLine, Column: end - lineAt + 1, Err: csv.ErrQuote}
					break fields
				}
				nextEnd, nextNext, nextLast, ok := r.line(next)
				if !ok || (nextLast && nextEnd == next) {
					// The input ends after a line break inside the field (and perhaps a \r,
					// which is dropped): the error is placed just past the line break.
					err = &csv.ParseError{StartLine: r.recLine, Line: r.numLine, Column: end - lineAt + 2, Err: csv.ErrQuote}
					if ok {
						r.numLine++
						next = nextNext
					}
					break fields
				}
				r.numLine++
				rewriteField = true
				lineAt, pos, end, next, last = next, next, nextEnd, nextNext, nextLast
				b = r.buf[r.start : r.start+end] // line may have moved or grown the buffer
				continue
			}
			pos = j + 1
			switch {
			case pos < len(b) && b[pos] == '"':
				rewriteField = true
				pos++
				continue
			case pos < len(b) && b[pos] == ',':
				r.spans = append(r.spans, span{at, from, pos - 1, rewriteField})
				rewrite = rewrite || rewriteField
				pos++
				continue fields
			case pos == len(b):
				r.spans = append(r.spans, span{at, from, pos - 1, rewriteField})
				rewrite = rewrite || rewriteField
			default:
				err = &csv.ParseError{StartLine: r.recLine, Line: r.numLine, Column: pos - lineAt, Err: csv.ErrQuote}
			}
			break fields
		}
	}
	r.recStart, r.recEnd = r.start, r.start+next
	r.fields(rewrite)
	r.consume(next)
	if err == nil && r.srcErr != nil && !errors.Is(r.srcErr, io.EOF) {
		err = r.srcErr
	}
	if r.FieldsPerRecord > 0 {
		if len(r.rec) != r.FieldsPerRecord && err == nil {
			err = &csv.ParseError{StartLine: r.recLine, Line: r.recLine, Column: 1, Err: csv.ErrFieldCount}
		}
	} else if r.FieldsPerRecord == 0 {
		r.FieldsPerRecord = len(r.rec)
	}
	return r.rec, err
}

// fields makes the record's strings from its spans: substrings of one copy of its text, or,
// when a field must be rewritten, of one copy of every field's rewritten text.
func (r *Reader) fields(rewrite bool) {
	text := r.buf[r.recStart:r.recEnd]
	if !rewrite {
		s := string(text)
		for _, sp := range r.spans {
			r.rec = append(r.rec, s[sp.from:sp.to])
		}
		return
	}
	r.scratch = r.scratch[:0]
	r.fieldIdx = r.fieldIdx[:0]
	for _, sp := range r.spans {
		r.scratch = appendField(r.scratch, text[sp.from:sp.to], sp.rewrite)
		r.fieldIdx = append(r.fieldIdx, len(r.scratch))
	}
	s := string(r.scratch)
	prev := 0
	for _, i := range r.fieldIdx {
		r.rec = append(r.rec, s[prev:i])
		prev = i
	}
}

// appendField appends a field's content: as is, or with each doubled quote made one and each
// \r\n line break made \n.
func appendField(dst, field []byte, rewrite bool) []byte {
	if !rewrite {
		return append(dst, field...)
	}
	for i := 0; i < len(field); i++ {
		c := field[i]
		switch {
		case c == '"' && i+1 < len(field) && field[i+1] == '"':
			i++
		case c == '\r' && i+1 < len(field) && field[i+1] == '\n':
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// consume moves the start past n bytes of the current record.
func (r *Reader) consume(n int) {
	r.start += n
	r.offset += int64(n)
}

func (r *Reader) eof() error {
	if r.srcErr == nil || errors.Is(r.srcErr, io.EOF) {
		return io.EOF
	}
	return r.srcErr
}
