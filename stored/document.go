package stored

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"providerdir/store"
)

// Body is the stored shape of every source-record document: the record as read, and the
// provenance it is served with. Change detection compares Record alone, since provenance stamps
// move on every ingest.
type Body[T any] struct {
	Record     T          `json:"record"`
	Provenance Provenance `json:"provenance"`
}

// NewDocument encodes a record and its provenance as a document with the given search keys.
// The body is drawn from the pool of bodies (NewBody).
func NewDocument[T any](id string, record T, prov Provenance, keys []store.Key) (store.Document, error) {
	b, err := AppendJSON(NewBody(), Body[T]{Record: record, Provenance: prov})
	if err != nil {
		return store.Document{}, err
	}
	return store.Document{ID: id, Body: b, Keys: keys}, nil
}

// bodies holds buffers for stored documents' bodies. An ingest encodes tens of millions of
// records and resources of a kilobyte or a few, each kept only until the store has copied it,
// and allocated afresh they would be a large part of all an ingest allocates. Drawn from here
// (NewBody) and given back once written (Recycle), they are reused.
var bodies sync.Pool // of *[]byte

// NewBody returns an empty buffer from the pool, or a new one.
func NewBody() []byte {
	if b, ok := bodies.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, bodySize)
}

// bodySize is the capacity of a new body: a record or a resource with its meta fits in it; and
// maxRecycled the largest body kept for reuse, so that one outsized document does not pin its
// memory in the pool.
const (
	bodySize    = 4 << 10
	maxRecycled = 64 << 10
)

// Recycle gives the body of a document back for reuse once it is written: the store keeps
// none of a document's memory after Put or Add returns (store.Store). The caller must hold the
// only reference to body.
func Recycle(body []byte) {
	if cap(body) < bodySize/2 || cap(body) > maxRecycled {
		return
	}
	b := body[:0]
	bodies.Put(&b)
}

// DecodeBody decodes a document written by NewDocument.
func DecodeBody[T any](d store.Document) (Body[T], error) {
	var b Body[T]
	err := DecodeJSON(d.Body, &b)
	return b, err
}

// Keys accumulates a document's search keys, skipping empty values and exact duplicates.
type Keys []store.Key

// Add appends one key per non-empty value. A value repeats an earlier key only if the param
// already has keys, so a param added for the first time (as the many name-search keys are) is
// checked against this call's own values alone rather than against every key of the document.
func (k *Keys) Add(param string, values ...string) {
	from := len(*k)
	if slices.ContainsFunc(*k, func(e store.Key) bool { return e.Param == param }) {
		from = 0
	}
	for _, v := range values {
		if v == "" {
			continue
		}
		dup := false
		for _, e := range (*k)[from:] {
			if e.Value == v && e.Param == param { // values differ in length far more often than params
				dup = true
				break
			}
		}
		if !dup {
			*k = append(*k, store.Key{Param: param, Value: v})
		}
	}
}

// AddText appends the normalized form of text, and of each of its words, so that a search
// matches a whole value or any word of it by prefix ("van der" finds "Van Der Berg").
func (k *Keys) AddText(param string, text string) {
	n := NormalizeText(text)
	if n == "" {
		return
	}
	k.Add(param, n)
	if strings.IndexByte(n, ' ') >= 0 {
		k.Add(param, strings.Fields(n)...)
	}
}

// NormalizeText folds text for case- and accent-insensitive matching: decomposed, marks
// removed, lower-cased, punctuation turned to spaces, runs of spaces collapsed. Search input is
// normalized with the same function, so stored keys and queries always agree.
func NormalizeText(s string) string { return fold(s, false) }

// FoldText folds text as FHIR R4's string search compares it: case- and accent-insensitive,
// runs of spaces collapsed, punctuation kept ("O'Brien" and "OBrien", "St. Louis" and
// "St Louis" stay apart, as a client checking that each match starts with what it asked for
// expects). The FHIR surface's string keys and its searches are folded with it.
func FoldText(s string) string { return fold(s, true) }

// fold is NormalizeText, or FoldText when punct is set.
func fold(s string, punct bool) string {
	if isASCII(s) {
		return foldASCII(s, punct)
	}
	// Invalid bytes separate words like any other non-letter; replaced first, since the
	// decomposition leaves what follows one undecomposed ("\xf1ê" became "ê", and "ê" "e").
	return foldRunes(norm.NFD.String(strings.ToValidUTF8(s, " ")), punct)
}

// foldRunes folds decomposed text rune by rune.
func foldRunes(s string, punct bool) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r) || punct && !unicode.IsSpace(r) && !unicode.IsControl(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' && !punct:
			// O'Brien and OBrien should meet: apostrophes vanish rather than split words.
		default:
			space = true
		}
	}
	return b.String()
}

// foldASCII is foldRunes for ASCII text, which is nearly all of the registry's: byte
// comparisons instead of Unicode table lookups, for the names and addresses of every record of
// an ingest (FuzzNormalizeText holds the two to the same output).
func foldASCII(s string, punct bool) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case punct && c > ' ' && c < 0x7f: // printable, not a space
		case c == '\'' && !punct:
			continue
		default:
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteByte(c)
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
