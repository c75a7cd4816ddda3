package fhir

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// JSON media types served. FHIR's own is preferred; plain JSON is echoed to a client that asks
// for it alone. XML and RDF are not served: a request for them gets 406.
const (
	ctFHIRJSON = ContentType
	ctJSON     = "application/json"
)

// negotiate picks the response media type from _format (which wins, as FHIR says) or Accept.
// ok is false when the client accepts nothing this server produces.
func negotiate(r *http.Request, format string) (ct string, ok bool) {
	if format != "" {
		switch format {
		case "json", ctFHIRJSON, ctJSON, "application/json+fhir":
			return ctFHIRJSON, true
		}
		return "", false
	}
	accept := r.Header.Get("Accept")
	if strings.TrimSpace(accept) == "" {
		return ctFHIRJSON, true
	}
	best, bestQ := "", -1.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if v, ok := params["fhirversion"]; ok && v != "4.0" && !strings.HasPrefix(v, "4.0.") {
			continue // another FHIR release
		}
		q := 1.0
		if qs, ok := params["q"]; ok {
			v, err := strconv.ParseFloat(qs, 64)
			if err != nil || v <= 0 {
				continue
			}
			q = v
		}
		var cand string
		switch mt {
		case ctFHIRJSON, "application/json+fhir", "*/*", "application/*":
			cand = ctFHIRJSON
		case ctJSON:
			cand = ctJSON
		default:
			continue
		}
		if q > bestQ || (q == bestQ && cand == ctFHIRJSON) {
			best, bestQ = cand, q
		}
	}
	return best, best != ""
}

// notAcceptable writes the 406 of a failed negotiation.
func notAcceptable(w http.ResponseWriter, r *http.Request) {
	Error(w, r, http.StatusNotAcceptable, "not_acceptable",
		"this server produces application/fhir+json and application/json (FHIR R4); set Accept or _format to one of them")
}
