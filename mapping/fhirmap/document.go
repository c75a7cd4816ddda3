package fhirmap

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"

	"providerdir/store"
	"providerdir/stored"
)

// The stored body of a FHIR document is
//
//	{"record":"<16 hex>","etag":"<16 hex>","tags":"<16 hex>","tagAt":"<8 hex>","resource":<JSON>}
//
// with a fixed-length head, so that serving it is slicing, not decoding. "resource" is the
// resource JSON without its meta.tag: "tags" names the resource's TagSet in catalog.FHIRTags, and
// "tagAt" is the offset in the resource JSON of the closing brace of its meta, where the served
// resource has the tags (Stored.AppendServed). "record" digests the resource without its meta:
// ingest's change sets compare the record member, so a resource whose only change is a fresh
// provenance stamp (a new snapshot date, _last_checked) is not reported as changed. "etag" is
// the HTTP entity tag the resource is served with: a digest of the record digest, the meta's own
// members and the digest of its tag set, so it changes whenever the served resource does,
// without hashing the resource a second time or the same tags for every resource.
const (
	headRecord   = `{"record":"`
	headETag     = `","etag":"`
	headTags     = `","tags":"`
	headTagAt    = `","tagAt":"`
	headResource = `","resource":`
	digestLen    = 16
	offsetLen    = 8
	headLen      = len(headRecord) + digestLen + len(headETag) + digestLen + len(headTags) + digestLen +
		len(headTagAt) + offsetLen + len(headResource)
)

// Resource is one built resource: its type and id, the stored document, and the tag set the
// document names, which the snapshot must hold in catalog.FHIRTags.
type Resource struct {
	Type string
	ID   string
	Doc  store.Document
	Tags *TagSet
}

