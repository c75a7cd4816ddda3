package fhir

import (
	"context"
	"slices"
	"strings"

	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// A search whose conditions name the ids it can match reads those documents instead of probing
// an index: an _id list, or NPIs on the types whose ids are NPIs (fhirmap.IDOfNPI), together
// (store.GetMany). Looking up an NPI is what directory clients do most, and a read by id costs
// one seek where an index probe costs an iterator of its own and a seek more. The other
// conditions are checked on the documents' keys with store.Matches, the definition every
// backend matches by, so the answer is the index's.

// maxDirectIDs bounds the ids read by id; a longer list goes to the index.
const maxDirectIDs = 20

// directIDs returns the ids a search's conditions pin it to, in order and without repeats.
func directIDs(typ string, where []store.Condition) ([]string, bool) {
	for _, c := range where {
		if c.Match != store.Exact || len(c.Values) > maxDirectIDs {
			continue
		}
		var ids []string
		switch c.Param {
		case fhirmap.KeyID:
			ids = slices.Clone(c.Values)
		case fhirmap.KeyIdentifier:
			ids = npiIDs(typ, c.Values)
		}
		if len(ids) > 0 {
			slices.Sort(ids)
			return slices.Compact(ids), true
		}
	}
	return nil, false
}

// npiIDs returns the ids of identifier values that are all NPIs of a type whose ids are NPIs,
// else nil.
func npiIDs(typ string, values []string) []string {
	ids := make([]string, 0, len(values))
	for _, v := range values {
		npi, isNPI := strings.CutPrefix(v, fhirmap.SystemNPI+"|")
		id, known := fhirmap.IDOfNPI(typ, npi)
		if !isNPI || !known {
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// find returns the page a store query asks for. A first page in id order of a search pinned to
// a few ids is read by id; if more of them match than the page holds, the index pages them.
func (s *Server) find(ctx context.Context, typ string, sq store.Query) (store.Page, error) {
	ids, pinned := directIDs(typ, sq.Where)
	if !pinned || sq.After != "" || sq.OrderBy != "" {
		return s.st.Find(ctx, sq)
	}
	if sq.Descending {
		slices.Reverse(ids)
	}
	// An id no document can have (an over-long _id, say) is not read.
	ids = slices.DeleteFunc(ids, func(id string) bool { return store.ValidateID(id) != nil })
	found, err := s.st.GetMany(ctx, sq.Generation, sq.Collection, ids, sq.Arena)
	if err != nil {
		return store.Page{}, err
	}
	docs := slices.DeleteFunc(found, func(d store.Document) bool { return !store.Matches(d.Keys, sq.Where) })
	if len(docs) > sq.Limit {
		return s.st.Find(ctx, sq)
	}
	return store.Page{Docs: docs}, nil
}
