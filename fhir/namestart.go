package fhir

import (
	"context"
	"slices"
	"sync"

	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// narrowNames turns the name prefix conditions of a search into lookups of the name:start
// posting lists (fhirmap.NameStart), which are in id order as a page is: a name search of one
// short word becomes that list alone, read only as far as the page needs, and a longer one keeps
// its prefix condition beside the list of its start, which narrows it. A collection without
// those keys (a type that has none, a generation written before they existed) keeps its
// conditions as they are. Family and given
// name searches keep theirs: the name:start list of a family name is no narrower than the family
// name's own prefix range.
func (s *Server) narrowNames(ctx context.Context, gen, coll string, where []store.Condition) ([]store.Condition, error) {
	if gen == "" || !slices.ContainsFunc(where, isNamePrefix) {
		return where, nil
	}
	keyed, err := s.starts.keyed(ctx, s.st, gen, coll)
	if err != nil || !keyed {
		return where, err
	}
	out := make([]store.Condition, 0, len(where)+1)
	for _, c := range where {
		if !isNamePrefix(c) {
			out = append(out, c)
			continue
		}
		start := store.Condition{Param: fhirmap.KeyNameStart, Match: store.Exact}
		decides := true
		for _, v := range c.Values {
			st, whole := fhirmap.NameStart(v)
			decides = decides && whole
			if !slices.Contains(start.Values, st) {
				start.Values = append(start.Values, st)
			}
		}
		out = append(out, start)
		if !decides {
			out = append(out, c)
		}
	}
	return out, nil
}

// isNamePrefix reports whether c is a prefix search of a name alone.
func isNamePrefix(c store.Condition) bool {
	return c.Match == store.Prefix && len(c.Or) == 0 && c.Param == fhirmap.KeyName
}

// startIndex remembers which collections of which generations carry name:start keys. A
// generation never changes once written, so one look settles it; the map is cleared whole at a
// bound that the few generations a server sees in its life never reach in practice.
type startIndex struct {
	mu    sync.Mutex
	known map[string]bool
}

const (
	startIndexEntries = 256
	// startSample is how many documents, the first by id, are looked at for name:start keys.
	startSample = 16
)

// keyed reports whether the documents of a collection of a generation carry name:start keys:
// whether one of its first documents that has a name has them too. A collection whose first
// documents have no name is taken to have none, which only costs its name searches the plan
// they had without the keys.
func (x *startIndex) keyed(ctx context.Context, st store.Store, gen, coll string) (bool, error) {
	key := gen + "\x00" + coll
	x.mu.Lock()
	k, hit := x.known[key]
	x.mu.Unlock()
	if hit {
		return k, nil
	}
	page, err := st.Find(ctx, store.Query{Collection: coll, Generation: gen, Limit: startSample})
	if err != nil {
		return false, err
	}
	k = slices.ContainsFunc(page.Docs, func(d store.Document) bool {
		return slices.ContainsFunc(d.Keys, func(k store.Key) bool { return k.Param == fhirmap.KeyNameStart })
	})
	x.mu.Lock()
	if x.known == nil || len(x.known) >= startIndexEntries {
		x.known = make(map[string]bool)
	}
	x.known[key] = k
	x.mu.Unlock()
	return k, nil
}
