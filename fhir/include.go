package fhir

import (
	"context"
	"fmt"
	"strings"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// addIncludes adds the resources _include and _revinclude ask for to a page, each once, up to
// MaxIncludes; past the cap the page carries a warning instead of silently lacking them. The
// grant's scopes allow reading every included type (the search was refused otherwise, see
// query.accesses); sandbox grants get sandbox resources only.
//
// The includes work in rounds: the first applies every include to the matches; each later round
// applies the :iterate ones to the resources the round before added, until a round adds
// nothing. Each resource is added once, so the rounds end, and the cap bounds them.
func (s *Server) addIncludes(ctx context.Context, v view, q *query, g Grant, res *result) error {
	if len(q.includes) == 0 && len(q.revs) == 0 || len(res.matches) == 0 {
		return nil
	}
	// The page's resources are its matches and, mostly, about as many included.
	seen := make(map[string]bool, 2*len(res.matches))
	r := &includeRound{s: s, v: v, g: g, res: res, seen: seen, keyed: g.Sandboxed()}
	for _, inc := range q.includes {
		r.keyed = r.keyed || inc.iterate
	}
	// An include mostly adds about as many resources as the page has matches.
	res.included = make([]includedDoc, 0, len(res.matches))
	frontier := make([]includedDoc, len(res.matches))
	for i, d := range res.matches {
		r.seen[fhirmap.Ref(q.typ, d.ID)] = true
		frontier[i] = includedDoc{q.typ, d}
	}
	for first := true; len(frontier) > 0 && !r.capped; first = false {
		start := len(res.included)
		for _, inc := range q.includes {
			if first || inc.iterate {
				if err := r.forward(ctx, inc, frontier); err != nil {
					return err
				}
			}
		}
		for _, rev := range q.revs {
			if first || rev.iterate {
				if err := r.reverse(ctx, rev, frontier); err != nil {
					return err
				}
			}
		}
		frontier = res.included[start:]
	}
	return nil
}

// includeRound is the state of one page's includes: what the page holds and whether the cap
// was reached.
type includeRound struct {
	s      *Server
	v      view
	g      Grant
	res    *result
	seen   map[string]bool // "Type/id" of every resource on the page
	capped bool
	// keyed is whether included resources are read with their search keys: a sandbox grant
	// filters them by key, and an _include:iterate follows their references. Otherwise their
	// bodies are all the page shows, and reading without keys spares decoding them.
	keyed bool
}

// room reports whether one more resource may be included, warning once when not.
func (r *includeRound) room() bool {
	if len(r.res.included) < r.s.maxInc {
		return true
	}
	if !r.capped {
		r.capped = true
		r.res.warnings = append(r.res.warnings, warning("incomplete", fmt.Sprintf(
			"_include/_revinclude reached the cap of %d resources per page; the page's other included resources are left out (use a smaller _count)", r.s.maxInc)))
	}
	return false
}

// forward adds the resources the inc references of the docs of its source type point at. They
// are read together (store.GetMany), as many at a time as the cap leaves room for: one round
// trip for a page's references of one type, however many there are.
func (r *includeRound) forward(ctx context.Context, inc include, docs []includedDoc) error {
	gen := r.v.gen(inc.target)
	if gen == "" {
		return nil
	}
	prefix := inc.target + "/"
	ids := make([]string, 0, len(docs))
	read := func() error {
		if len(ids) == 0 {
			return nil
		}
		get := r.s.st.GetBodies
		if r.keyed {
			get = r.s.st.GetMany
		}
		found, err := get(ctx, gen, catalog.FHIRCollection(inc.target), ids, r.res.arena)
		ids = ids[:0]
		if err != nil {
			return err
		}
		for _, doc := range found {
			if !r.g.Sandboxed() || hasKey(doc, fhirmap.KeySandbox, "1") {
				r.res.included = append(r.res.included, includedDoc{inc.target, doc})
			}
		}
		return nil
	}
	for _, d := range docs {
		if d.typ != inc.source {
			continue
		}
		for _, k := range d.doc.Keys {
			if k.Param != inc.key || !strings.HasPrefix(k.Value, prefix) || r.seen[k.Value] {
				continue
			}
			if len(r.res.included)+len(ids) >= r.s.maxInc {
				// What is pending may fill the cap, or, with references to nothing, leave
				// room: read it to know.
				if err := read(); err != nil {
					return err
				}
				if !r.room() {
					return nil
				}
			}
			r.seen[k.Value] = true
			ids = append(ids, k.Value[len(prefix):])
		}
	}
	return read()
}

// reverse adds the resources of rev's source type whose references point at the docs of its
// target type.
func (r *includeRound) reverse(ctx context.Context, rev include, docs []includedDoc) error {
	gen := r.v.gen(rev.source)
	if gen == "" {
		return nil
	}
	var refs []string
	for _, d := range docs {
		if d.typ == rev.target {
			refs = append(refs, fhirmap.Ref(d.typ, d.doc.ID))
		}
	}
	if len(refs) == 0 {
		return nil
	}
	where := []store.Condition{{Param: rev.key, Values: refs, Match: store.Exact}}
	if r.g.Sandboxed() {
		where = append(where, sandboxCond)
	}
	sq := store.Query{Collection: catalog.FHIRCollection(rev.source), Generation: gen, Where: where, Limit: min(r.s.maxInc+1, store.MaxLimit), Arena: r.res.arena}
	for {
		page, err := r.s.st.Find(ctx, sq)
		if err != nil {
			return err
		}
		for _, d := range page.Docs {
			ref := fhirmap.Ref(rev.source, d.ID)
			if r.seen[ref] {
				continue
			}
			if !r.room() {
				return nil
			}
			r.seen[ref] = true
			r.res.included = append(r.res.included, includedDoc{rev.source, d})
		}
		if page.Next == "" {
			return nil
		}
		sq.After = page.Next
	}
}
