package source

import (
	"errors"
	"strings"

	"providerdir/ident"
	"providerdir/source/internal/csvscan"
)

// Row is the current row of a Reader, handed to its decoder. Accessors return trimmed field
// values, and the parsing accessors record the first problem they meet: the row is then rejected
// with that file, line, column and reason once the decoder returns. A Row is only valid inside
// the decoder, but the strings it returns may be kept: each row's text is allocated afresh (only
// the slice of fields is reused), so values share that one allocation instead of being copied
// field by field, and a kept value holds its row's line in memory.
type Row struct {
	reader func(RowError)
	header *Header
	rec    []string
	csv    *csvscan.Reader
	failed bool
}

func (r *Row) reset(rec []string, c *csvscan.Reader) {
	r.rec, r.csv, r.failed = rec, c, false
}

// Header returns the resolved header of the file the row comes from.
func (r *Row) Header() *Header { return r.header }

// Line returns the 1-based line on which the row starts.
func (r *Row) Line() int {
	line, _ := r.csv.FieldPos(0)
	return line
}

// Failed reports whether a problem has been recorded on the row.
func (r *Row) Failed() bool { return r.failed }

// Raw returns column c's field untrimmed and uncopied ("" when the file lacks the column). It
// suits values that are only inspected, not kept.
func (r *Row) Raw(c Col) string {
	if c < 0 {
		return ""
	}
	i := r.header.index[c]
	if i < 0 {
		return ""
	}
	return r.rec[i]
}

// Str returns column c's field, trimmed; "" when blank, when it holds one of the schema's
// placeholders, or when the file lacks the column.
func (r *Row) Str(c Col) string { return r.value(r.Raw(c)) }

// Group returns the file column indexes of group g (see Schema.Group); read them with At and
// name them with Header().NameAt. The slice belongs to the header: do not modify it.
func (r *Row) Group(g Group) []int { return r.header.Group(g) }

// At returns the field at file column index i (see Header.Find), trimmed, a placeholder read as
// "" as Str reads it.
func (r *Row) At(i int) string {
	if i < 0 || i >= len(r.rec) {
		return ""
	}
	return r.value(r.rec[i])
}

// value trims a field and reads a placeholder as "".
func (r *Row) value(field string) string {
	v := strings.TrimSpace(field)
	if v != "" && r.header.schema.placeholder(v) {
		return ""
	}
	return v
}

// Fail rejects the row because of column c. Only the first failure of a row is reported.
func (r *Row) Fail(c Col, reason, value string) { r.FailAt(r.header.Column(c), reason, value) }

// FailAt rejects the row because of the field at file column index i (-1: the whole row).
func (r *Row) FailAt(i int, reason, value string) {
	if r.failed {
		return
	}
	r.failed = true
	e := RowError{Reason: reason, Value: value}
	if i >= 0 && i < len(r.rec) {
		e.Line, _ = r.csv.FieldPos(i)
		e.Column = r.header.names[i]
	} else {
		e.Line = r.Line()
	}
	r.reader(e)
}

// Required returns column c's field, rejecting the row when it is blank.
func (r *Row) Required(c Col) string {
	v := r.Str(c)
	if v == "" {
		r.Fail(c, "missing value", "")
	}
	return v
}

// failIdent records an ident validation failure under a reason such as "invalid NPI: bad check
// digit", a fixed phrase whatever the value.
func (r *Row) failIdent(c Col, err error) {
	var e *ident.Error
	if errors.As(err, &e) {
		r.Fail(c, "invalid "+string(e.Kind)+": "+string(e.Reason), e.Value)
		return
	}
	r.Fail(c, err.Error(), r.Raw(c))
}

// NPI returns column c's NPI, rejecting the row when it is blank or fails ident.ValidateNPI.
func (r *Row) NPI(c Col) string {
	v := r.Required(c)
	if v != "" {
		if err := ident.ValidateNPI(v); err != nil {
			r.failIdent(c, err)
		}
	}
	return v
}

// OptionalNPI returns column c's NPI, or "" when it is blank or equals one of the sentinels the
// file uses for "none" (LEIE writes 0000000000). Other values must pass ident.ValidateNPI.
func (r *Row) OptionalNPI(c Col, none ...string) string {
	return r.optional(c, ident.ValidateNPI, none)
}

// CCN returns column c's CMS Certification Number, rejecting the row when it is blank or fails
// ident.ValidateCCN.
func (r *Row) CCN(c Col) string {
	v := r.Required(c)
	if v != "" {
		if err := ident.ValidateCCN(v); err != nil {
			r.failIdent(c, err)
		}
	}
	return v
}

