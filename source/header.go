package source

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Col names one column of a Schema. Readers declare their columns once, at package level, and
// read fields through the Col values they got back.
type Col int

// NoCol is a Col that no file has: its fields read as "". Readers sharing one decoder across
// layouts use it for a column a layout lacks.
const NoCol Col = -1

// Schema is the list of columns a reader needs from a file, by header name. Names are matched
// after normalisation: a leading byte-order mark and surrounding spaces are dropped, runs of
// spaces collapse to one (pl_pfile says "Address-  Address Line 2" with two), and case is
// ignored (POS headers are uppercase in some releases and lowercase in API downloads). Aliases
// cover renamed columns, such as NPPES "Provider Gender Code", renamed "Provider Sex Code" in
// 2025, and Open Payments "Physician_*", renamed "Covered_Recipient_*" in program year 2021.
//
// A Schema is built once and is then read-only; it is safe to share between goroutines.
type Schema struct {
	what         string
	cols         []colSpec
	groups       []func(name string) bool
	placeholders []string // upper case
}

type colSpec struct {
	names    []string // as declared, for messages
	keys     []string // normalised
	required bool
}

// NewSchema starts a schema for the kind of file named by what (e.g. "NPPES npidata_pfile"),
// which appears in header errors.
func NewSchema(what string) *Schema { return &Schema{what: what} }

// Placeholders declares the values a publisher writes in a field that has no value (NPPES
// writes <UNAVAIL> where an EIN or another name is not available). Row.Str and Row.At read them
// as "", compared without regard to case after trimming, so no placeholder is ever served as
// data. It returns s, for use beside NewSchema.
func (s *Schema) Placeholders(values ...string) *Schema {
	for _, v := range values {
		s.placeholders = append(s.placeholders, strings.ToUpper(strings.TrimSpace(v)))
	}
	return s
}

// placeholder reports whether a trimmed field value is one of the schema's placeholders.
func (s *Schema) placeholder(v string) bool {
	for _, p := range s.placeholders {
		if len(v) == len(p) && strings.EqualFold(v, p) {
			return true
		}
	}
	return false
}

// Required declares a column the file must have, under its name or one of its aliases.
func (s *Schema) Required(name string, aliases ...string) Col { return s.add(true, name, aliases) }

// Optional declares a column that some releases lack; its fields read as "" when it is absent.
func (s *Schema) Optional(name string, aliases ...string) Col { return s.add(false, name, aliases) }

func (s *Schema) add(required bool, name string, aliases []string) Col {
	spec := colSpec{names: append([]string{name}, aliases...), required: required}
	for _, n := range spec.names {
		spec.keys = append(spec.keys, HeaderKey(n))
	}
	s.cols = append(s.cols, spec)
	return Col(len(s.cols) - 1)
}

// Group names a set of columns found by their header names rather than listed one by one, such
// as the "SUBGROUP - ..." flags of Hospital_Enrollments or the measure columns of a wide Care
// Compare file. It is resolved once per file; Row.Group returns the file column indexes.
type Group int

// Group declares a column group: every column whose trimmed header satisfies match, in file
// order. A group may be empty.
func (s *Schema) Group(match func(name string) bool) Group {
	s.groups = append(s.groups, match)
	return Group(len(s.groups) - 1)
}

