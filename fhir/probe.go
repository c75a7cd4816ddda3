package fhir

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// A chained or _has parameter is a condition on another type. When the other type's matches are
// few (at most maxChain) they are named: the search gets a condition on its reference key (a
// chain) or on its ids (_has), which the store answers from its indexes like any other. When
// there are more, naming them would not bound the work, so the search instead reads its other
// matches in order and keeps each candidate whose references hold: for a chain, the resources a
// candidate references are read (store.GetMany) and matched against the chain's condition
// (store.Matches, the definition every backend matches by); for a _has, the store is asked for
// one resource of the other type that references the candidate and matches. A broad chain such
// as PractitionerRole?location.address-state=MD is served this way at national scale.
//
// A page reads at most probeFactor*maxChain candidates, so a condition that few candidates
// satisfy can leave a page short of _count; it then says so in a warning and links to the next
// page, which goes on from where it stopped. Counting such a search would mean reading every
// candidate: its Bundle has no total, and _total=accurate or _summary=count is refused
// (too-costly).

// chainProbe is a chained or _has parameter checked per candidate.
type chainProbe struct {
	c     chain
	gen   string            // the other type's generation
	where []store.Condition // the condition on the other type, as the store matches it
}

// probeFactor bounds the candidates a page of a probed search reads, as a multiple of maxChain.
const probeFactor = 5

// probeBatch is how many candidates are read and checked at a time.
const probeBatch = 200

// probePage reads the page of store query sq (a search's own conditions) whose candidates the
// probes keep. short reports that the page stopped at its read budget before it was full.
func (s *Server) probePage(ctx context.Context, typ string, sq store.Query, probes []chainProbe) (page store.Page, short bool, err error) {
	budget := probeFactor * s.maxChain
	checked := make([]map[string]bool, len(probes)) // per chain: referenced id to whether it matches
	for i := range checked {
		checked[i] = map[string]bool{}
	}
	q := sq
	var out []store.Document
	for budget > 0 {
		q.Limit = min(budget, probeBatch)
		batch, err := s.find(ctx, typ, q)
		if err != nil {
			return store.Page{}, false, err
		}
		budget -= len(batch.Docs)
		keep, err := s.probe(ctx, typ, batch.Docs, probes, checked)
		if err != nil {
			return store.Page{}, false, err
		}
		for i, d := range batch.Docs {
			if !keep[i] {
				continue
			}
			out = append(out, d)
			if len(out) < sq.Limit {
				continue
			}
			if i == len(batch.Docs)-1 && batch.Next == "" {
				return store.Page{Docs: out}, false, nil
			}
			return store.Page{Docs: out, Next: cursorOf(d, sq.OrderBy)}, false, nil
		}
		if batch.Next == "" {
			return store.Page{Docs: out}, false, nil
		}
		q.After = batch.Next
	}
	return store.Page{Docs: out, Next: q.After}, true, nil
}

// probe reports which of docs (of type typ) every probe keeps.
func (s *Server) probe(ctx context.Context, typ string, docs []store.Document, probes []chainProbe, checked []map[string]bool) ([]bool, error) {
	keep := make([]bool, len(docs))
	for i := range keep {
		keep[i] = true
	}
	for i, p := range probes {
		var err error
		if p.c.reverse {
			err = s.probeReverse(ctx, typ, docs, p, keep)
		} else {
			err = s.probeForward(ctx, docs, p, keep, checked[i])
		}
		if err != nil {
			return nil, err
		}
	}
	return keep, nil
}

// probeForward keeps the docs that reference, under the chain's key, a resource of the other
// type that matches its condition. The referenced resources not checked before are read
// together; checked remembers each one's verdict for the rest of the page.
func (s *Server) probeForward(ctx context.Context, docs []store.Document, p chainProbe, keep []bool, checked map[string]bool) error {
	prefix := p.c.other + "/"
	refs := func(d *store.Document, yield func(id string) bool) {
		for _, k := range d.Keys {
			if k.Param != p.c.key {
				continue
			}
			if id, ok := strings.CutPrefix(k.Value, prefix); ok && !yield(id) {
				return
			}
		}
	}
	var ids []string
	for i := range docs {
		if keep[i] {
			refs(&docs[i], func(id string) bool {
				if _, seen := checked[id]; !seen && store.ValidateID(id) == nil {
					checked[id] = false
					ids = append(ids, id)
				}
				return true
			})
		}
	}
	for chunk := range slices.Chunk(ids, store.MaxLimit) {
		// Only their keys are looked at: their bodies go to memory of their own, not to the
		// page's arena, which keeps what the page serves.
		found, err := s.st.GetMany(ctx, p.gen, catalog.FHIRCollection(p.c.other), chunk, nil)
		if err != nil {
			return err
		}
		for _, d := range found {
			checked[d.ID] = store.Matches(d.Keys, p.where)
		}
	}
	for i := range docs {
		if keep[i] {
			match := false
			refs(&docs[i], func(id string) bool { match = checked[id]; return !match })
			keep[i] = match
		}
	}
	return nil
}

// probeReverse keeps the docs that a resource of the other type matching the _has condition
// references under the _has key: one store look-up per candidate, for at most one document.
func (s *Server) probeReverse(ctx context.Context, typ string, docs []store.Document, p chainProbe, keep []bool) error {
	where := append(slices.Clip(p.where), store.Condition{Param: p.c.key, Match: store.Exact})
	for i, d := range docs {
		if !keep[i] {
			continue
		}
		where[len(where)-1].Values = []string{fhirmap.Ref(typ, d.ID)}
		page, err := s.st.Find(ctx, store.Query{Collection: catalog.FHIRCollection(p.c.other), Generation: p.gen, Where: where, Limit: 1})
		if err != nil {
			return err
		}
		keep[i] = len(page.Docs) > 0
	}
	return nil
}

// probeRefusal is the error of a probed search asked for what only reading every candidate
// answers: an accurate total or a count.
func probeRefusal(p chainProbe, maxChain int, asked string) *paramError {
	return tooCostly(p.c.name, "matches more than %d %s resources, so the search checks its candidates one by one and cannot count them; drop %s or narrow the parameter",
		maxChain, p.c.other, asked)
}

// probeShortWarning tells a client that a probed page stopped at its read budget.
func probeShortWarning(probes []chainProbe, read int) Issue {
	names := make([]string, len(probes))
	for i, p := range probes {
		names[i] = p.c.name
	}
	return warning("informational", fmt.Sprintf(
		"%s matched too many resources to name, so the search checks its candidates one by one; this page checked %d and holds fewer matches than _count: the next link goes on from there",
		clip(strings.Join(names, ", ")), read))
}