// encode marshals a resource whose Meta is set aside into the stored document. content is the
// resource with a nil Meta; meta is spliced in after "id" so that the served JSON reads
// resourceType, id, meta, then the rest. The document's body is drawn from the pool of
// bodies (stored.NewBody).
func encode(resourceType, id string, content any, meta resourceMeta, keys stored.Keys) (Resource, error) {
	body, err := stored.AppendJSON(stored.NewBody(), content)
	defer func() { stored.Recycle(body) }()
	if err != nil {
		return Resource{}, fmt.Errorf("fhirmap: encode %s/%s: %w", resourceType, id, err)
	}
	head := len(`{"resourceType":"`) + len(resourceType) + len(`","id":"`) + len(id) + len(`"`)
	if !startsWithTypeAndID(body, resourceType, id) {
		return Resource{}, fmt.Errorf("fhirmap: %s/%s does not start with its type and id", resourceType, id)
	}
	tags, err := tagsOf(meta.prov)
	if err != nil {
		return Resource{}, fmt.Errorf("fhirmap: encode %s/%s tags: %w", resourceType, id, err)
	}
	recordSum := sha256.Sum256(body)

	res := slices.Grow(stored.NewBody(), headLen+len(body)+metaSizeHint)
	res = append(res, headRecord...)
	res = hex.AppendEncode(res, recordSum[:digestLen/2])
	res = append(res, headETag...)
	etagAt := len(res)
	res = append(res, "0000000000000000"...)
	res = append(res, headTags...)
	res = append(res, tags.id...)
	res = append(res, headTagAt...)
	tagAtAt := len(res)
	res = append(res, "00000000"...)
	res = append(res, headResource...)
	start := len(res)
	res = append(res, body[:head]...)
	res = append(res, `,"meta":`...)
	own := len(res)
	if res, err = meta.appendMembers(res); err != nil {
		return Resource{}, fmt.Errorf("fhirmap: encode %s/%s meta: %w", resourceType, id, err)
	}
	var at [offsetLen / 2]byte
	binary.BigEndian.PutUint32(at[:], uint32(len(res)-1-start))
	hex.Encode(res[tagAtAt:tagAtAt+offsetLen], at[:])
	etag := sha256.New()
	etag.Write(recordSum[:])
	etag.Write(res[own:])
	etag.Write(tags.sum[:])
	res = append(res, body[head:]...) // the other members, if any, and the closing brace
	var sum [sha256.Size]byte
	hex.Encode(res[etagAt:etagAt+digestLen], etag.Sum(sum[:0])[:digestLen/2])
	res = append(res, '}')

	keys = pruneStringKeys(keys)
	if resourceType == TypePractitioner {
		keys = addNameStarts(keys)
	}
	keys.Add(KeyID, id)
	keys.Add(KeyLastUpdated, dateKey(meta.lastUpdated)) // the date of its instant
	keys.Add(KeyTag, tags.id)
	if meta.planNet {
		keys.Add(KeyProfile, PlanNetProfiles[resourceType])
	}
	return Resource{Type: resourceType, ID: id, Doc: store.Document{ID: id, Body: res, Keys: keys}, Tags: tags}, nil
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

// metaSizeHint is about the length of a meta's own members, so that a stored document is
// written into one allocation.
const metaSizeHint = 256

// Stored is a stored FHIR document's parts, sliced from its body.
type Stored struct {
	// Resource is the resource JSON as stored, without its meta.tag.
	Resource []byte
	// ETag is the digest of the served resource, for an HTTP entity tag.
	ETag string
	// Tags is the id of the resource's tag set in catalog.FHIRTags.
	Tags string
	// metaAt is the offset in Resource just after the opening brace of the meta, tagAt that of
	// its closing brace.
	metaAt, tagAt int
}

// metaOpen is what precedes the members of a stored resource's meta: the meta follows the
// resource's type and id (encode), neither of which can hold a quote, so the first occurrence
// is the meta's.
const metaOpen = `,"meta":{`

// Open slices a stored FHIR document body. It fails on a body that is not one, such as one
// stored in an earlier format, which a new ingest replaces.
func Open(body []byte) (Stored, error) {
	if len(body) < headLen+2 || !bytes.HasPrefix(body, []byte(headRecord)) || body[len(body)-1] != '}' ||
		string(body[headLen-len(headResource):headLen]) != headResource {
		return Stored{}, fmt.Errorf("fhirmap: not a stored FHIR document of this version (ingest again to rebuild it)")
	}
	field := func(at, n int) []byte { return body[at : at+n] }
	etagAt := len(headRecord) + digestLen + len(headETag)
	tagsAt := etagAt + digestLen + len(headTags)
	offsetAt := tagsAt + digestLen + len(headTagAt)
	var at [offsetLen / 2]byte
	if _, err := hex.Decode(at[:], field(offsetAt, offsetLen)); err != nil {
		return Stored{}, fmt.Errorf("fhirmap: stored FHIR document: bad tag offset")
	}
	st := Stored{Resource: body[headLen : len(body)-1], ETag: string(field(etagAt, digestLen)),
		Tags: string(field(tagsAt, digestLen)), tagAt: int(binary.BigEndian.Uint32(at[:]))}
	if st.tagAt < 1 || st.tagAt >= len(st.Resource) || st.Resource[st.tagAt] != '}' {
		return Stored{}, fmt.Errorf("fhirmap: stored FHIR document: tag offset %d is not the end of its meta", st.tagAt)
	}
	if st.metaAt = bytes.Index(st.Resource[:st.tagAt], []byte(metaOpen)) + len(metaOpen); st.metaAt < len(metaOpen) {
		return Stored{}, fmt.Errorf("fhirmap: stored FHIR document: no meta before the tag offset")
	}
	return st, nil
}

// AppendServed appends the resource as served to dst: the stored resource with its entity tag
// as the first member of its meta, meta.versionId (the directory holds one version of a
// resource, and its version changes exactly when its entity tag does), and a tag set as
// RenderTags gives it as the last.
func (s Stored) AppendServed(dst, tags []byte) []byte {
	dst = append(dst, s.Resource[:s.metaAt]...)
	dst = append(dst, `"versionId":"`...)
	dst = append(dst, s.ETag...)
	dst = append(dst, '"')
	if s.metaAt != s.tagAt {
		dst = append(dst, ',')
		dst = append(dst, s.Resource[s.metaAt:s.tagAt]...)
	}
	if len(tags) > 0 {
		dst = append(dst, ',')
		dst = append(dst, tags...)
	}
	return append(dst, s.Resource[s.tagAt:]...)
}
