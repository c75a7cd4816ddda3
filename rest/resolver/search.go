package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/match"
	"providerdir/rest"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
)

// Search paging: the default page size, the contract's cap (docs/contracts/resolver-api.md §8: a
// larger limit is served as MaxSearchLimit and echoed so), and the deepest page.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 100
	MaxSearchPage      = 50
	// MaxQueryLen bounds q in bytes; a name is far shorter.
	MaxQueryLen = 200
	// SearchCandidates is the most records one search ranks: when the query's keys select more,
	// the first SearchCandidates in NPI order are ranked and total still counts them all.
	SearchCandidates = 1000
)

// Search error codes, additions to docs/contracts/resolver-api.md §7 (which leaves search's
// parameter errors open): each a 400 naming the parameter.
const (
	CodeInvalidQuery    = "invalid_query"
	CodeInvalidState    = "invalid_state"
	CodeInvalidTaxonomy = "invalid_taxonomy"
	CodeInvalidLimit    = "invalid_limit"
	CodeInvalidPage     = "invalid_page"
)

// SearchResult answers GET /search (docs/contracts/resolver-api.md §2).
type SearchResult struct {
	Query   SearchQuery `json:"query"`
	Total   int         `json:"total"`
	Results []Candidate `json:"results"`
}

// SearchQuery echoes the query as served: limit is the page size used (capped), page the page.
// State and taxonomy are empty when the request gave none. Near is the ZIP code or
// "latitude,longitude" searched around and Radius the radius in miles used (capped), "" and 0
// without near.
type SearchQuery struct {
	Q        string
	State    string
	Taxonomy string
	Limit    int
	Page     int
	Near     string
	Radius   float64
	near     *records.Near
}

