package fhir

import (
	"encoding/json"
	"net/http"
)

// Bundles and extensions this surface writes whole from structs (topic searches, $status,
// notifications), where a search Bundle is appended from stored bytes (bundle.go).

// ext is a FHIR extension with the value types this surface writes.
type ext struct {
	URL              string `json:"url"`
	ValueString      string `json:"valueString,omitempty"`
	ValueURI         string `json:"valueUri,omitempty"`
	ValueCanonical   string `json:"valueCanonical,omitempty"`
	ValueCode        string `json:"valueCode,omitempty"`
	ValueDate        string `json:"valueDate,omitempty"`
	ValueUnsignedInt *int   `json:"valueUnsignedInt,omitempty"`
	ValueMarkdown    string `json:"valueMarkdown,omitempty"`
	Extension        []ext  `json:"extension,omitempty"`
}

// bundleOut is a Bundle this surface writes whole (topic searches, $status, notifications).
type bundleOut struct {
	ResourceType string           `json:"resourceType"`
	ID           string           `json:"id,omitempty"`
	Meta         *metaOut         `json:"meta,omitempty"`
	Type         string           `json:"type"`
	Timestamp    string           `json:"timestamp,omitempty"`
	Total        *int             `json:"total,omitempty"`
	Link         []bundleLink     `json:"link,omitempty"`
	Entry        []bundleEntryOut `json:"entry,omitempty"`
}

type metaOut struct {
	Profile     []string `json:"profile,omitempty"`
	LastUpdated string   `json:"lastUpdated,omitempty"`
}

type bundleLink struct {
	Relation string `json:"relation"`
	URL      string `json:"url"`
}

type bundleEntryOut struct {
	FullURL  string         `json:"fullUrl,omitempty"`
	Resource any            `json:"resource,omitempty"`
	Search   *entrySearch   `json:"search,omitempty"`
	Request  *entryRequest  `json:"request,omitempty"`
	Response *entryResponse `json:"response,omitempty"`
}

type entrySearch struct {
	Mode string `json:"mode"`
}

type entryRequest struct {
	Method string `json:"method"`
	URL    string `json:"url"`
}

type entryResponse struct {
	Status string `json:"status"`
}

// writeJSON encodes v and writes it as a FHIR body.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, ct string, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.write(w, status, ct, body, r.URL.Query().Get("_pretty") == "true")
}
