package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/mapping"
	"providerdir/match"
	"providerdir/rest"
	"providerdir/rest/internal/records"
	"providerdir/store"
)

// Search paging: the default page size, the contract's cap (seeds/001 section 8: a larger limit
// is served as MaxSearchLimit and echoed so), and the deepest page.
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

// Search error codes, additions to seeds/001 section 7 (which leaves search's parameter errors
// open): each a 400 naming the parameter.
const (
	CodeInvalidQuery    = "invalid_query"
	CodeInvalidState    = "invalid_state"
	CodeInvalidTaxonomy = "invalid_taxonomy"
	CodeInvalidLimit    = "invalid_limit"
	CodeInvalidPage     = "invalid_page"
)

// SearchResult answers GET /search (seeds/001 section 2).
type SearchResult struct {
	Query   SearchQuery `json:"query"`
	Total   int         `json:"total"`
	Results []Candidate `json:"results"`
}

// SearchQuery echoes the query as served: limit is the page size used (capped), page the page.
// State and taxonomy are empty when the request gave none.
type SearchQuery struct {
	Q        string
	State    string
	Taxonomy string
	Limit    int
	Page     int
}

// MarshalJSON writes every field of the echo, state and taxonomy as null when the request gave
// none, so a client finds the same keys in every answer.
func (q SearchQuery) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Q        string  `json:"q"`
		State    *string `json:"state"`
		Taxonomy *string `json:"taxonomy"`
		Limit    int     `json:"limit"`
		Page     int     `json:"page"`
	}{q.Q, nullIfEmpty(q.State), nullIfEmpty(q.Taxonomy), q.Limit, q.Page})
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
	mapping.Provenance
}