// MarshalJSON writes every field of the echo, state, taxonomy, near and radius as null when the
// request gave none, so a client finds the same keys in every answer.
func (q SearchQuery) MarshalJSON() ([]byte, error) {
	var radius *float64
	if q.Near != "" {
		radius = &q.Radius
	}
	return json.Marshal(struct {
		Q        string   `json:"q"`
		State    *string  `json:"state"`
		Taxonomy *string  `json:"taxonomy"`
		Limit    int      `json:"limit"`
		Page     int      `json:"page"`
		Near     *string  `json:"near"`
		Radius   *float64 `json:"radius"`
	}{q.Q, nullIfEmpty(q.State), nullIfEmpty(q.Taxonomy), q.Limit, q.Page, nullIfEmpty(q.Near), radius})
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Candidate is one ranked search result: the registry record's identity in brief, its
// _match_score for the query (package match), and the registry record's provenance.
type Candidate struct {
	NPI        string  `json:"npi"`
	Name       string  `json:"name"`
	EntityType string  `json:"entity_type"`
	Taxonomy   string  `json:"taxonomy,omitempty"`
	City       string  `json:"city,omitempty"`
	State      string  `json:"state,omitempty"`
	MatchScore float64 `json:"_match_score"`
	// DistanceMiles is the distance of the practice ZIP's ZCTA centroid from near, with near.
	DistanceMiles *float64 `json:"distance_miles,omitempty"`
	stored.Provenance
}

// searchRecord is the part of a registry record a search reads.
type searchRecord struct {
	NPI              string             `json:"npi"`
	EntityType       string             `json:"entity_type"`
	OrganizationName string             `json:"organization_name"`
	OtherName        string             `json:"other_name"`
	Name             *stored.PersonName `json:"name"`
	PrimaryTaxonomy  string             `json:"primary_taxonomy"`
	Taxonomies       []struct {
		Code string `json:"code"`
	} `json:"taxonomies"`
	PracticeAddress struct {
		City       string `json:"city"`
		State      string `json:"state"`
		PostalCode string `json:"postal_code"`
	} `json:"practice_address"`
}

// matches reports whether the record is in the query's state and holds its taxonomy (any of the
// record's, as the taxonomy key indexes them all).
func (r searchRecord) matches(sq SearchQuery) bool {
	if sq.State != "" && r.PracticeAddress.State != sq.State {
		return false
	}
	if sq.Taxonomy == "" {
		return true
	}
	for _, t := range r.Taxonomies {
		if t.Code == sq.Taxonomy {
			return true
		}
	}
	return false
}

// found is a registry record a search selected, decoded.
type found = stored.Body[searchRecord]

// search serves GET /search: the registry records whose names match every word of q (within
// the tolerance of package match), narrowed by state and taxonomy, ranked by _match_score
// (ties by NPI), one page of them.
func (a *API) search(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sq, tokens, code, msg := parseSearch(r)
	if code != "" {
		rest.ResolverError(w, r, http.StatusBadRequest, code, msg)
		return
	}
	v, err := a.records.Serving(ctx)
	if err != nil {
		fail(w, r, "search: read the serving snapshot", err)
		return
	}
	if v.Snap.Generation(catalog.RegistryProviders) == "" {
		unavailable(w, r, "The provider registry is not loaded; retry later.")
		return
	}
	if sq.near != nil && len(sq.near.ZIPs) == 0 {
		rest.WriteJSON(w, r, http.StatusOK, SearchResult{Query: sq, Results: []Candidate{}})
		return
	}
	if len(tokens) == 0 {
		page, total, err := nearest(ctx, v, sq)
		if err != nil {
			fail(w, r, "search", err)
			return
		}
		rest.WriteJSON(w, r, http.StatusOK, SearchResult{Query: sq, Total: total, Results: page})
		return
	}
	ranked, total, err := rank(ctx, a.records.Store(), v, sq, tokens, &a.words)
	if err != nil {
		fail(w, r, "search", err)
		return
	}
	from := min((sq.Page-1)*sq.Limit, len(ranked))
	to := min(from+sq.Limit, len(ranked))
	rest.WriteJSON(w, r, http.StatusOK, SearchResult{Query: sq, Total: total, Results: ranked[from:to]})
}

// parseSearch reads and checks the query parameters; a non-empty code is the error to answer.
func parseSearch(r *http.Request) (SearchQuery, []string, string, string) {
	p := r.URL.Query()
	sq := SearchQuery{Q: p.Get("q"), State: strings.ToUpper(p.Get("state")), Taxonomy: strings.ToUpper(p.Get("taxonomy")),
		Limit: DefaultSearchLimit, Page: 1}
	if len(sq.Q) > MaxQueryLen {
		return sq, nil, CodeInvalidQuery, "q is at most " + strconv.Itoa(MaxQueryLen) + " bytes."
	}
	if code, msg := parseNear(&sq, p.Get("near"), p.Get("radius")); code != "" {
		return sq, nil, code, msg
	}
	tokens := match.QueryTokens(sq.Q)
	switch {
	case sq.near != nil && strings.TrimSpace(sq.Q) == "":
		tokens = nil // a search by place alone
	case !slices.ContainsFunc(tokens, func(t string) bool { return len([]rune(t)) > 1 }):
		return sq, nil, CodeInvalidQuery, "q is a provider or organization name with at least one word of two or more letters (or give near to search by place)."
	case sq.State != "" && ident.ValidateState(sq.State) != nil:
		return sq, nil, CodeInvalidState, "state is a two-letter USPS code such as CA."
	case sq.Taxonomy != "" && ident.ValidateTaxonomy(sq.Taxonomy) != nil:
		return sq, nil, CodeInvalidTaxonomy, "taxonomy is a 10-character NUCC code such as 207R00000X."
	}
	if s := p.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return sq, nil, CodeInvalidLimit, "limit is a whole number of at least 1 (at most " + strconv.Itoa(MaxSearchLimit) + " are served)."
		}
		sq.Limit = min(n, MaxSearchLimit)
	}
	if s := p.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxSearchPage {
			return sq, nil, CodeInvalidPage, "page is a whole number from 1 to " + strconv.Itoa(MaxSearchPage) + "."
		}
		sq.Page = n
	}
	return sq, tokens, "", ""
}

