package fhir

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"providerdir/mapping/fhirmap"
	"providerdir/smart"
	"providerdir/store"
)

// addIncludes adds the resources _include and _revinclude ask for to a page, each once, up to
// MaxIncludes; past the cap the page carries a warning instead of silently lacking them. The
// grant's scopes allow reading every included type (the search was refused otherwise, see
// query.accesses); sandbox grants get sandbox resources only.
func (s *Server) addIncludes(ctx context.Context, v view, q *query, g smart.Grant, res *result) error {
	if len(q.includes) == 0 && len(q.revs) == 0 || len(res.matches) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, d := range res.matches {
		seen[fhirmap.Ref(q.typ, d.ID)] = true
	}
	capped := false
	room := func() bool {
		if len(res.included) < s.maxInc {
			return true
		}
		if !capped {
			capped = true
			res.warnings = append(res.warnings, warning("incomplete", fmt.Sprintf(
				"_include/_revinclude reached the cap of %d resources per page; the page's other included resources are left out (use a smaller _count)", s.maxInc)))
		}
		return false
	}

	for _, inc := range q.includes {
		gen := v.gen(inc.target)
		if gen == "" {
			continue
		}
		prefix := inc.target + "/"
		for _, d := range res.matches {
			for _, k := range d.Keys {
				if k.Param != inc.key || !strings.HasPrefix(k.Value, prefix) || seen[k.Value] {
					continue
				}
				if !room() {
					return nil
				}
				seen[k.Value] = true
				doc, err := s.st.Get(ctx, gen, fhirmap.Collection(inc.target), k.Value[len(prefix):])
				if errors.Is(err, store.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if g.Sandbox && !hasKey(doc, fhirmap.KeySandbox, "1") {
					continue
				}
				res.included = append(res.included, includedDoc{inc.target, doc})
			}
		}
	}

	refs := make([]string, len(res.matches))
	for i, d := range res.matches {
		refs[i] = fhirmap.Ref(q.typ, d.ID)
	}
	for _, rev := range q.revs {
		gen := v.gen(rev.source)
		if gen == "" {
			continue
		}
		where := []store.Condition{{Param: rev.key, Values: refs, Match: store.Exact}}
		if g.Sandbox {
			where = append(where, sandboxCond)
		}
		sq := store.Query{Collection: fhirmap.Collection(rev.source), Generation: gen, Where: where, Limit: min(s.maxInc+1, store.MaxLimit)}
		for {
			page, err := s.st.Find(ctx, sq)
			if err != nil {
				return err
			}
			for _, d := range page.Docs {
				ref := fhirmap.Ref(rev.source, d.ID)
				if seen[ref] {
					continue
				}
				if !room() {
					return nil
				}
				seen[ref] = true
				res.included = append(res.included, includedDoc{rev.source, d})
			}
			if page.Next == "" {
				break
			}
			sq.After = page.Next
		}
	}
	return nil
}