// OptionalCCN returns column c's CCN or "" when blank; other values must pass ident.ValidateCCN.
func (r *Row) OptionalCCN(c Col) string { return r.optional(c, ident.ValidateCCN, nil) }

// Taxonomy returns column c's NUCC taxonomy code or "" when blank; other values must have the
// shape ident.ValidateTaxonomy checks.
func (r *Row) Taxonomy(c Col) string { return r.optional(c, ident.ValidateTaxonomy, nil) }

func (r *Row) optional(c Col, validate func(string) error, none []string) string {
	v := strings.TrimSpace(r.Raw(c))
	if v == "" {
		return ""
	}
	for _, n := range none {
		if v == n {
			return ""
		}
	}
	if err := validate(v); err != nil {
		r.failIdent(c, err)
	}
	return v
}

// Date parses column c with ParseDate. A blank field, or one equal to a sentinel in none (LEIE
// writes 00000000), is the absent Date; anything else that is not a real date rejects the row.
func (r *Row) Date(c Col, none ...string) Date {
	v := strings.TrimSpace(r.Raw(c))
	if v == "" {
		return Date{}
	}
	for _, n := range none {
		if v == n {
			return Date{}
		}
	}
	d, err := ParseDate(v)
	if err != nil {
		r.Fail(c, "bad date", v)
	}
	return d
}

// Code returns column c's code with leading zeros restored to width digits: some releases of
// the POS file (and spreadsheets that touched a file) write "1" for "01". Values that are not
// all digits, or already width long or longer, are returned as they are.
func (r *Row) Code(c Col, width int) string {
	return PadCode(strings.TrimSpace(r.Raw(c)), width)
}

// twoDigit holds "00".."09", so the common repair ("1" -> "01") allocates nothing.
var twoDigit = [10]string{"00", "01", "02", "03", "04", "05", "06", "07", "08", "09"}

// PadCode left-pads an all-digit code with zeros to width. See Row.Code.
func PadCode(v string, width int) string {
	if v == "" || len(v) >= width {
		return v
	}
	if width == 2 && v[0] >= '0' && v[0] <= '9' {
		return twoDigit[v[0]-'0']
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return v
		}
	}
	return strings.Repeat("0", width-len(v)) + v
}

// Int parses column c as a non-negative whole number (thousands separators allowed). ok is
// false when the field is blank; a value that is not a number rejects the row.
func (r *Row) Int(c Col) (n int64, ok bool) {
	v := strings.TrimSpace(r.Raw(c))
	if v == "" {
		return 0, false
	}
	n, ok = ParseCount(v)
	if !ok {
		r.Fail(c, "bad number", v)
	}
	return n, ok
}

// ParseCount parses a non-negative whole number such as "1,234" or "12.0" (some files write
// counts with a zero fraction). It reports false for anything else or above 1e15.
func ParseCount(v string) (int64, bool) {
	if strings.HasSuffix(v, ".0") || strings.HasSuffix(v, ".00") {
		v = v[:strings.IndexByte(v, '.')]
	}
	var n int64
	digits := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			n = n*10 + int64(c-'0')
			digits++
			if digits > 15 {
				return 0, false
			}
		case c == ',' && digits > 0 && i+1 < len(v):
		default:
			return 0, false
		}
	}
	return n, digits > 0
}

// YesNo is a yes/no field that may also be unanswered.
type YesNo int8

// YesNo values. The zero value is Unset: a blank field, or NPPES's "X" (not answered).
const (
	No    YesNo = -1
	Unset YesNo = 0
	Yes   YesNo = 1
)

// Bool returns the answer and whether there is one.
func (v YesNo) Bool() (yes, set bool) { return v == Yes, v != Unset }

func (v YesNo) String() string {
	switch v {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return ""
}

// Flag reads a yes/no column: "Y", "YES", "TRUE", "T", "1" are Yes and "N", "NO", "FALSE", "F",
// "0" are No, in any case; blank and "X" are Unset. Any other value rejects the row.
func (r *Row) Flag(c Col) YesNo {
	v := strings.TrimSpace(r.Raw(c))
	switch strings.ToUpper(v) {
	case "":
		return Unset
	case "Y", "YES", "TRUE", "1", "T":
		return Yes
	case "N", "NO", "FALSE", "0", "F":
		return No
	case "X":
		return Unset
	}
	r.Fail(c, "bad yes/no flag", v)
	return Unset
}