// rank selects the candidates of a query and orders them by score. The query is read as typed
// and in its other readings (readings): adjacent words joined, a word no record holds split
// into two that records do; the candidates of every reading are ranked together, each scored
// by the reading that fits it best. Without a state, a reading first selects by its words
// paired with its other words' initials (pairConditions), and by its words alone only when no
// reading selects anything so. When nothing is selected, the words records hold
// are looked up within one edit too (a typo that made another name word); when that selects
// nothing and the query has several words, each word in turn is left out of the selection (a
// stray word, or a typo in a word under three letters), and the candidates of those selections
// are ranked together: the word left out still counts in the score. total is the number of
// records selected, each once (a reading's beyond its first SearchCandidates counted by the
// store).
func rank(ctx context.Context, st store.Store, v records.View, sq SearchQuery, tokens []string, words *records.Cache[bool]) ([]Candidate, int, error) {
	s := newSearcher(ctx, st, v, sq.State, words)
	rs, typed, err := s.readings(tokens)
	if err != nil {
		return nil, 0, err
	}
	// The passes, each run while nothing is selected: by the paired keys (without a state)
	// every reading, the tokens as typed last when another reading stands in for them (typed
	// false); then every reading by its words alone.
	type pass struct {
		paired   bool
		readings [][]string
	}
	passes := []pass{{true, rs}, {false, rs}}
	if !typed {
		passes = []pass{{true, rs[1:]}, {true, rs[:1]}, {false, rs}}
	}
	var sel selection
	for _, p := range passes {
		if sel.total > 0 || p.paired && sq.State != "" {
			continue
		}
		for _, reading := range p.readings {
			if err := s.collect(&sel, sq, reading, false, p.paired); err != nil {
				return nil, 0, err
			}
		}
	}
	if sel.total == 0 {
		if err := s.collect(&sel, sq, tokens, true, false); err != nil {
			return nil, 0, err
		}
	}
	selecting := tokens[:min(len(tokens), match.MaxQueryTokens)]
	if sel.total == 0 && len(selecting) > 1 {
		for i := range selecting {
			fewer := slices.Delete(slices.Clone(selecting), i, i+1)
			if !slices.ContainsFunc(fewer, func(t string) bool { return len([]rune(t)) > 1 }) {
				continue
			}
			if err := s.collect(&sel, sq, fewer, false, false); err != nil {
				return nil, 0, err
			}
		}
		sel.total = len(sel.recs)
	}
	out := make([]Candidate, 0, len(sel.recs))
	for _, b := range sel.recs {
		c := candidate(b.Record, b.Provenance, rs)
		if sq.near != nil {
			c.DistanceMiles = distance(sq.near, b.Record.PracticeAddress.PostalCode)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Candidate) int {
		if a.MatchScore != b.MatchScore {
			if a.MatchScore > b.MatchScore {
				return -1
			}
			return 1
		}
		return strings.Compare(a.NPI, b.NPI)
	})
	return out, sel.total, nil
}

// selection gathers the records the selections of one search read, each once, at most
// SearchCandidates of them, and their total.
type selection struct {
	recs  []found
	seen  map[string]bool
	total int
}

// add takes the records one selection read and the number it matched.
func (sel *selection) add(recs []found, total int) {
	if sel.seen == nil {
		sel.seen = map[string]bool{}
	}
	for _, b := range recs {
		if sel.seen[b.Record.NPI] {
			total--
			continue
		}
		sel.seen[b.Record.NPI] = true
		if len(sel.recs) < SearchCandidates {
			sel.recs = append(sel.recs, b)
		}
	}
	sel.total += max(total, 0)
}

// searcher answers the key lookups of one search: which words some record holds (cached, as
// the readings and the selections ask about the same words), and each word's condition.
type searcher struct {
	ctx   context.Context
	st    store.Store
	v     records.View
	state string
	words *records.Cache[bool]
	conds map[condKey]store.Condition
}

// condKey is a word's condition, exact or within one edit whether or not a record holds it.
type condKey struct {
	token string
	fuzzy bool
}

// newSearcher returns the searcher of one search. words caches which tokens records hold, per
// generation, from one search to the next (API.words).
func newSearcher(ctx context.Context, st store.Store, v records.View, state string, words *records.Cache[bool]) *searcher {
	return &searcher{ctx: ctx, st: st, v: v, state: state, words: words, conds: map[condKey]store.Condition{}}
}

