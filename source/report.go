package source

import (
	"fmt"
	"sort"
	"strings"
)

// RowError describes one rejected row: where it is and why it was rejected.
type RowError struct {
	File   string // file name as given to the reader
	Line   int    // 1-based line where the offending field (or the row) starts
	Column string // header name of the offending column as the file spells it; "" for whole-row problems
	Reason string // short fixed phrase, e.g. "bad check digit"; the key of Report.Reasons
	Value  string // the offending value, shortened to at most 64 bytes; may be empty
}

func (e RowError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:", e.File, e.Line)
	if e.Column != "" {
		fmt.Fprintf(&b, " column %q:", e.Column)
	}
	b.WriteString(" ")
	b.WriteString(e.Reason)
	if e.Value != "" {
		fmt.Fprintf(&b, " (%q)", e.Value)
	}
	return b.String()
}

// Defaults for Options.
const (
	DefaultMaxErrors      = 100
	DefaultMaxRecordBytes = 1 << 20
	maxReasons            = 64 // distinct reasons counted before lumping the rest as "other"
	maxValueBytes         = 64
)

// Report is what a reader knows about the file it has read so far. A reader updates it as rows
// go by; read it after io.EOF for the final figures. Its memory is bounded however bad the file:
// only the first MaxErrors row errors are kept, and reasons come from a fixed set.
type Report struct {
	File     string           // file name as given to the reader
	Encoding string           // "UTF-8", or "ISO-8859-1" once a byte was decoded as Latin-1
	Bytes    int64            // bytes read from the file
	Rows     int64            // data rows read (the header excluded)
	Records  int64            // records handed to the caller
	Rejected int64            // rows rejected with a RowError
	Errors   []RowError       // the first rejected rows, in file order
	Reasons  map[string]int64 // rejected rows per reason

	maxErrors int
}

// Skipped is the number of well-formed rows a reader passed over on purpose (for example census
// rows of a summary level other than the one it reads); they are neither records nor errors.
func (r *Report) Skipped() int64 { return r.Rows - r.Records - r.Rejected }

func (r *Report) reject(e RowError) {
	r.Rejected++
	if r.Reasons == nil {
		r.Reasons = make(map[string]int64)
	}
	reason := e.Reason
	if _, ok := r.Reasons[reason]; !ok && len(r.Reasons) >= maxReasons {
		reason = "other"
	}
	r.Reasons[reason]++
	if len(r.Errors) < r.maxErrors {
		e.Value = shorten(e.Value)
		r.Errors = append(r.Errors, e)
	}
}

// String summarises the report in one line, e.g.
// "npidata.csv: 1000 rows, 998 records, 2 rejected (bad check digit: 1, wrong column count: 1)".
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d rows, %d records, %d rejected", r.File, r.Rows, r.Records, r.Rejected)
	if n := r.Skipped(); n > 0 {
		fmt.Fprintf(&b, ", %d skipped", n)
	}
	if len(r.Reasons) > 0 {
		reasons := make([]string, 0, len(r.Reasons))
		for k := range r.Reasons {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		b.WriteString(" (")
		for i, k := range reasons {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %d", k, r.Reasons[k])
		}
		b.WriteString(")")
	}
	if r.Encoding != "" && r.Encoding != "UTF-8" {
		fmt.Fprintf(&b, " [%s]", r.Encoding)
	}
	return b.String()
}

// shorten cuts s to at most maxValueBytes without splitting a UTF-8 sequence, and copies it so
// a kept error does not pin the row it came from.
func shorten(s string) string {
	if len(s) <= maxValueBytes {
		return strings.Clone(s)
	}
	cut := maxValueBytes
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
