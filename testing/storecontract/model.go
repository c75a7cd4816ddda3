package storecontract

import (
	"cmp"
	"slices"
	"strings"

	"providerdir/store"
)

// model is the reference semantics of Find and Count over a set of documents, written from the
// contract's words rather than from the shared store helpers:
//
//   - a condition holds when some key with its param has a value equal to (Exact) or starting
//     with (Prefix) one of its values; conditions are joined with AND;
//   - without OrderBy, documents come in ID order; with OrderBy, in order of the smallest value
//     the document has for that param, ties by ID, and documents without such a key are left out;
//   - Descending reverses the whole order, ties included.
type model map[string]store.Document

func newModel(docs ...store.Document) model {
	m := model{}
	m.put(docs...)
	return m
}

func (m model) put(docs ...store.Document) {
	for _, d := range docs {
		m[d.ID] = d
	}
}

type ranked struct {
	value, id string
}

// query returns the ids a query must return, in order.
func (m model) query(q store.Query) []string {
	var hits []ranked
	for id, d := range m {
		if !m.holds(d, q.Where) {
			continue
		}
		r := ranked{id: id}
		if q.OrderBy != "" {
			found := false
			for _, k := range d.Keys {
				if k.Param == q.OrderBy && (!found || k.Value < r.value) {
					r.value, found = k.Value, true
				}
			}
			if !found {
				continue
			}
		}
		hits = append(hits, r)
	}
	slices.SortFunc(hits, func(a, b ranked) int {
		return cmp.Or(strings.Compare(a.value, b.value), strings.Compare(a.id, b.id))
	})
	if q.Descending {
		slices.Reverse(hits)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.id
	}
	return out
}

func (m model) holds(d store.Document, where []store.Condition) bool {
	for _, c := range where {
		ok := false
		terms := append([]store.Alternative{{Param: c.Param, Values: c.Values}}, c.Or...)
		for _, k := range d.Keys {
			for _, t := range terms {
				if k.Param != t.Param {
					continue
				}
				for _, v := range t.Values {
					if c.Match == store.Exact && k.Value == v || c.Match == store.Prefix && strings.HasPrefix(k.Value, v) {
						ok = true
					}
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