// param is the token key the search reads: the state's with a state (match.InState).
func (s *searcher) param() string {
	if s.state != "" {
		return match.ParamStateToken
	}
	return match.ParamToken
}

func (s *searcher) qualify(vs []string) []string {
	if s.state != "" {
		return match.InState(s.state, vs)
	}
	return vs
}

// isWord reports whether some record (in the state, with one) holds t as a name token. The
// answer is the same for every search of a generation, and the readings of most queries ask
// about words others asked about (common name words, their joins and splits): it is cached.
func (s *searcher) isWord(t string) (bool, error) {
	gen, value := s.v.Snap.Generation(catalog.RegistryProviders), s.qualify([]string{t})[0]
	key := gen + "\x00" + s.param() + "\x00" + value
	if known, ok := s.words.Get(key); ok {
		return known, nil
	}
	page, err := s.st.Find(s.ctx, store.Query{Collection: catalog.RegistryProviders, Generation: gen,
		Limit: 1, BodiesOnly: true, Where: []store.Condition{{Param: s.param(), Values: []string{value}}}})
	if err != nil {
		return false, err
	}
	known := len(page.Docs) > 0
	s.words.Put(key, known)
	return known, nil
}

// maxJoined is the most adjacent query words a reading joins into one ("van der berg" is
// vanderberg).
const maxJoined = 3

// readings returns the ways of taking the query's tokens that some record's name words
// support: the tokens as typed first; then, for each run of two to maxJoined adjacent tokens
// whose joined form a record holds, the tokens with that run joined; and for each token no
// record holds, the tokens with it split in two where a record holds each part ("williammarwood"
// is william marwood). Only the first match.MaxQueryTokens tokens are read otherwise than typed.
// typed is false when another reading puts words records hold in place of one no record holds:
// the tokens as typed then select only when the other readings select nothing (rank).
func (s *searcher) readings(tokens []string) (out [][]string, typed bool, err error) {
	out, typed = [][]string{tokens}, true
	head := tokens[:min(len(tokens), match.MaxQueryTokens)]
	for i := range head {
		for n := 2; n <= maxJoined && i+n <= len(head); n++ {
			joined := strings.Join(head[i:i+n], "")
			if len(joined) > match.MaxTokenLen {
				break
			}
			ok, err := s.isWord(joined)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
			out = append(out, slices.Concat(tokens[:i], []string{joined}, tokens[i+n:]))
			for _, t := range head[i : i+n] {
				if known, err := s.isWord(t); err != nil {
					return nil, false, err
				} else if !known && len([]rune(t)) > 1 {
					typed = false
				}
			}
		}
	}
	for i, t := range head {
		parts, err := s.splits(t)
		if err != nil {
			return nil, false, err
		}
		for _, p := range parts {
			out = append(out, slices.Concat(tokens[:i], p[:], tokens[i+1:]))
			typed = false
		}
	}
	return out, typed, nil
}

// splits returns the ways of cutting token t, which no record holds, into two words that
// records hold, one of them long enough to tolerate a typo (a cut into two short words would
// find names by accident).
func (s *searcher) splits(t string) ([][2]string, error) {
	r := []rune(t)
	if len(r) < match.MinTypoLen+1 {
		return nil, nil
	}
	if known, err := s.isWord(t); err != nil || known {
		return nil, err
	}
	var out [][2]string
	for at := 1; at < len(r); at++ {
		a, b := string(r[:at]), string(r[at:])
		if max(at, len(r)-at) < match.MinTypoLen {
			continue
		}
		ok, err := s.isWord(a)
		if err == nil && ok {
			ok, err = s.isWord(b)
		}
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, [2]string{a, b})
		}
	}
	return out, nil
}

// collect selects the candidates of the tokens (their first match.MaxQueryTokens) into sel.
// fuzzy looks every word up within one edit, even one that records hold; paired selects by
// pairConditions, and nothing for tokens that have none.
func (s *searcher) collect(sel *selection, sq SearchQuery, tokens []string, fuzzy, paired bool) error {
	selecting := tokens[:min(len(tokens), match.MaxQueryTokens)]
	conds := make(map[string]store.Condition, len(selecting))
	for _, t := range selecting {
		c, err := s.condition(t, fuzzy)
		if err != nil {
			return err
		}
		conds[t] = c
	}
	if paired {
		var ok bool
		if conds, ok = pairConditions(selecting, conds); !ok {
			return nil
		}
	}
	recs, total, err := selectCandidates(s.ctx, s.st, s.v, sq, selecting, conds)
	if err != nil {
		return err
	}
	sel.add(recs, total)
	return nil
}

