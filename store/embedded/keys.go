package embedded

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"providerdir/store"
)

// Physical key layout. Every key starts with a one-byte tag and a NUL; the parts after it are
// separated by NUL bytes. Names, ids, params and values never hold a NUL (store's validation
// rejects them), so a NUL always ends a part and byte-wise key order equals the order of the
// parts compared one after the other as strings. That is what lets one iterator seek walk an
// index in (value, id) order and a range deletion drop a whole generation.
//
//	d\0<gen>\0<coll>\0<id>                     document: encoded keys and body
//	i\0<gen>\0<coll>\0<param>\0<value>\0<id>   index entry: one byte, 1 if value is the
//	                                           document's smallest for param (its order entry)
//	n\0<gen>\0<coll>                           number of documents in the collection
//	r\0<kind>\0<id>                            record: version, expiry, body
//	c\0<name>                                  counter: value, expiry
//	x\0<expiry, 8 bytes><primary key>           expiry index: records and counters by expiry
//
// Generation-scoped data lives under the d, i and n tags, so dropping a generation is three
// range deletions (and three excises that free its tables) and listing generations is one seek
// per generation over the d tag.
const (
	tagDoc     = 'd'
	tagIndex   = 'i'
	tagCount   = 'n'
	tagRecord  = 'r'
	tagCounter = 'c'
	tagExpiry  = 'x'
)

// generationTags are the tags of generation-scoped data.
var generationTags = []byte{tagDoc, tagIndex, tagCount}

// Index entry values: whether the entry is the order entry of its document for its param.
var (
	entryOrder = []byte{1}
	entryOther = []byte{0}
)

func appendKey(dst []byte, tag byte, parts ...string) []byte {
	n := 2 + len(parts)
	for _, p := range parts {
		n += len(p)
	}
	dst = slices.Grow(dst, n)
	dst = append(dst, tag, 0)
	for i, p := range parts {
		if i > 0 {
			dst = append(dst, 0)
		}
		dst = append(dst, p...)
	}
	return dst
}

func docKey(gen, coll, id string) []byte { return appendKey(nil, tagDoc, gen, coll, id) }

// docPrefix is the prefix of every document key of a collection.
func docPrefix(gen, coll string) []byte { return appendKey(nil, tagDoc, gen, coll, "") }

// genPrefix is the prefix of every key of a generation under tag.
func genPrefix(tag byte, gen string) []byte { return appendKey(nil, tag, gen, "") }

// paramPrefix is the prefix of every index entry of one param of a collection.
func paramPrefix(gen, coll, param string) []byte {
	return appendKey(nil, tagIndex, gen, coll, param, "")
}

func indexKey(gen, coll, param, value, id string) []byte {
	return appendKey(nil, tagIndex, gen, coll, param, value, id)
}

func countKey(gen, coll string) []byte { return appendKey(nil, tagCount, gen, coll) }

func recordPrefix(kind string) []byte { return appendKey(nil, tagRecord, kind, "") }

func recordKey(kind, id string) []byte { return appendKey(nil, tagRecord, kind, id) }

func counterKey(name string) []byte { return appendKey(nil, tagCounter, name) }

// expiryKey orders the primary key of a record or counter by when it expires, so that a sweep
// finds everything expired by one bounded scan.
func expiryKey(expires int64, primary []byte) []byte {
	k := make([]byte, 0, 2+8+len(primary))
	k = append(k, tagExpiry, 0)
	k = binary.BigEndian.AppendUint64(k, uint64(expires)^(1<<63))
	return append(k, primary...)
}

// splitExpiryKey returns the expiry and the primary key of an expiry index key.
func splitExpiryKey(k []byte) (int64, []byte, bool) {
	if len(k) < 10 || k[0] != tagExpiry || k[1] != 0 {
		return 0, nil, false
	}
	return int64(binary.BigEndian.Uint64(k[2:10]) ^ (1 << 63)), k[10:], true
}

