package fhir

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// readParams are the parameters a read accepts.
var readParams = []string{"_format", "_pretty", "_elements", "_summary"}

// read serves GET [base]/[type]/[id]: the stored resource as it is, with its entity tag and
// last-modified date, 304 for a matching If-None-Match (or an unchanged If-Modified-Since), 410
// for a resource the previous snapshot had and the serving one no longer has, 404 otherwise.
//
// It serves vread, GET [base]/[type]/[id]/_history/[vid], too. The directory holds one version
// of each resource, the one its sources give today, whose versionId is its entity tag: a vread
// of that version is the read, and of any other version a 404 that names the version held.
func (s *Server) read(w http.ResponseWriter, r *http.Request) {
	typ, id := mux.Vars(r)["type"], mux.Vars(r)["id"]
	vid, vread := mux.Vars(r)["vid"]
	values := r.URL.Query()
	ct, ok := negotiate(r, values.Get("_format"))
	if !ok {
		notAcceptable(w, r)
		return
	}
	g, ok := s.authorize(w, r, access{typ: typ, i: catalog.Read})
	if !ok {
		return
	}
	shape, err := parseShape(typ, values, readParams, lenient(r))
	if err != nil {
		writeParamError(w, r, err)
		return
	}
	v, err := s.serving(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	gen := v.gen(typ)
	if gen == "" { // nothing of the type ingested yet: no resource can be there
		s.notFound(w, r, v, typ, id, g.Sandboxed())
		return
	}
	doc, err := s.st.Get(r.Context(), gen, catalog.FHIRCollection(typ), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && g.Sandboxed() && !hasKey(doc, fhirmap.KeySandbox, "1")) {
		s.notFound(w, r, v, typ, id, g.Sandboxed())
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	stored, err := fhirmap.Open(doc.Body)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if vread && vid != stored.ETag {
		Error(w, r, http.StatusNotFound, "not_found", "version "+vid+" of "+typ+"/"+id+" is not held: the directory serves only the current version, "+stored.ETag)
		return
	}
	etag := `W/"` + stored.ETag + `"`
	h := w.Header()
	h.Set("ETag", etag)
	modified, hasModified := lastModified(doc)
	if hasModified {
		h.Set("Last-Modified", modified.Format(http.TimeFormat))
	}
	if notModified(r, etag, modified, hasModified) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, err := s.tags.served(r.Context(), newBody(len(stored.Resource)+servedExtra), v.gens[catalog.FHIRTags], stored)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release(body)
	if shape.subsetting() {
		if body, err = shape.apply(typ, body); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	s.write(w, http.StatusOK, ct, body, shape.pretty)
}

// notFound answers a read of an id the serving snapshot lacks: 410 when the previous snapshot
// had it (removed by the last ingest), else 404. A sandbox grant gets 404 for resources outside
// the sandbox subset, whatever their fate.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, v view, typ, id string, sandbox bool) {
	coll := catalog.FHIRCollection(typ)
	if prev := v.prev[coll]; prev != "" && prev != v.gens[coll] {
		if doc, err := s.st.Get(r.Context(), prev, coll, id); err == nil && (!sandbox || hasKey(doc, fhirmap.KeySandbox, "1")) {
			Error(w, r, http.StatusGone, "gone", typ+"/"+id+" was removed from the directory by the latest source snapshot")
			return
		}
	}
	msg := "no " + typ + "/" + id
	if sandbox {
		msg += " in the sandbox subset"
	}
	Error(w, r, http.StatusNotFound, "not_found", msg)
}

// lastModified is the date the resource's source record last changed, from its search key.
func lastModified(d store.Document) (time.Time, bool) {
	for _, k := range d.Keys {
		if k.Param == fhirmap.KeyLastUpdated {
			t, err := time.Parse("2006-01-02", k.Value)
			return t, err == nil
		}
	}
	return time.Time{}, false
}

// notModified evaluates the conditional headers: If-None-Match (weak comparison, as RFC 9110
// has it for GET) and, without it, If-Modified-Since.
func notModified(r *http.Request, etag string, modified time.Time, hasModified bool) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/") {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && hasModified {
		t, err := http.ParseTime(ims)
		return err == nil && !modified.After(t)
	}
	return false
}

func hasKey(d store.Document, param, value string) bool {
	return slices.Contains(d.Keys, store.Key{Param: param, Value: value})
}

// lenient reports whether a request's unknown and malformed parameters are ignored rather than
// refused. R4 says a server SHOULD ignore parameters it does not understand, and clients such as
// fhirpy send their own (_totalMethod), so ignoring is the default; Prefer: handling=strict asks
// for a 400 instead.
func lenient(r *http.Request) bool { return handling(r) != "strict" }

// handling returns the request's handling preference (RFC 7240, FHIR's Prefer: handling),
// lower-cased: "strict", "lenient", or "" when it states none. The first one given counts.
func handling(r *http.Request) string {
	for _, p := range r.Header.Values("Prefer") {
		for _, part := range strings.Split(p, ",") {
			pref, _, _ := strings.Cut(part, ";") // a preference's own parameters do not matter here
			name, value, _ := strings.Cut(strings.ReplaceAll(strings.TrimSpace(pref), " ", ""), "=")
			if strings.EqualFold(name, "handling") {
				return strings.ToLower(strings.Trim(value, `"`))
			}
		}
	}
	return ""
}
