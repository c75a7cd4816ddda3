package fhir

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// maxFormBytes bounds a POST _search body.
const maxFormBytes = 1 << 20

// searchGET serves GET [base]/[type]?params.
func (s *Server) searchGET(w http.ResponseWriter, r *http.Request) {
	s.search(w, r, r.URL.Query())
}

// searchPOST serves POST [base]/[type]/_search with form-encoded parameters (and any in the
// URL), answering exactly as the GET with the same parameters.
func (s *Server) searchPOST(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-www-form-urlencoded" {
		Error(w, r, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"POST _search takes application/x-www-form-urlencoded parameters")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		Error(w, r, http.StatusBadRequest, "invalid", "the form body could not be read: "+clip(err.Error()))
		return
	}
	s.search(w, r, r.Form)
}

// result is one page of a search, ready to be written as a Bundle.
type result struct {
	typ      string
	tagGen   string // the generation of the tag sets of the snapshot the page was read from
	total    int64  // -1: not counted
	matches  []store.Document
	included []includedDoc
	self     string
	next     string
	prev     string
	warnings []Issue
	// arena holds the bodies of matches and included, read for this page only (store.Arena).
	arena *store.Arena
}

type includedDoc struct {
	typ string
	doc store.Document
}

func (s *Server) search(w http.ResponseWriter, r *http.Request, values url.Values) {
	typ := mux.Vars(r)["type"]
	ct, ok := negotiate(r, values.Get("_format"))
	if !ok {
		notAcceptable(w, r)
		return
	}
	g, ok := s.authorize(w, r, access{typ: typ, i: catalog.Search})
	if !ok {
		return
	}
	q, err := parseSearch(typ, s.base, values, lenient(r))
	if err != nil {
		writeParamError(w, r, err)
		return
	}
	if !permit(w, r, g, q.accesses()) {
		return
	}
	arena := newArena()
	defer releaseArena(arena)
	res, status, err := s.run(r.Context(), q, g, arena)
	switch {
	case err != nil && status == 0:
		s.fail(w, r, err)
		return
	case err != nil && status == http.StatusBadRequest:
		writeParamError(w, r, err)
		return
	case err != nil:
		Error(w, r, status, "", err.Error())
		return
	}
	body, err := s.bundle(r.Context(), res, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.write(w, http.StatusOK, ct, body, q.pretty)
	release(body)
}

// run executes a parsed search, reading the page's bodies into arena. A non-zero status goes
// with a client-facing error. Its steps: the snapshot and the page token, the store query, the
// total where it is known before the page, the page, then its links and includes.
func (s *Server) run(ctx context.Context, q *query, g Grant, arena *store.Arena) (*result, int, error) {
	v, err := s.serving(ctx)
	if err != nil {
		return nil, 0, err
	}
	coll := catalog.FHIRCollection(q.typ)
	hash := queryHash(q.typ, q.canonical)
	v, tok, status, err := pageStart(v, q.cursor, coll, hash)
	if err != nil {
		return nil, status, err
	}
	res := &result{typ: q.typ, tagGen: v.gens[catalog.FHIRTags], total: -1, warnings: slices.Clone(q.warnings), arena: arena}

	where, probes, empty, status, err := s.conditions(ctx, v, q, g)
	if err != nil {
		return nil, status, err
	}
	sq := searchQuery(q, v.gen(q.typ), coll, where, probes, arena)
	if sq.Generation == "" {
		empty = true // nothing ingested yet
	}
	noPage := q.summary == "count" || q.count == 0
	counted, err := s.countsMatches(q, probes, empty, noPage)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	if err := s.knownTotal(ctx, res, sq, tok, counted, empty, noPage); err != nil {
		return nil, 0, err
	}
	res.self = s.selfLink(q)
	if empty || noPage {
		return res, 0, nil
	}

	byDistance := q.byDistance && len(probes) == 0
	page, status, err := s.readPage(ctx, q, &sq, tok, probes, byDistance, res)
	if err != nil {
		return nil, status, err
	}
	res.matches = page.Docs
	if counted && res.total < 0 {
		if res.total, err = s.total(ctx, sq, page); err != nil {
			return nil, 0, err
		}
	}
	next := pageToken{Generation: v.gen(q.typ), Total: res.total, Query: hash}
	if byDistance {
		// forward only: a distance page starts where the one before ended
		if page.Next != "" {
			next.Cursor = page.Next
			res.next = s.link(q.typ, withParam(q.canonical, "_cursor", next.encode()))
		}
	} else {
		s.pageLinks(res, q, tok, next, sq.OrderBy, page.Next)
	}
	if err := s.addIncludes(ctx, v, q, g, res); err != nil {
		return nil, 0, err
	}
	return res, 0, nil
}

// searchQuery is the store query of a search's conditions in generation gen of coll, its
// bodies read into arena.
func searchQuery(q *query, gen, coll string, where []store.Condition, probes []chainProbe, arena *store.Arena) store.Query {
	sq := store.Query{Collection: coll, Generation: gen, Where: where, Limit: max(q.count, 1), Arena: arena}
	if q.sort != "" {
		sq.OrderBy = fhirmap.KeyLastUpdated
	}
	sq.KeysOf = pageKeys(q, probes)
	sq.BodiesOnly = len(sq.KeysOf) == 0
	return sq
}

// countsMatches says whether a search counts its matches: unless _total=none, and always when
// it reads no page (noPage). The matches of chain probes are known only by reading them, so
// only a first page that is the last one counts them (readPage), and a search with probes that
// needs a count otherwise is refused (a 400).
func (s *Server) countsMatches(q *query, probes []chainProbe, empty, noPage bool) (bool, error) {
	counted := q.total != "none" || noPage
	if len(probes) == 0 || empty {
		return counted, nil
	}
	switch {
	case q.summary == "count":
		return false, probeRefusal(probes[0], s.maxChain, "_summary=count")
	case noPage:
		return false, probeRefusal(probes[0], s.maxChain, "_count=0")
	case q.total == "accurate":
		return false, probeRefusal(probes[0], s.maxChain, "_total=accurate")
	}
	return false, nil
}

// knownTotal sets res.total where it is known before a page is read: none for a search that
// counts nothing, 0 for one with nothing to search, the cursor's on a later page, and the
// count of a search that reads no page.
func (s *Server) knownTotal(ctx context.Context, res *result, sq store.Query, tok pageToken, counted, empty, noPage bool) error {
	var err error
	switch {
	case !counted:
	case empty:
		res.total = 0
	case tok.Cursor != "" && tok.Total >= 0:
		res.total = tok.Total
	case noPage:
		res.total, err = s.counts.count(ctx, s.st, sq)
	}
	return err
}

// selfLink is the Bundle's self link: the search as the server read it, with its cursor.
func (s *Server) selfLink(q *query) string {
	values := q.canonical
	if q.cursor != "" {
		values = withParam(q.canonical, "_cursor", q.cursor)
	}
	return s.link(q.typ, values)
}

// readPage reads the page the token points at, in the search's direction: nearest first when
// byDistance (forward only), through the chain probes when there are any, else straight from
// the store. A search sorted by distance whose chain probes prevent it warns that its results
// come by id; a probed page warns when its probes ran short, and a first page that is the last
// one gives the total. A non-zero status goes with a client-facing error.
func (s *Server) readPage(ctx context.Context, q *query, sq *store.Query, tok pageToken, probes []chainProbe, byDistance bool, res *result) (store.Page, int, error) {
	sq.Descending = q.desc != tok.Back
	sq.After = tok.Cursor
	if q.byDistance && !byDistance {
		res.warnings = append(res.warnings, warning("informational", "a chained parameter matches too many resources to sort by distance: the results come by id"))
	}
	switch {
	case byDistance && tok.Back:
		return store.Page{}, http.StatusBadRequest, invalid("_cursor", "not a cursor of this search; follow the Bundle's links")
	case byDistance:
		page, err := s.nearPage(ctx, q.typ, *sq, tok.Cursor)
		if pe, ok := err.(*paramError); ok {
			return page, http.StatusBadRequest, pe
		}
		return page, 0, err
	case len(probes) == 0:
		page, err := s.find(ctx, q.typ, *sq)
		return page, 0, err
	}
	page, short, err := s.probePage(ctx, q.typ, *sq, probes)
	if short {
		res.warnings = append(res.warnings, probeShortWarning(probes, probeFactor*s.maxChain))
	}
	if q.total != "none" && tok.Cursor == "" && page.Next == "" {
		res.total = int64(len(page.Docs))
	}
	return page, 0, err
}

// pageKeys are the params of the keys a search reads its matches with: the references its
// includes follow, its sort's order value (for the page links) and the references its chain
// probes check. A page that needs none serves the matches' bodies alone.
func pageKeys(q *query, probes []chainProbe) []string {
	var params []string
	add := func(p string) {
		if !slices.Contains(params, p) {
			params = append(params, p)
		}
	}
	for _, inc := range q.includes {
		add(inc.key)
	}
	if q.sort != "" {
		add(fhirmap.KeyLastUpdated)
	}
	for _, p := range probes {
		add(p.c.key)
	}
	return params
}

// pageStart reads a search's _cursor: the view to page through (the snapshot the search began
// on, which may be the previous one) and the page token. A cursor of another search or server is
// 400; one of a snapshot no longer served is 410.
func pageStart(v view, cursor, coll, hash string) (view, pageToken, int, error) {
	if cursor == "" {
		return v, pageToken{}, 0, nil
	}
	tok, ok := decodePageToken(cursor)
	switch {
	case !ok:
		return v, tok, http.StatusBadRequest, invalid("_cursor", "not a cursor of this server; follow the Bundle's links")
	case tok.Query != hash:
		return v, tok, http.StatusBadRequest, invalid("_cursor", "the cursor belongs to another search; follow the Bundle's links")
	case tok.Generation == v.gens[coll]:
		return v, tok, 0, nil
	case tok.Generation == v.prev[coll]:
		return view{gens: v.prev}, tok, 0, nil // page on through the snapshot the search started on
	}
	return v, tok, http.StatusGone, fmt.Errorf("the snapshot this search was paging through has been replaced; run the search again")
}

// conditions are a search's store conditions: its own, the sandbox's for a sandbox grant, and
// those its _tag and chained parameters resolve to; probes are the chained parameters that match
// too many resources to resolve, checked per candidate instead (probe.go). empty is true when
// one of those can match nothing, so the search has no match without asking the store.
func (s *Server) conditions(ctx context.Context, v view, q *query, g Grant) (where []store.Condition, probes []chainProbe, empty bool, status int, err error) {
	if where, err = s.narrowNames(ctx, v.gen(q.typ), catalog.FHIRCollection(q.typ), q.where); err != nil {
		return nil, nil, false, 0, err
	}
	where = slices.Clone(where)
	if g.Sandboxed() {
		where = append(where, sandboxCond)
	}
	add := func(cond *store.Condition) bool {
		if cond == nil {
			empty = true
			return false
		}
		where = append(where, *cond)
		return true
	}
	for _, t := range q.tags {
		cond, err := s.tagCondition(ctx, v, t)
		if err != nil {
			return nil, nil, false, 0, err
		}
		if !add(cond) {
			break
		}
	}
	for _, c := range q.chains {
		cond, probe, err := s.resolveChain(ctx, v, q.typ, c, g.Sandboxed())
		if _, ok := err.(*paramError); ok {
			return nil, nil, false, http.StatusBadRequest, err
		}
		if err != nil {
			return nil, nil, false, 0, err
		}
		if probe != nil {
			probes = append(probes, *probe)
			continue
		}
		if !add(cond) {
			break
		}
	}
	if q.near != nil {
		// last, where nearPage finds it
		cond, err := nearCondition(q.near)
		if err != nil {
			return nil, nil, false, 0, err
		}
		add(cond)
	}
	return where, probes, q.empty || empty, 0, nil
}

// pageLinks sets a page's next and previous links. next is the token of the links, the store
// cursor and direction set per link; storeNext is where the store says the page ended.
func (s *Server) pageLinks(res *result, q *query, tok, next pageToken, orderBy, storeNext string) {
	mk := func(cursor string, back bool) string {
		t := next
		t.Cursor, t.Back = cursor, back
		return s.link(q.typ, withParam(q.canonical, "_cursor", t.encode()))
	}
	if tok.Back {
		slices.Reverse(res.matches)
		// Came back from a later page: there is always a next one.
		if n := len(res.matches); n > 0 {
			res.next = mk(cursorOf(res.matches[n-1], orderBy), false)
		}
		if storeNext != "" {
			res.prev = mk(storeNext, true)
		}
		return
	}
	if storeNext != "" {
		res.next = mk(storeNext, false)
	}
	if tok.Cursor != "" && len(res.matches) > 0 {
		res.prev = mk(cursorOf(res.matches[0], orderBy), true)
	}
}

// total counts a search's matches. A first page with no next page holds them all, so the
// common lookups (an NPI, a CCN) answer from the page instead of probing the index twice.
func (s *Server) total(ctx context.Context, sq store.Query, first store.Page) (int64, error) {
	if sq.After == "" && first.Next == "" {
		return int64(len(first.Docs)), nil
	}
	return s.counts.count(ctx, s.st, sq)
}

var sandboxCond = store.Condition{Param: fhirmap.KeySandbox, Values: []string{"1"}, Match: store.Exact}

// cursorOf is the store cursor positioned at d, for the order the query uses.
func cursorOf(d store.Document, orderBy string) string {
	c := store.Cursor{ID: d.ID}
	if orderBy != "" {
		c.Value, _ = store.SmallestValue(d.Keys, orderBy)
	}
	return c.Encode()
}

// resolveChain turns a chained or reverse-chained parameter into a condition on the searched
// type: the ids the inner search found. nil means nothing matched. When the inner search
// matches more than maxChain resources, the parameter is a probe instead (probe.go).
func (s *Server) resolveChain(ctx context.Context, v view, typ string, c chain, sandbox bool) (*store.Condition, *chainProbe, error) {
	gen := v.gen(c.other)
	if gen == "" {
		return nil, nil, nil
	}
	where, err := s.narrowNames(ctx, gen, catalog.FHIRCollection(c.other), []store.Condition{c.cond})
	if err != nil {
		return nil, nil, err
	}
	if sandbox {
		where = append(where, sandboxCond)
	}
	page, err := s.find(ctx, c.other, store.Query{Collection: catalog.FHIRCollection(c.other), Generation: gen, Where: where, Limit: s.maxChain})
	if err != nil {
		return nil, nil, err
	}
	if page.Next != "" {
		return nil, &chainProbe{c: c, gen: gen, where: where}, nil
	}
	var vals []string
	if !c.reverse {
		for _, d := range page.Docs {
			vals = append(vals, fhirmap.Ref(c.other, d.ID))
		}
		if len(vals) == 0 {
			return nil, nil, nil
		}
		return &store.Condition{Param: c.key, Values: vals, Match: store.Exact}, nil, nil
	}
	prefix := typ + "/"
	for _, d := range page.Docs {
		for _, k := range d.Keys {
			if k.Param == c.key && strings.HasPrefix(k.Value, prefix) && !slices.Contains(vals, k.Value[len(prefix):]) {
				vals = append(vals, k.Value[len(prefix):])
			}
		}
	}
	if len(vals) == 0 {
		return nil, nil, nil
	}
	return &store.Condition{Param: fhirmap.KeyID, Values: vals, Match: store.Exact}, nil, nil
}

// link is an absolute search URL of this server.
func (s *Server) link(typ string, values url.Values) string {
	if len(values) == 0 {
		return s.base + "/" + typ
	}
	return s.base + "/" + typ + "?" + values.Encode()
}

func withParam(v url.Values, name, value string) url.Values {
	out := make(url.Values, len(v)+1)
	for k, vs := range v {
		out[k] = vs
	}
	out[name] = []string{value}
	return out
}
