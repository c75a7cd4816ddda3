package fhir

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"net/url"
	"strconv"
)

// pageToken is the state a next or previous link carries in its _cursor parameter. Links are
// stateless: the server keeps nothing between pages.
//
// The generation pins the snapshot the search started on, so that following links across a
// snapshot switch keeps paging the same result set (the previous generation is kept until the
// switch after next) and, once that generation is gone, the client gets a clear 410 instead of a
// silently different result set. The store cursor is the position (order value and id of the
// last or first resource of the page), so pages never skip or repeat a resource. The query hash
// refuses a token pasted onto another search; the total found on the first page is carried so
// that later pages need not count again.
type pageToken struct {
	Generation string `json:"g"`
	Cursor     string `json:"c"`
	Back       bool   `json:"b,omitempty"`
	Total      int64  `json:"t"`
	Query      string `json:"q"`
}

func (t pageToken) encode() string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodePageToken(s string) (pageToken, bool) {
	var t pageToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &t) != nil || t.Generation == "" || t.Cursor == "" {
		return pageToken{}, false
	}
	return t, true
}

// queryHash identifies a search by its parameters apart from _cursor and _count (a client may
// change the page size between pages).
func queryHash(resourceType string, canonical url.Values) string {
	v := url.Values{}
	for k, vs := range canonical {
		if k != "_count" {
			v[k] = vs
		}
	}
	h := fnv.New64a()
	h.Write([]byte(resourceType + "?" + v.Encode()))
	return strconv.FormatUint(h.Sum64(), 36)
}
