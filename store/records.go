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
