package embedded

import (
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"

	"providerdir/store"
)

// onIndex narrows candidates (ids sorted ascending, distinct) by the Exact conditions among
// check (indexes into the query's conditions) on their posting lists, before any document is
// loaded, and returns the candidates left and the conditions still to check on their documents.
// A candidate's document lies anywhere in the collection, a point read that in a large store
// misses the block cache, while a condition's posting lists are short key ranges read in id
// order; so a condition is checked on the index when it has at most max(narrowFactor,
// candidates) lists (one of a few thousand lists costs more, for a handful of candidates, than
// loading them). The conditions with the fewest lists go first, and each checks only the
// candidates the ones before it kept.
func (q *query) onIndex(ids []string, check []int) ([]string, []int, error) {
	if len(ids) == 0 || len(check) == 0 {
		return ids, check, nil
	}
	check = slices.Clone(check)
	slices.SortStableFunc(check, func(a, b int) int { return q.conds[a].lists() - q.conds[b].lists() })
	it, err := q.iter(nil, nil)
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	var rest []int
	for _, j := range check {
		c := q.conds[j]
		if c.match != store.Exact || c.lists() > max(narrowFactor, len(ids)) {
			rest = append(rest, j)
			continue
		}
		on := make([]bool, len(ids))
		for _, t := range c.terms {
			for _, v := range t.values {
				if err := q.markListed(it, t.param, v, ids, on); err != nil {
					return nil, nil, err
				}
			}
		}
		kept := make([]string, 0, len(ids))
		for i, id := range ids {
			if on[i] {
				kept = append(kept, id)
			}
		}
		if ids = kept; len(ids) == 0 {
			return nil, nil, nil
		}
	}
	slices.Sort(rest)
	return ids, rest, nil
}

// conditions returns the query's conditions at the indexes js.
func (q *query) conditions(js []int) []store.Condition {
	out := make([]store.Condition, len(js))
	for i, j := range js {
		out[i] = q.where[j]
	}
	return out
}

// lists is the number of posting lists (param and value pairs) a condition reads.
func (c cond) lists() int {
	n := 0
	for _, t := range c.terms {
		n += len(t.values)
	}
	return n
}

// markListed sets on[i] for each of ids (sorted ascending) on the posting list of (param,
// value). It seeks the list forward from one candidate to the next and stops where the list
// ends, so a short list costs a seek or two and a long one at most a seek per candidate.
func (q *query) markListed(it *pebble.Iterator, param, value string, ids []string, on []bool) error {
	list := append(paramPrefix(q.gen, q.coll, param), value...)
	list = append(list, 0)
	it.SetBounds(list, prefixEnd(list))
	seek := slices.Clip(list)
	var at []byte // the id the iterator is on
	for i, id := range ids {
		if err := q.tick(); err != nil {
			return err
		}
		if at == nil || string(at) < id {
			seek = append(seek[:len(list)], id...)
			if !it.SeekGE(seek) {
				if err := it.Error(); err != nil {
					return fmt.Errorf("embedded: %w", err)
				}
				return nil
			}
			at = it.Key()[len(list):]
		}
		if string(at) == id {
			on[i] = true
		}
	}
	return nil
}