// pairConditions replaces the condition of each token that tolerates a typo, and whose values
// all do, by its match.ParamTokenInitial condition: any of its values paired with the initial
// of any value of another token's condition (a nickname, or a word within one edit when the
// typo is in the first letter, begins with another letter). A record matching every token meets
// it, and the store drives the selection from the shortest of these posting lists, a few dozen
// times shorter than the word's own. False when no token has one.
func pairConditions(tokens []string, conds map[string]store.Condition) (map[string]store.Condition, bool) {
	if len(tokens) < 2 {
		return nil, false
	}
	out := maps.Clone(conds)
	paired := false
	for i, t := range tokens {
		values := conds[t].Values
		if conds[t].Match == store.Prefix || !slices.ContainsFunc(values, match.InLexicon) || slices.ContainsFunc(values, func(v string) bool { return !match.InLexicon(v) }) {
			continue
		}
		var initials []string
		for j, o := range tokens {
			if j != i {
				initials = append(initials, match.Initials(conds[o].Values)...)
			}
		}
		initials = slices.Compact(slices.Sorted(slices.Values(initials)))
		c := store.Condition{Param: match.ParamTokenInitial}
		for _, v := range values {
			for _, in := range initials {
				c.Values = append(c.Values, match.InitialPair(v, in))
			}
		}
		out[t], paired = c, true
	}
	return out, paired
}

// condition is the store condition one query token selects by (match.Expand): a prefix of the
// name tokens for an initial; otherwise the token and its nicknames among the name tokens when
// some record holds the token as a name word (unless fuzzy), and else also the words of the name
// lexicon (generation words) within one edit of it: the lexicon's deletion keys also reach words
// two edits away (cdar and care share car), which no query word matches and which, common, would
// multiply the records read. With a state, every key is the state's
// (match.InState).
func (s *searcher) condition(t string, fuzzy bool) (store.Condition, error) {
	if c, ok := s.conds[condKey{t, fuzzy}]; ok {
		return c, nil
	}
	known := false
	if len([]rune(t)) > 1 && !fuzzy {
		var err error
		if known, err = s.isWord(t); err != nil {
			return store.Condition{}, err
		}
	}
	l := match.Expand(t, known)
	c := store.Condition{Param: s.param(), Values: s.qualify([]string{l.Prefix}), Match: store.Prefix}
	if l.Prefix == "" {
		tokens := l.Tokens
		if len(l.Deletions) > 0 {
			near, err := wordsNear(s.ctx, s.st, s.v.Snap.Generation(catalog.RegistryNameWords), l.Deletions)
			if err != nil {
				return store.Condition{}, err
			}
			for _, w := range near {
				if match.OneEdit(t, w) && !slices.Contains(tokens, w) {
					tokens = append(tokens, w)
				}
			}
		}
		c = store.Condition{Param: s.param(), Values: s.qualify(tokens)}
	}
	s.conds[condKey{t, fuzzy}] = c
	return c, nil
}