// HeaderKey is the normalised form under which header names are compared.
func HeaderKey(name string) string {
	name = strings.TrimPrefix(name, "\uFEFF")
	var b strings.Builder
	b.Grow(len(name))
	space := false
	for _, r := range name {
		if unicode.IsSpace(r) || r == '\u00A0' {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Header is a schema resolved against one file's header row.
type Header struct {
	schema *Schema
	names  []string // the file's header cells, trimmed, as spelled there
	index  []int    // Col -> column index in the file, or -1
	groups [][]int  // Group -> column indexes in the file
}

// HeaderError reports a file whose header lacks required columns: usually the wrong file, or a
// new release that renamed columns.
type HeaderError struct {
	File    string
	What    string   // the kind of file expected
	Missing []string // required columns not found, by their primary name
	Columns int      // number of columns the header has
	First   []string // the first few header cells, to recognise what the file really is
}

func (e *HeaderError) Error() string {
	const show = 8 // a wholly wrong file misses hundreds; the first few say enough
	q := make([]string, 0, show+1)
	for i, m := range e.Missing {
		if i == show {
			q = append(q, fmt.Sprintf("and %d more", len(e.Missing)-show))
			break
		}
		q = append(q, fmt.Sprintf("%q", m))
	}
	f := make([]string, len(e.First))
	for i, m := range e.First {
		f[i] = fmt.Sprintf("%q", m)
	}
	return fmt.Sprintf("%s: header does not match %s: missing %s (the header has %d columns: %s...)",
		e.File, e.What, strings.Join(q, ", "), e.Columns, strings.Join(f, ", "))
}

// Resolve maps the schema onto a header row. It fails with a *HeaderError naming every missing
// required column. When a header repeats a name, the first occurrence wins.
func (s *Schema) Resolve(file string, header []string) (*Header, error) {
	h := &Header{schema: s, names: make([]string, len(header)), index: make([]int, len(s.cols))}
	pos := make(map[string]int, len(header))
	for i, name := range header {
		h.names[i] = strings.TrimSpace(strings.TrimPrefix(name, "\uFEFF"))
		if !utf8.ValidString(h.names[i]) {
			h.names[i] = strings.ToValidUTF8(h.names[i], "\uFFFD")
		}
		k := HeaderKey(name)
		if _, dup := pos[k]; !dup {
			pos[k] = i
		}
	}
	var missing []string
	for c, spec := range s.cols {
		h.index[c] = -1
		for _, k := range spec.keys {
			if i, ok := pos[k]; ok {
				h.index[c] = i
				break
			}
		}
		if h.index[c] < 0 && spec.required {
			missing = append(missing, spec.names[0])
		}
	}
	for _, match := range s.groups {
		h.groups = append(h.groups, h.Find(match))
	}
	if missing != nil {
		first := h.names
		if len(first) > 5 {
			first = first[:5]
		}
		return nil, &HeaderError{File: file, What: s.what, Missing: missing, Columns: len(header), First: append([]string(nil), first...)}
	}
	return h, nil
}

// Has reports whether the file has column c (always true for required columns).
func (h *Header) Has(c Col) bool { return c >= 0 && h.index[c] >= 0 }

// Name returns the file's own spelling of column c's header, or its declared name if absent.
func (h *Header) Name(c Col) string {
	if c < 0 {
		return ""
	}
	if i := h.index[c]; i >= 0 {
		return h.names[i]
	}
	return h.schema.cols[c].names[0]
}

// Column returns the file column index of c, or -1 when the file lacks it.
func (h *Header) Column(c Col) int {
	if c < 0 {
		return -1
	}
	return h.index[c]
}

// Group returns the file column indexes of group g (see Schema.Group), in file order. The
// slice belongs to the header: do not modify it.
func (h *Header) Group(g Group) []int { return h.groups[g] }

// NameAt returns the file's header of column index i, trimmed ("" when out of range).
func (h *Header) NameAt(i int) string {
	if i < 0 || i >= len(h.names) {
		return ""
	}
	return h.names[i]
}

// Len returns the number of columns in the file.
func (h *Header) Len() int { return len(h.names) }

// Names returns the file's header cells, trimmed. The slice is the caller's.
func (h *Header) Names() []string { return append([]string(nil), h.names...) }

// Find returns the indexes of the file's columns whose header satisfies match, in file order.
// Readers of wide files with one column per measure use it to find the measure columns.
func (h *Header) Find(match func(name string) bool) []int {
	var out []int
	for i, n := range h.names {
		if match(n) {
			out = append(out, i)
		}
	}
	return out
}

// Index returns the file column index whose normalised header equals name's, or -1.
func (h *Header) Index(name string) int {
	k := HeaderKey(name)
	for i, n := range h.names {
		if HeaderKey(n) == k {
			return i
		}
	}
	return -1
}