// splitEntry splits the part of an index key after its param prefix into value and id.
func splitEntry(rest []byte) (value, id []byte, ok bool) {
	j := bytes.LastIndexByte(rest, 0)
	if j < 0 {
		return nil, nil, false
	}
	return rest[:j], rest[j+1:], true
}

// prefixEnd returns the smallest key greater than every key starting with p, or nil when there
// is none (p is all 0xff bytes).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// successor returns the smallest key greater than k.
func successor(k []byte) []byte {
	return append(bytes.Clone(k), 0)
}

// Value encodings start with a format byte so that a later layout can be told apart.
const formatV1 = 1

var errCorrupt = errors.New("embedded: corrupt value")

// encodeDoc encodes a document's keys and body. The keys travel with the body so that a
// replace can find and delete the old index entries without any other lookup.
//
//	formatV1 uvarint(len(keys)) { uvarint(len(param)) param uvarint(len(value)) value }... body
func encodeDoc(d store.Document) []byte {
	n := 1 + binary.MaxVarintLen64 + len(d.Body)
	for _, k := range d.Keys {
		n += 2*binary.MaxVarintLen64 + len(k.Param) + len(k.Value)
	}
	return appendDoc(make([]byte, 0, n), d)
}

// appendDoc appends a document's encoding to b.
func appendDoc(b []byte, d store.Document) []byte {
	b = append(b, formatV1)
	b = binary.AppendUvarint(b, uint64(len(d.Keys)))
	for _, k := range d.Keys {
		b = binary.AppendUvarint(b, uint64(len(k.Param)))
		b = append(b, k.Param...)
		b = binary.AppendUvarint(b, uint64(len(k.Value)))
		b = append(b, k.Value...)
	}
	return append(b, d.Body...)
}

// keySet says which of a stored document's keys a read decodes: all of them, none (GetBodies,
// store.Query.BodiesOnly), or those of a few params (store.Query.KeysOf). A FHIR resource has
// thirty or so keys, and a page that follows one reference of each needs one.
type keySet struct {
	all    bool
	params []string
}

var (
	allKeys = keySet{all: true}
	noKeys  = keySet{}
)

// keysFor is the set of keys q returns its documents with.
func keysFor(q store.Query) keySet {
	switch {
	case q.BodiesOnly:
		return noKeys
	case len(q.KeysOf) > 0:
		return keySet{params: q.KeysOf}
	}
	return allKeys
}

// with is the set and param's keys.
func (k keySet) with(param string) keySet {
	if k.all || slices.Contains(k.params, param) {
		return k
	}
	return keySet{params: append(slices.Clip(k.params), param)}
}

// decode decodes a stored document with the set's keys into memory the caller owns, its body
// copied into a (see store.Arena).
func (k keySet) decode(a *store.Arena, id string, v []byte) (store.Document, error) {
	var keys []store.Key
	var body []byte
	var err error
	switch {
	case k.all:
		keys, body, err = decodeKeys(v)
	case len(k.params) == 0:
		_, _, body, err = splitDoc(v)
	default:
		keys, body, err = decodeKeysOf(v, k.params)
	}
	if err != nil {
		return store.Document{}, fmt.Errorf("%w: document %q", err, id)
	}
	return store.Document{ID: id, Body: a.Copy(body), Keys: keys}, nil
}

// decodeDoc decodes a stored document with all its keys into memory the caller owns.
func decodeDoc(id string, v []byte) (store.Document, error) {
	return allKeys.decode(nil, id, v)
}

// splitDoc checks the lengths of a stored document's keys and returns their number, their
// encoding and the body, sub-slices of v.
func splitDoc(v []byte) (uint64, []byte, []byte, error) {
	if len(v) == 0 || v[0] != formatV1 {
		return 0, nil, nil, errCorrupt
	}
	v = v[1:]
	n, w := binary.Uvarint(v)
	// Each key takes at least two bytes, which bounds n before anything is allocated.
	if w <= 0 || n > uint64(len(v)-w)/2 {
		return 0, nil, nil, errCorrupt
	}
	v = v[w:]
	body := v
	for range 2 * n {
		var ok bool
		if _, body, ok = readBytes(body); !ok {
			return 0, nil, nil, errCorrupt
		}
	}
	return n, v[:len(v)-len(body)], body, nil
}

