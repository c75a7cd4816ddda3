package fhirmap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"providerdir/mapping"
	"providerdir/store"
)

// The stored body of a FHIR document is
//
//	{"record":"<16 hex>","etag":"<16 hex>","resource":<the resource JSON>}
//
// with a fixed-length head, so that the served bytes are a slice of the stored ones (no copy, no
// decoding). "record" digests the resource without its meta: ingest's change sets compare the
// record member, so a resource whose only change is a fresh provenance stamp (a new snapshot
// date, _last_checked) is not reported as changed. "etag" is the HTTP entity tag the resource is
// served with: a digest of the record digest, the meta's own members and the digest of its
// provenance tags, so it changes whenever the served resource does, without hashing the resource
// a second time or the same 1.7 KB of tags for every resource (the resource again was 10
// CPU-seconds of a national ingest; the tags, 4 CPU-seconds at 2 million providers).
const (
	headRecord   = `{"record":"`
	headETag     = `","etag":"`
	headResource = `","resource":`
	digestLen    = 16
	headLen      = len(headRecord) + digestLen + len(headETag) + digestLen + len(headResource)
)

// Resource is one built resource: its type and id, and the stored document.
type Resource struct {
	Type string
	ID   string
	Doc  store.Document
}

// encode marshals a resource whose Meta is set aside into the stored document. content is the
// resource with a nil Meta; meta is spliced in after "id" so that the served JSON reads
// resourceType, id, meta, then the rest. The document's body is drawn from the pool of
// bodies (mapping.NewBody).
func encode(resourceType, id string, content any, meta resourceMeta, keys mapping.Keys) (Resource, error) {
	body, err := mapping.AppendJSON(mapping.NewBody(), content)
	defer func() { mapping.Recycle(body) }()
	if err != nil {
		return Resource{}, fmt.Errorf("fhirmap: encode %s/%s: %w", resourceType, id, err)
	}
	head := len(`{"resourceType":"`) + len(resourceType) + len(`","id":"`) + len(id) + len(`"`)
	if !startsWithTypeAndID(body, resourceType, id) {
		return Resource{}, fmt.Errorf("fhirmap: %s/%s does not start with its type and id", resourceType, id)
	}
	recordSum := sha256.Sum256(body)

	res := slices.Grow(mapping.NewBody(), headLen+len(body)+metaSizeHint)
	res = append(res, headRecord...)
	res = hex.AppendEncode(res, recordSum[:digestLen/2])
	res = append(res, headETag...)
	etagAt := len(res)
	res = append(res, "0000000000000000"...)
	res = append(res, headResource...)
	res = append(res, body[:head]...)
	res = append(res, `,"meta":`...)
	etag := sha256.New()
	etag.Write(recordSum[:])
	res, tags, err := meta.appendJSON(res, etag)
	if err != nil {
		return Resource{}, fmt.Errorf("fhirmap: encode %s/%s meta: %w", resourceType, id, err)
	}
	res = append(res, body[head:]...) // the other members, if any, and the closing brace
	etag.Write(tags.sum[:])
	var sum [sha256.Size]byte
	hex.Encode(res[etagAt:etagAt+digestLen], etag.Sum(sum[:0])[:digestLen/2])
	res = append(res, '}')

	keys = pruneStringKeys(keys)
	keys.Add(KeyID, id)
	keys.Add(KeyLastUpdated, dateKey(meta.lastUpdated)) // the date of its instant
	return Resource{Type: resourceType, ID: id, Doc: store.Document{ID: id, Body: res, Keys: keys}}, nil
}

// startsWithTypeAndID reports whether resource JSON begins with its resourceType and id
// members, in that order, as the resource structs declare them.
func startsWithTypeAndID(body []byte, resourceType, id string) bool {
	b, ok := bytes.CutPrefix(body, []byte(`{"resourceType":"`))
	if ok {
		b, ok = cutString(b, resourceType)
	}
	if ok {
		b, ok = bytes.CutPrefix(b, []byte(`","id":"`))
	}
	if ok {
		b, ok = cutString(b, id)
	}
	return ok && len(b) > 0 && b[0] == '"'
}

func cutString(b []byte, s string) ([]byte, bool) {
	if len(b) < len(s) || string(b[:len(s)]) != s {
		return b, false
	}
	return b[len(s):], true
}

// metaSizeHint is about the length of a meta with its fourteen provenance tags, so that a
// stored document is written into one allocation.
const metaSizeHint = 2048

// Stored is a stored FHIR document's parts, sliced from its body.
type Stored struct {
	// Resource is the resource JSON as stored (provenance tag systems unspliced).
	Resource []byte
	// ETag is the digest of the resource, for an HTTP entity tag.
	ETag string
}

// Open slices a stored FHIR document body. It fails on a body that is not one.
func Open(body []byte) (Stored, error) {
	if len(body) < headLen+2 || !bytes.HasPrefix(body, []byte(headRecord)) || body[len(body)-1] != '}' ||
		string(body[headLen-len(headResource):headLen]) != headResource {
		return Stored{}, fmt.Errorf("fhirmap: not a stored FHIR document")
	}
	etag := body[len(headRecord)+digestLen+len(headETag) : len(headRecord)+digestLen+len(headETag)+digestLen]
	return Stored{Resource: body[headLen : len(body)-1], ETag: string(etag)}, nil
}

var tagMarker = []byte(`"` + TagSystemPrefix)

// markerRare is the offset in tagMarker of a byte that is rare in resource JSON: the 'v' of
// "provenance". The quote the marker starts with is the commonest byte of JSON, which made
// searching for the marker itself cost three times as much as this.
const markerRare = 8

// Splice appends resource to dst with every stored provenance tag system (TagSystemPrefix)
// replaced by tagBase, the configured "<fhir base>/provenance/". It allocates nothing beyond
// dst's growth and is a plain scan for a rare byte of the marker, so serving pays under a
// microsecond per resource.
func Splice(dst, resource []byte, tagBase string) []byte {
	done := 0 // resource[:done] is in dst
	for i := markerRare; i < len(resource); i++ {
		j := bytes.IndexByte(resource[i:], tagMarker[markerRare])
		if j < 0 {
			break
		}
		i += j
		// Every marker from done on has its rare byte at or after i, so the leftmost is found
		// first, as a search for the marker itself would.
		if at := i - markerRare; bytes.HasPrefix(resource[at:], tagMarker) {
			dst = append(dst, resource[done:at+1]...)
			dst = append(dst, tagBase...)
			done = at + len(tagMarker)
			i = done + markerRare - 1
		}
	}
	return append(dst, resource[done:]...)
}
