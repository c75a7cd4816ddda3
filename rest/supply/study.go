package supply

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/internal/safetext"
	"providerdir/mapping/study"
	"providerdir/rest"
)

// studyRequest is what the by-state and by-county handlers share: the specialty of the path,
// the study selected by the subspecialty filter, and the serving snapshot it was read from.
type studyRequest struct {
	v  view
	sp study.Specialty
	st *study.Study
}

// filtered reports whether a subspecialty filter was applied.
func (q studyRequest) filtered() bool { return q.st.Filter != nil }

// specialtyOf resolves the {code} path variable, answering 404 specialty_not_found for a slug
// that is not registered.
func specialtyOf(w http.ResponseWriter, r *http.Request) (study.Specialty, bool) {
	slug := mux.Vars(r)["code"]
	sp, ok := study.Lookup(slug)
	if !ok {
		var slugs []string
		for _, s := range study.Specialties() {
			slugs = append(slugs, s.Slug)
		}
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeSpecialtyNotFound,
			"No registered specialty has the slug "+quote(slug)+".", map[string]any{"supported_specialties": slugs})
	}
	return sp, ok
}

// subspecialtyOf reads the optional subspecialty query parameter. A value the specialty does not
// register, empty included, is 400 invalid_subspecialty listing the supported codes (rule 4).
// Codes are compared in upper case, the case NUCC publishes them in.
func subspecialtyOf(w http.ResponseWriter, r *http.Request, sp study.Specialty) (code string, ok bool) {
	q := r.URL.Query()
	if !q.Has("subspecialty") {
		return "", true
	}
	raw := q.Get("subspecialty")
	code = strings.ToUpper(strings.TrimSpace(raw))
	if !sp.Supports(code) {
		rest.WriteV1Error(w, r, http.StatusBadRequest, CodeInvalidSubspecialty,
			"The subspecialty "+quote(raw)+" is not registered for "+sp.Slug+"; supported codes: "+strings.Join(sp.Codes, ", ")+".",
			map[string]any{"specialty": sp.Slug, "subspecialty": safetext.EchoEscaped(raw), "supported_codes": sp.Codes})
		return "", false
	}
	return code, true
}

// loadStudy reads the study of a specialty, filtered or not, from the serving snapshot. Without
// a computed study (no registry or Census figures loaded) it answers 404 specialty_not_found:
// the slug is registered but the snapshot has no data for it.
func (a *API) loadStudy(w http.ResponseWriter, r *http.Request, sp study.Specialty, code string) (studyRequest, bool) {
	ctx := r.Context()
	v, err := a.view(ctx)
	if err != nil {
		fail(w, r, "read the serving snapshot", err)
		return studyRequest{}, false
	}
	st, err := v.study(ctx, sp.Slug, code)
	if errors.Is(err, errNoStudy) {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeSpecialtyNotFound,
			"No supply study of "+sp.Slug+" is loaded: the registry or the Census figures have not been ingested.", nil)
		return studyRequest{}, false
	}
	if err != nil {
		fail(w, r, "read a study", err)
		return studyRequest{}, false
	}
	return studyRequest{v: v, sp: sp, st: st}, true
}

// filterMeta is meta.subspecialty_filter for a filtered study with matched records counted.
func filterMeta(st *study.Study, matched int64) any {
	if st.Filter == nil {
		return nil
	}
	return SubspecialtyFilter{AppliedCode: st.Filter.Code, DisplayName: st.Filter.DisplayName, MatchedRecordCount: matched}
}

// byState serves GET /v1/specialties/{code}/by-state: the 51 state rows of the study, or none
// when a subspecialty filter matches no provider.
func (a *API) byState(w http.ResponseWriter, r *http.Request) {
	sp, ok := specialtyOf(w, r)
	if !ok {
		return
	}
	code, ok := subspecialtyOf(w, r, sp)
	if !ok {
		return
	}
	q, ok := a.loadStudy(w, r, sp, code)
	if !ok {
		return
	}
	rows, err := a.encodedRows(q)
	if err != nil {
		fail(w, r, "by-state: encode the rows", err)
		return
	}
	meta, err := a.meta(r.Context(), r, q.v, studyFamilies, a.MethodologyURL(q.st.Dataset))
	if err != nil {
		fail(w, r, "by-state: read the manifests", err)
		return
	}
	meta.Pagination = wholeSet(len(q.st.Rows))
	if q.filtered() {
		meta.SubspecialtyFilter = filterMeta(q.st, q.st.National.ActiveProviders)
		if noMatch(q.st) {
			rows, meta.Pagination = json.RawMessage("[]"), wholeSet(0)
		}
	}
	rest.WriteV1Encoded(w, r, http.StatusOK, rows, meta)
}

// encodedRows returns the study's rows wrapped and encoded, once per generation: they are the
// same for every request, and encoding some 200 KB of provenance is most of a request's cost.
func (a *API) encodedRows(q studyRequest) (json.RawMessage, error) {
	key := q.v.Snap.Generation(catalog.SupplyStudies) + "/" + study.ID(q.st.Specialty, filterCode(q.st))
	if raw, ok := a.encoded.Get(key); ok {
		return raw, nil
	}
	wrap := a.rowWrapper(q.st)
	rows := make([]StateRow, len(q.st.Rows))
	for i, row := range q.st.Rows {
		rows[i] = wrap.wrap(row)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rows); err != nil {
		return nil, err
	}
	raw := json.RawMessage(bytes.TrimSpace(buf.Bytes()))
	a.encoded.Put(key, raw)
	return raw, nil
}

func filterCode(st *study.Study) string {
	if st.Filter == nil {
		return ""
	}
	return st.Filter.Code
}

// quote shows a client's value in a message, bounded so a long value cannot bloat the response.
func quote(s string) string {
	return strconv.Quote(safetext.Echo(s))
}