// decodeKeys returns a stored document's keys and its body (a sub-slice of v). The keys' params
// and values are substrings of one string copied from v: a FHIR resource has some thirty keys,
// and a string for each would be most of the allocations of serving a read.
func decodeKeys(v []byte) ([]store.Key, []byte, error) {
	n, enc, body, err := splitDoc(v)
	if err != nil {
		return nil, nil, err
	}
	s := string(enc)
	var keys []store.Key
	if n > 0 {
		keys = make([]store.Key, n)
	}
	at := 0
	next := func() string {
		l, w := binary.Uvarint(enc[at:])
		at += w + int(l)
		return s[at-int(l) : at]
	}
	for i := range keys {
		keys[i].Param = next()
		keys[i].Value = next()
	}
	return keys, body, nil
}

// decodeKeysOf decodes the keys of a stored document whose param is one of params, and returns
// them with the body (a sub-slice of v). Each param is shared with params, not copied.
func decodeKeysOf(v []byte, params []string) ([]store.Key, []byte, error) {
	n, enc, body, err := splitDoc(v)
	if err != nil {
		return nil, nil, err
	}
	var keys []store.Key
	for range n {
		// splitDoc has checked every length.
		param, rest, _ := readBytes(enc)
		value, rest, _ := readBytes(rest)
		enc = rest
		for _, p := range params {
			if string(param) == p {
				keys = append(keys, store.Key{Param: p, Value: string(value)})
				break
			}
		}
	}
	return keys, body, nil
}

// readBytes reads a length-prefixed part of an encoded document in place. Params and values are
// short, so the length is nearly always one byte, read without the general varint decoder: a
// scan of documents reads two per key.
func readBytes(v []byte) ([]byte, []byte, bool) {
	l, w := uint64(0), 1
	if len(v) > 0 && v[0] < 0x80 {
		l = uint64(v[0])
	} else if l, w = binary.Uvarint(v); w <= 0 {
		return nil, nil, false
	}
	if l > uint64(len(v)-w) {
		return nil, nil, false
	}
	v = v[w:]
	return v[:l], v[l:], true
}

// Expiry is kept as Unix nanoseconds, 0 for none. Times outside the int64 nanosecond range
// (years before 1678 or after 2262) are clamped to it.
func expiryNanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Year() > 2261:
		return math.MaxInt64
	case t.Year() < 1679:
		return math.MinInt64 + 1
	}
	if n := t.UnixNano(); n != 0 {
		return n
	}
	return 1 // the epoch itself; 0 means no expiry
}

func expiryTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// live reports whether something with expiry n still exists at now.
func live(n int64, now time.Time) bool { return n == 0 || now.UnixNano() < n }

// stored is the decoded value of a record or a counter.
type stored struct {
	version int64 // record version, or counter value
	expires int64
	body    []byte
}

// encodeStored encodes a record (version, expiry, body) or a counter (value, expiry).
//
//	formatV1 varint(version or value) varint(expiry) body
func encodeStored(s stored) []byte {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64+len(s.body))
	b = append(b, formatV1)
	b = binary.AppendVarint(b, s.version)
	b = binary.AppendVarint(b, s.expires)
	return append(b, s.body...)
}

// decodeStored decodes a record or counter; body is copied.
func decodeStored(v []byte) (stored, error) {
	if len(v) == 0 || v[0] != formatV1 {
		return stored{}, errCorrupt
	}
	v = v[1:]
	ver, w := binary.Varint(v)
	if w <= 0 {
		return stored{}, errCorrupt
	}
	v = v[w:]
	exp, w := binary.Varint(v)
	if w <= 0 {
		return stored{}, errCorrupt
	}
	return stored{version: ver, expires: exp, body: bytes.Clone(v[w:])}, nil
}
