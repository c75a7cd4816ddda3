package fhir

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// bundle writes a searchset Bundle by appending bytes: the stored resources go in as they are,
// with their provenance tags (rendered once per tag set under this server's base) inserted, so
// a page costs copying, not JSON encoding. Only _summary and _elements decode anything, and only
// the top level of each matched resource. The caller releases the Bundle once it is written.
func (s *Server) bundle(ctx context.Context, res *result, q *query) ([]byte, error) {
	size := 512
	for _, d := range res.matches {
		size += len(d.Body) + servedExtra
	}
	for _, d := range res.included {
		size += len(d.doc.Body) + servedExtra
	}
	b := newBody(size)
	b = append(b, `{"resourceType":"Bundle","id":"`...)
	b = append(b, bundleID()...)
	b = append(b, `","meta":{"lastUpdated":"`...)
	b = append(b, s.now().UTC().Format("2006-01-02T15:04:05Z")...)
	b = append(b, `"},"type":"searchset"`...)
	if res.total >= 0 {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, res.total, 10)
	}
	b = append(b, `,"link":[`...)
	b = appendLink(b, "self", res.self)
	if res.next != "" {
		b = append(b, ',')
		b = appendLink(b, "next", res.next)
	}
	if res.prev != "" {
		b = append(b, ',')
		b = appendLink(b, "previous", res.prev)
	}
	b = append(b, ']')

	n := 0
	entry := func() {
		if n == 0 {
			b = append(b, `,"entry":[`...)
		} else {
			b = append(b, ',')
		}
		n++
	}
	var err error
	for _, d := range res.matches {
		entry()
		if b, err = s.appendEntry(ctx, b, res.tagGen, res.typ, d, "match", q.shape); err != nil {
			return nil, err
		}
	}
	for _, inc := range res.included {
		entry()
		if b, err = s.appendEntry(ctx, b, res.tagGen, inc.typ, inc.doc, "include", shape{}); err != nil {
			return nil, err
		}
	}
	if len(res.warnings) > 0 {
		entry()
		b = append(b, `{"resource":`...)
		b = append(b, warningOutcome(res.warnings)...)
		b = append(b, `,"search":{"mode":"outcome"}}`...)
	}
	if n > 0 {
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// servedExtra is about what a stored resource grows by as it is served: its provenance tags
// (fourteen codings, about 1.3 KB) and, in a Bundle, the entry around it.
const servedExtra = 1600

// appendEntry appends a Bundle entry of a stored resource. tagGen is the generation of the tag
// sets of the snapshot the resource was read from.
func (s *Server) appendEntry(ctx context.Context, b []byte, tagGen, typ string, d store.Document, mode string, sh shape) ([]byte, error) {
	stored, err := fhirmap.Open(d.Body)
	if err != nil {
		return nil, err
	}
	b = append(b, `{"fullUrl":`...)
	b = appendString(b, s.base+"/"+typ+"/"+d.ID)
	b = append(b, `,"resource":`...)
	if sh.subsetting() {
		body, err := s.tags.served(ctx, nil, tagGen, stored)
		if err == nil {
			body, err = sh.apply(typ, body)
		}
		if err != nil {
			return nil, err
		}
		b = append(b, body...)
	} else if b, err = s.tags.served(ctx, b, tagGen, stored); err != nil {
		return nil, err
	}
	b = append(b, `,"search":{"mode":"`...)
	b = append(b, mode...)
	return append(b, `"}}`...), nil
}

func appendLink(b []byte, relation, url string) []byte {
	b = append(b, `{"relation":"`...)
	b = append(b, relation...)
	b = append(b, `","url":`...)
	b = appendString(b, url)
	return append(b, '}')
}

// appendString appends s as a JSON string, escaping what JSON requires and nothing else, so that
// URLs keep their '&'.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func bundleID() string {
	var id [16]byte
	_, _ = rand.Read(id[:])
	return hex.EncodeToString(id[:])
}