// searchRecord is the part of a registry record a search reads.
type searchRecord struct {
	NPI              string              `json:"npi"`
	EntityType       string              `json:"entity_type"`
	OrganizationName string              `json:"organization_name"`
	OtherName        string              `json:"other_name"`
	Name             *mapping.PersonName `json:"name"`
	PrimaryTaxonomy  string              `json:"primary_taxonomy"`
	Taxonomies       []struct {
		Code string `json:"code"`
	} `json:"taxonomies"`
	PracticeAddress struct {
		City  string `json:"city"`
		State string `json:"state"`
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
type found = mapping.Body[searchRecord]

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
	ranked, total, err := rank(ctx, a.records.Store(), v, sq, tokens)
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
	tokens := match.QueryTokens(sq.Q)
	switch {
	case !slices.ContainsFunc(tokens, func(t string) bool { return len([]rune(t)) > 1 }):
		return sq, nil, CodeInvalidQuery, "q is a provider or organization name with at least one word of two or more letters."
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

// rank selects the candidates of a query and orders them by score. When no record matches every
// word of a query of several words, each word in turn is left out of the selection (a stray
// word, or a typo the keys cannot find: one without a state, or in a word under three letters),
// and the candidates of those selections are ranked together: the word left out still counts
// in the score. total is the exact number selected.
func rank(ctx context.Context, st store.Store, v records.View, sq SearchQuery, tokens []string) ([]Candidate, int, error) {
	selecting := tokens[:min(len(tokens), match.MaxQueryTokens)]
	conds, err := tokenConditions(ctx, st, v, sq.State, selecting)
	if err != nil {
		return nil, 0, err
	}
	recs, total, err := selectCandidates(ctx, st, v, sq, selecting, conds)
	if err != nil {
		return nil, 0, err
	}
	if total == 0 && len(selecting) > 1 {
		seen := map[string]bool{}
		for i := range selecting {
			fewer := slices.Delete(slices.Clone(selecting), i, i+1)
			if !slices.ContainsFunc(fewer, func(t string) bool { return len([]rune(t)) > 1 }) {
				continue
			}
			more, _, err := selectCandidates(ctx, st, v, sq, fewer, conds)
			if err != nil {
				return nil, 0, err
			}
			for _, b := range more {
				if !seen[b.Record.NPI] && len(recs) < SearchCandidates {
					seen[b.Record.NPI] = true
					recs = append(recs, b)
				}
			}
		}
		total = len(recs)
	}
	out := make([]Candidate, 0, len(recs))
	for _, b := range recs {
		out = append(out, candidate(b.Record, b.Provenance, tokens))
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
	return out, total, nil
}

// selectCandidates reads up to SearchCandidates registry records matching every token (and the
// state and taxonomy), and the exact number matching. The store selects by the query's whole
// words (match.Selective), by the state's keys when a state is given, and the records read are
// checked for its initials and the taxonomy: a condition on a taxonomy would have the store
// walk its whole posting list. Only when that selects more than SearchCandidates records does
// the store apply every condition. conds holds each token's condition (tokenConditions).
func selectCandidates(ctx context.Context, st store.Store, v records.View, sq SearchQuery, tokens []string, conds map[string]store.Condition) ([]found, int, error) {
	q := store.Query{Collection: catalog.RegistryProviders, Generation: v.Snap.Generation(catalog.RegistryProviders),
		Limit: SearchCandidates}
	for _, t := range match.Selective(tokens) {
		q.Where = append(q.Where, conds[t])
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
			q.Where = append(q.Where, store.Condition{Param: mapping.KeyTaxonomy, Values: []string{sq.Taxonomy}})
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
		b, err := mapping.DecodeBody[searchRecord](d)
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

// tokenConditions returns the condition of each query token (tokenCondition), looked up once
// per search: the selections without one word each reuse them.
func tokenConditions(ctx context.Context, st store.Store, v records.View, state string, tokens []string) (map[string]store.Condition, error) {
	in := store.Query{Collection: catalog.RegistryProviders, Generation: v.Snap.Generation(catalog.RegistryProviders)}
	conds := make(map[string]store.Condition, len(tokens))
	for _, t := range tokens {
		c, err := tokenCondition(ctx, st, in, v.Snap.Generation(catalog.RegistryNameWords), state, t)
		if err != nil {
			return nil, err
		}
		conds[t] = c
	}
	return conds, nil
}

// tokenCondition is the store condition one query token selects by (match.Expand): a prefix of
// the name tokens for an initial; otherwise the token and its nicknames among the name tokens
// when some record holds the token as a name word (one key read tells), and else, in a state,
// also the words of the name lexicon (generation words) within one edit of it. With a state,
// every key is the state's (match.InState).
func tokenCondition(ctx context.Context, st store.Store, in store.Query, words, state, t string) (store.Condition, error) {
	param, qualify := match.ParamToken, func(vs []string) []string { return vs }
	if state != "" {
		param, qualify = match.ParamStateToken, func(vs []string) []string { return match.InState(state, vs) }
	}
	known := false
	if len([]rune(t)) > 1 {
		in.Where, in.Limit = []store.Condition{{Param: param, Values: qualify([]string{t})}}, 1
		page, err := st.Find(ctx, in)
		if err != nil {
			return store.Condition{}, err
		}
		known = len(page.Docs) > 0
	}
	l := match.Expand(t, known)
	if l.Prefix != "" {
		return store.Condition{Param: param, Values: qualify([]string{l.Prefix}), Match: store.Prefix}, nil
	}
	tokens := l.Tokens
	if len(l.Deletions) > 0 && state != "" {
		near, err := wordsNear(ctx, st, words, l.Deletions)
		if err != nil {
			return store.Condition{}, err
		}
		for _, w := range near {
			if !slices.Contains(tokens, w) {
				tokens = append(tokens, w)
			}
		}
	}
	return store.Condition{Param: param, Values: qualify(tokens)}, nil
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
	page, err := st.Find(ctx, store.Query{Collection: catalog.RegistryNameWords, Generation: generation, Limit: maxWordsNear,
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

// candidate is the search result of one registry record. An organization is found by its other
// name too, and scores by the better of its two names.
func candidate(rec searchRecord, prov mapping.Provenance, tokens []string) Candidate {
	c := Candidate{NPI: rec.NPI, EntityType: rec.EntityType, Taxonomy: rec.PrimaryTaxonomy,
		City: rec.PracticeAddress.City, State: rec.PracticeAddress.State, Provenance: prov}
	primary, other := rec.names()
	if rec.Name != nil {
		c.Name = strings.Join(slices.DeleteFunc([]string{rec.Name.First, rec.Name.Middle, rec.Name.Last}, func(s string) bool { return s == "" }), " ")
	} else {
		c.Name = rec.OrganizationName
	}
	c.MatchScore = match.Score(tokens, primary)
	if other.Org != "" {
		c.MatchScore = max(c.MatchScore, match.Score(tokens, other))
	}
	return c
}
