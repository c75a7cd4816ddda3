package store

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// Shared argument checks, so that every backend rejects exactly the same calls.

// ValidateName checks a collection, generation, record kind or counter name: 1 to 128 bytes of
// letters, digits, '_', '-' and '.'. Names become parts of physical keys and collection names.
func ValidateName(what, name string) error {
	if name == "" || len(name) > 128 {
		return fmt.Errorf("%w: %s name %q must be 1 to 128 bytes", ErrInvalid, what, name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return fmt.Errorf("%w: %s name %q may hold only letters, digits, '_', '-' and '.'", ErrInvalid, what, name)
		}
	}
	return nil
}

// ValidateID checks a document or record id: 1 to MaxIDLen bytes, no NUL.
func ValidateID(id string) error {
	if id == "" || len(id) > MaxIDLen || strings.IndexByte(id, 0) >= 0 {
		return fmt.Errorf("%w: id must be 1 to %d bytes without NUL", ErrInvalid, MaxIDLen)
	}
	return nil
}

// ValidateDocuments checks a Put batch.
func ValidateDocuments(generation, collection string, docs []Document) error {
	if err := ValidateName("generation", generation); err != nil {
		return err
	}
	if err := ValidateName("collection", collection); err != nil {
		return err
	}
	for _, d := range docs {
		if err := ValidateID(d.ID); err != nil {
			return err
		}
		for _, k := range d.Keys {
			if k.Param == "" || strings.IndexByte(k.Param, 0) >= 0 || strings.IndexByte(k.Value, 0) >= 0 {
				return fmt.Errorf("%w: document %q: key params must be non-empty and keys free of NUL", ErrInvalid, d.ID)
			}
		}
	}
	return nil
}

// ValidateQuery checks a query and returns its effective limit.
func ValidateQuery(q Query) (int, error) {
	if err := ValidateName("generation", q.Generation); err != nil {
		return 0, err
	}
	if err := ValidateName("collection", q.Collection); err != nil {
		return 0, err
	}
	for _, c := range q.Where {
		if c.Match != Exact && c.Match != Prefix {
			return 0, fmt.Errorf("%w: unknown match %d", ErrInvalid, c.Match)
		}
		for _, t := range c.Terms() {
			if t.Param == "" || len(t.Values) == 0 {
				return 0, fmt.Errorf("%w: a condition and each of its alternatives need a param and at least one value", ErrInvalid)
			}
			for _, v := range t.Values {
				if strings.IndexByte(v, 0) >= 0 || strings.IndexByte(t.Param, 0) >= 0 {
					return 0, fmt.Errorf("%w: condition values may not hold NUL", ErrInvalid)
				}
			}
		}
	}
	switch {
	case q.Limit <= 0:
		return DefaultLimit, nil
	case q.Limit > MaxLimit:
		return 0, fmt.Errorf("%w: limit %d above %d", ErrInvalid, q.Limit, MaxLimit)
	}
	return q.Limit, nil
}

// Cursor is the position after which a page starts: the order value and id of the last document
// of the page before. Both backends encode it the same way, so it is opaque to callers.
type Cursor struct {
	Value string
	ID    string
}

// Encode returns the cursor as an opaque URL-safe string. Value and ID are arbitrary bytes (a
// key value need not be valid UTF-8), so they are length-prefixed bytes, not JSON strings.
func (c Cursor) Encode() string {
	b := binary.AppendUvarint(nil, uint64(len(c.Value)))
	b = append(b, c.Value...)
	b = append(b, c.ID...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a cursor made by Encode. Anything else is ErrInvalid.
func DecodeCursor(s string) (Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, fmt.Errorf("%w: malformed cursor", ErrInvalid)
	}
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) || len(b)-w-int(n) == 0 {
		return Cursor{}, fmt.Errorf("%w: malformed cursor", ErrInvalid)
	}
	rest := b[w:]
	return Cursor{Value: string(rest[:n]), ID: string(rest[n:])}, nil
}

// SmallestValue returns the smallest value among a document's keys for param, and whether any.
// It is the value a document is ordered by under Query.OrderBy.
func SmallestValue(keys []Key, param string) (string, bool) {
	best, ok := "", false
	for _, k := range keys {
		if k.Param == param && (!ok || k.Value < best) {
			best, ok = k.Value, true
		}
	}
	return best, ok
}

// SelectKeys returns the keys of a found document that q asks for (BodiesOnly, KeysOf), from all
// of them. It filters keys in place: keys is not used again.
func SelectKeys(keys []Key, q Query) []Key {
	switch {
	case q.BodiesOnly:
		return nil
	case len(q.KeysOf) == 0:
		return keys
	}
	keys = slices.DeleteFunc(keys, func(k Key) bool { return !slices.Contains(q.KeysOf, k.Param) })
	if len(keys) == 0 {
		return nil
	}
	return keys
}

// Matches reports whether a document's keys satisfy every condition of a query. Backends that
// verify candidates in memory use it, so matching semantics are defined once.
func Matches(keys []Key, where []Condition) bool {
	for _, c := range where {
		if !matchesOne(keys, c) {
			return false
		}
	}
	return true
}

func matchesOne(keys []Key, c Condition) bool {
	if matchesTerm(keys, c.Match, c.Param, c.Values) {
		return true
	}
	for _, o := range c.Or {
		if matchesTerm(keys, c.Match, o.Param, o.Values) {
			return true
		}
	}
	return false
}

func matchesTerm(keys []Key, m Match, param string, values []string) bool {
	for _, k := range keys {
		if k.Param != param {
			continue
		}
		for _, v := range values {
			if m == Exact && k.Value == v || m == Prefix && strings.HasPrefix(k.Value, v) {
				return true
			}
		}
	}
	return false
}

// ValidateGetMany checks the arguments of a GetMany and returns its ids without repeats, in
// their first order.
func ValidateGetMany(generation, collection string, ids []string) ([]string, error) {
	if err := ValidateName("generation", generation); err != nil {
		return nil, err
	}
	if err := ValidateName("collection", collection); err != nil {
		return nil, err
	}
	if len(ids) > MaxLimit {
		return nil, fmt.Errorf("%w: %d ids, at most %d", ErrInvalid, len(ids), MaxLimit)
	}
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if err := ValidateID(id); err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}