// selectCandidates reads up to SearchCandidates registry records matching every token (and the
// state and taxonomy), and the exact number matching. The store selects by the query's whole
// words (match.Selective), by the state's keys when a state is given, and the records read are
// checked for its initials and the taxonomy: a condition on a taxonomy would have the store
// walk its whole posting list. Only when that selects more than SearchCandidates records does
// the store apply every condition. conds holds each token's condition (searcher.condition).
// The records are read without their search keys, which the ranking never looks at.
func selectCandidates(ctx context.Context, st store.Store, v records.View, sq SearchQuery, tokens []string, conds map[string]store.Condition) ([]found, int, error) {
	q := store.Query{Collection: catalog.RegistryProviders, Generation: v.Snap.Generation(catalog.RegistryProviders),
		Limit: SearchCandidates, BodiesOnly: true}
	for _, t := range match.Selective(tokens) {
		q.Where = append(q.Where, conds[t])
	}
	if sq.near != nil {
		q.Where = append(q.Where, sq.near.Condition())
	}
	page, err := st.Find(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if page.Next != "" {
		q.Where = nil
		for _, t := range tokens {
			q.Where = append(q.Where, conds[t])
		}
		if sq.Taxonomy != "" {
			q.Where = append(q.Where, store.Condition{Param: stored.KeyTaxonomy, Values: []string{sq.Taxonomy}})
		}
		if sq.near != nil {
			q.Where = append(q.Where, sq.near.Condition())
		}
		if page, err = st.Find(ctx, q); err != nil {
			return nil, 0, err
		}
	}
	recs, err := decode(page.Docs, sq, tokens)
	if err != nil || page.Next == "" {
		return recs, len(recs), err
	}
	n, err := st.Count(ctx, q)
	return recs, int(n), err
}

// decode reads the selected records and keeps those in the query's state, holding its
// taxonomy, and matching every query word (match.Covers).
func decode(docs []store.Document, sq SearchQuery, tokens []string) ([]found, error) {
	out := make([]found, 0, len(docs))
	for _, d := range docs {
		b, err := stored.DecodeBody[searchRecord](d)
		if err != nil {
			return nil, fmt.Errorf("decode registry record %s: %w", d.ID, err)
		}
		if !b.Record.matches(sq) {
			continue
		}
		primary, other := b.Record.names()
		if match.Covers(tokens, primary) || other.Org != "" && match.Covers(tokens, other) {
			out = append(out, b)
		}
	}
	return out, nil
}

// maxWordsNear bounds the lexicon words one query token's typo tolerance selects by. A word
// of three letters has a few dozen neighbours at most; the bound keeps a pathological token
// from turning into thousands of posting lists.
const maxWordsNear = 200

// wordsNear returns the words of the name lexicon that have one of deletions (a query token and
// its deletions, match.Lookup) among their own: the record words within one edit of the token,
// the first maxWordsNear of them in word order. A registry ingested without a lexicon
// (generation "") has none, and its searches find no typos until its next monthly ingest.
func wordsNear(ctx context.Context, st store.Store, generation string, deletions []string) ([]string, error) {
	if generation == "" {
		return nil, nil
	}
	page, err := st.Find(ctx, store.Query{Collection: catalog.RegistryNameWords, Generation: generation, Limit: maxWordsNear, BodiesOnly: true,
		Where: []store.Condition{{Param: match.ParamDeletion, Values: deletions}}})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(page.Docs))
	for i, d := range page.Docs {
		out[i] = d.ID
	}
	return out, nil
}

// names are the record's names as package match scores them: a person's name, or an
// organization's name and its other name (Org empty when it has none).
func (r searchRecord) names() (primary, other match.Candidate) {
	if r.Name != nil {
		return match.Candidate{First: r.Name.First, Middle: r.Name.Middle, Last: r.Name.Last}, match.Candidate{}
	}
	return match.Candidate{Org: r.OrganizationName}, match.Candidate{Org: r.OtherName}
}

// candidate is the search result of one registry record, scored by the reading of the query
// that fits it best. An organization is found by its other name too, and scores by the better
// of its two names.
func candidate(rec searchRecord, prov stored.Provenance, readings [][]string) Candidate {
	c := Candidate{NPI: rec.NPI, EntityType: rec.EntityType, Taxonomy: rec.PrimaryTaxonomy,
		City: rec.PracticeAddress.City, State: rec.PracticeAddress.State, Provenance: prov}
	primary, other := rec.names()
	if rec.Name != nil {
		c.Name = strings.Join(slices.DeleteFunc([]string{rec.Name.First, rec.Name.Middle, rec.Name.Last}, func(s string) bool { return s == "" }), " ")
	} else {
		c.Name = rec.OrganizationName
	}
	for _, tokens := range readings {
		c.MatchScore = max(c.MatchScore, match.Score(tokens, primary))
		if other.Org != "" {
			c.MatchScore = max(c.MatchScore, match.Score(tokens, other))
		}
	}
	return c
}
