package store

import "context"

// recordPage is how many records EachRecord reads per ListRecords call.
const recordPage = 500

// EachRecord calls fn with every live record of kind, in id order, a page at a time, and stops
// at fn's first error. It is the one loop every "list all clients, keys, subscriptions" reader
// needs; records are small, so a page of them is cheap to hold.
func EachRecord(ctx context.Context, s Store, kind string, fn func(Record) error) error {
	after := ""
	for {
		recs, err := s.ListRecords(ctx, kind, after, recordPage)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			if err := fn(rec); err != nil {
				return err
			}
		}
		if len(recs) < recordPage {
			return nil
		}
		after = recs[len(recs)-1].ID
	}
}

// DecodeRecords returns every live record of kind decoded by decode, in id order, or the first
// error of the read or of decode: the list of clients, keys, subscriptions or requests.
func DecodeRecords[T any](ctx context.Context, s Store, kind string, decode func(Record) (T, error)) ([]T, error) {
	var out []T
	err := EachRecord(ctx, s, kind, func(r Record) error {
		v, err := decode(r)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// documentPage is how many documents EachDocument reads per Find when the query sets no limit.
const documentPage = 1000

// EachDocument calls fn with every document q finds, in q's order, a page at a time (q.Limit
// documents, or documentPage when it is 0), and stops at fn's first error. fn may keep nothing
// of the document past its return but what it copies: the page is read once and then dropped.
func EachDocument(ctx context.Context, s Store, q Query, fn func(*Document) error) error {
	if q.Limit == 0 {
		q.Limit = documentPage
	}
	for {
		page, err := s.Find(ctx, q)
		if err != nil {
			return err
		}
		for i := range page.Docs {
			if err := fn(&page.Docs[i]); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		q.After = page.Next
	}
}
