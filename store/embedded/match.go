package embedded

import (
	"encoding/binary"
	"slices"

	"providerdir/store"
)

// A scan of documents (docScan) checks every document it passes against the conditions. Decoding
// a document's keys makes two strings per key, about 65 allocations for a FHIR Practitioner, and
// costs several times reading the document; so the scan reads the encoded keys in place and
// decodes only the documents that match. Matching means what store.Matches says (a test holds
// the two to the same answers); it runs on the prepared conditions, whose sorted values a key
// is looked up in.

// matchStored reports whether a stored document value (see encodeDoc) satisfies every
// condition, without copying anything, and how many keys the document has. held is scratch
// space with one flag per condition.
func matchStored(v []byte, conds []cond, held []bool) (bool, int, error) {
	if len(v) == 0 || v[0] != formatV1 {
		return false, 0, errCorrupt
	}
	v = v[1:]
	n, w := binary.Uvarint(v)
	if w <= 0 || n > uint64(len(v)-w)/2 {
		return false, 0, errCorrupt
	}
	v = v[w:]
	clear(held)
	missing := len(conds)
	for range n {
		var param, value []byte
		var ok bool
		if param, v, ok = readBytes(v); !ok {
			return false, 0, errCorrupt
		}
		if value, v, ok = readBytes(v); !ok {
			return false, 0, errCorrupt
		}
		for j, c := range conds {
			if !held[j] && c.holds(param, value) {
				held[j] = true
				if missing--; missing == 0 {
					return true, int(n), nil
				}
			}
		}
	}
	return missing == 0, int(n), nil
}

// holds reports whether a key satisfies the condition.
func (c cond) holds(param, value []byte) bool {
	for _, t := range c.terms {
		if string(param) == t.param && t.holds(c.match, value) {
			return true
		}
	}
	return false
}

// holds reports whether a key value of the term's param satisfies it. Prefix values are
// sorted and none starts with another, so the only one that can be a prefix of the value is the
// greatest one not above it: any value between a prefix and a string it begins would begin with
// that prefix too.
func (t term) holds(m store.Match, value []byte) bool {
	i, found := slices.BinarySearchFunc(t.values, value, func(v string, s []byte) int {
		switch {
		case v < string(s):
			return -1
		case v > string(s):
			return 1
		}
		return 0
	})
	if found || m == store.Exact || i == 0 {
		return found
	}
	p := t.values[i-1]
	return len(value) >= len(p) && string(value[:len(p)]) == p
}
