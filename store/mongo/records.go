package mongo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"providerdir/store"
)

// wireRecord is a record as stored.
type wireRecord struct {
	Kind    string `bson:"kind"`
	ID      string `bson:"id"`
	Version int64  `bson:"v"`
	Body    []byte `bson:"b"`
	// Expiry is the expiry in Unix nanoseconds; nil when the record does not expire.
	Expiry *int64 `bson:"xn,omitempty"`
}

// recordKey is a record's _id. ':' cannot occur in a kind, so kinds never run into each other,
// and the records of one kind are one contiguous _id range in id order.
func recordKey(kind, id string) string { return kind + ":" + enc(id) }

// live matches records and counters that have not expired at now. Expiry is decided here, on
// every read and conditional write, rather than left to the TTL monitor, which runs about once
// a minute (and not at all on FerretDB).
func live(now int64) bson.E {
	return bson.E{Key: "$or", Value: bson.A{
		bson.D{{Key: "xn", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "xn", Value: bson.D{{Key: "$gt", Value: now}}}},
	}}
}

// Expiry instants are kept as Unix nanoseconds, which cover 1678 to 2262; instants outside are
// clamped to that range, which keeps their order (and an expiry past 2262 is "never" in practice).
var (
	minNanos = time.Unix(0, math.MinInt64)
	maxNanos = time.Unix(0, math.MaxInt64)
)

func unixNanos(t time.Time) int64 {
	switch {
	case t.Before(minNanos):
		return math.MinInt64
	case t.After(maxNanos):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// expiryFields returns the fields that make a document expire at t: xn, exact, for the store's
// own checks, and exp, a date rounded up to the millisecond, for the TTL index (rounding up so
// that the TTL monitor never reclaims a document that is still live).
func expiryFields(t time.Time) bson.D {
	ms := t.Truncate(time.Millisecond)
	if ms.Before(t) {
		ms = ms.Add(time.Millisecond)
	}
	return bson.D{{Key: "xn", Value: unixNanos(t)}, {Key: "exp", Value: ms}}
}

func (w wireRecord) record() (store.Record, error) {
	id, err := dec(w.ID)
	if err != nil {
		return store.Record{}, err
	}
	r := store.Record{Kind: w.Kind, ID: id, Version: w.Version, Body: w.Body}
	if r.Body == nil {
		r.Body = []byte{}
	}
	if w.Expiry != nil {
		r.ExpiresAt = time.Unix(0, *w.Expiry)
	}
	return r, nil
}

func validRecordArgs(kind, id string) error {
	if err := store.ValidateName("record kind", kind); err != nil {
		return err
	}
	return store.ValidateID(id)
}

func notFound(kind, id string) error {
	return fmt.Errorf("store/mongo: record %s/%q: %w", kind, id, store.ErrNotFound)
}

func conflict(kind, id string) error {
	return fmt.Errorf("store/mongo: record %s/%q: %w", kind, id, store.ErrConflict)
}

// GetRecord returns a live record.
func (s *Store) GetRecord(ctx context.Context, kind, id string) (store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return store.Record{}, err
	}
	if err := validRecordArgs(kind, id); err != nil {
		return store.Record{}, err
	}
	release, err := s.enter(ctx)
	if err != nil {
		return store.Record{}, err
	}
	defer release()
	filter := bson.D{{Key: "_id", Value: recordKey(kind, id)}, live(time.Now().UnixNano())}
	var w wireRecord
	err = s.db.Collection(recordsColl).FindOne(ctx, filter).Decode(&w)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return store.Record{}, notFound(kind, id)
	}
	if err != nil {
		return store.Record{}, s.fail("get record", err)
	}
	return w.record()
}

// PutRecord creates or compare-and-swaps a record with one conditional single-document write.
//
// A create is a replace of the document with this _id that has expired, with upsert: if there
// is none, the upsert inserts the record; if an expired one is there, it is replaced; if a live
// one is there, the filter misses, the upsert's insert hits the unique _id and the server
// answers a duplicate key error, which is the lost race. Two creates racing for an absent id
// end the same way: one inserts, the other's insert is a duplicate. (MongoDB retries an upsert
// that hit a duplicate key only when its filter is an equality on the key alone, which this one
// is not.) One round trip covers all three cases, with no read-then-write window.
//
// A compare-and-swap replaces the document whose version is r.Version and which has not
// expired; when nothing matches, the version it expected is not there: ErrConflict.
func (s *Store) PutRecord(ctx context.Context, r store.Record) (store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return store.Record{}, err
	}
	if err := validRecordArgs(r.Kind, r.ID); err != nil {
		return store.Record{}, err
	}
	if r.Version < 0 {
		return store.Record{}, fmt.Errorf("%w: record version %d is negative", store.ErrInvalid, r.Version)
	}
	release, err := s.enter(ctx)
	if err != nil {
		return store.Record{}, err
	}
	defer release()
	key := recordKey(r.Kind, r.ID)
	now := time.Now().UnixNano()
	out := store.Record{Kind: r.Kind, ID: r.ID, Version: r.Version + 1, Body: append([]byte{}, r.Body...)}
	doc := bson.D{
		{Key: "_id", Value: key},
		{Key: "kind", Value: r.Kind},
		{Key: "id", Value: enc(r.ID)},
		{Key: "v", Value: out.Version},
		{Key: "b", Value: bson.Binary{Data: r.Body}},
	}
	if !r.ExpiresAt.IsZero() {
		doc = append(doc, expiryFields(r.ExpiresAt)...)
		out.ExpiresAt = time.Unix(0, unixNanos(r.ExpiresAt))
	}
	coll := s.db.Collection(recordsColl)
	if r.Version == 0 {
		filter := bson.D{{Key: "_id", Value: key}, {Key: "xn", Value: bson.D{{Key: "$lte", Value: now}}}}
		_, err := coll.ReplaceOne(ctx, filter, doc, options.Replace().SetUpsert(true))
		if mongo.IsDuplicateKeyError(err) {
			return store.Record{}, conflict(r.Kind, r.ID)
		}
		if err != nil {
			return store.Record{}, s.fail("create record", err)
		}
		return out, nil
	}
	filter := bson.D{{Key: "_id", Value: key}, {Key: "v", Value: r.Version}, live(now)}
	res, err := coll.ReplaceOne(ctx, filter, doc)
	if err != nil {
		return store.Record{}, s.fail("update record", err)
	}
	if res.MatchedCount == 0 {
		return store.Record{}, conflict(r.Kind, r.ID)
	}
	return out, nil
}

// DeleteRecord deletes a live record, if its version is the given one (any, for 0). When
// nothing was deleted, a second read tells an absent or expired record (ErrNotFound) from a
// version mismatch (ErrConflict); the delete itself is one atomic conditional operation.
func (s *Store) DeleteRecord(ctx context.Context, kind, id string, version int64) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := validRecordArgs(kind, id); err != nil {
		return err
	}
	if version < 0 {
		return fmt.Errorf("%w: record version %d is negative", store.ErrInvalid, version)
	}
	release, err := s.enter(ctx)
	if err != nil {
		return err
	}
	defer release()
	key := recordKey(kind, id)
	now := time.Now().UnixNano()
	filter := bson.D{{Key: "_id", Value: key}, live(now)}
	if version != 0 {
		filter = append(filter, bson.E{Key: "v", Value: version})
	}
	coll := s.db.Collection(recordsColl)
	res, err := coll.DeleteOne(ctx, filter)
	if err != nil {
		return s.fail("delete record", err)
	}
	if res.DeletedCount == 1 {
		return nil
	}
	err = coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}, live(now)}).Err()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return notFound(kind, id)
	case err != nil:
		return s.fail("delete record", err)
	}
	return conflict(kind, id)
}

// ListRecords returns live records of a kind in id order, after the given id.
func (s *Store) ListRecords(ctx context.Context, kind, after string, limit int) ([]store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := store.ValidateName("record kind", kind); err != nil {
		return nil, err
	}
	switch {
	case limit <= 0:
		limit = store.DefaultLimit
	case limit > store.MaxLimit:
		return nil, fmt.Errorf("%w: limit %d above %d", store.ErrInvalid, limit, store.MaxLimit)
	}
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	// Every id of the kind sorts after "<kind>:" and before "<kind>;" (';' follows ':').
	filter := bson.D{
		{Key: "_id", Value: bson.D{{Key: "$gt", Value: recordKey(kind, after)}, {Key: "$lt", Value: kind + ";"}}},
		live(time.Now().UnixNano()),
	}
	cur, err := s.db.Collection(recordsColl).Find(ctx, filter,
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, s.fail("list records", err)
	}
	var wire []wireRecord
	if err := cur.All(ctx, &wire); err != nil {
		return nil, s.fail("list records", err)
	}
	out := make([]store.Record, len(wire))
	for i, w := range wire {
		if out[i], err = w.record(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxIncrAttempts bounds the retries of Incr when concurrent calls keep resetting an expired
// counter under it; each retry means another caller made progress.
const maxIncrAttempts = 8

// Incr adds delta to a counter with single-document atomic updates.
//
// The common case is one findAndModify: $inc on the live counter, or, with upsert, creation of
// an absent one ($setOnInsert gives a new counter its expiry; later calls keep it). If the
// counter exists but has expired, the live filter misses and the upsert's insert hits the
// unique _id (a duplicate key error). Then the counter is reset to delta with a write that is
// conditional on it still being expired: of several callers racing to reset, exactly one wins,
// and the others find a live counter when they retry the $inc. If the TTL monitor deletes the
// expired counter meanwhile, the reset matches nothing and the retry creates it afresh. No
// increment is lost or applied twice: each is exactly one successful conditional write.
func (s *Store) Incr(ctx context.Context, name string, delta int64, expiresAt time.Time) (int64, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	if err := store.ValidateName("counter", name); err != nil {
		return 0, err
	}
	release, err := s.enter(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	coll := s.db.Collection(countersColl)
	var out struct {
		N int64 `bson:"n"`
	}
	after := options.After
	for range maxIncrAttempts {
		now := time.Now().UnixNano()
		update := bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: delta}}}}
		if !expiresAt.IsZero() {
			update = append(update, bson.E{Key: "$setOnInsert", Value: expiryFields(expiresAt)})
		}
		err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: name}, live(now)}, update,
			options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(after)).Decode(&out)
		if err == nil {
			return out.N, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return 0, s.fail("incr "+name, err)
		}

		set := bson.D{{Key: "n", Value: delta}}
		reset := bson.D{{Key: "$set", Value: set}}
		if expiresAt.IsZero() {
			reset = append(reset, bson.E{Key: "$unset", Value: bson.D{{Key: "xn", Value: ""}, {Key: "exp", Value: ""}}})
		} else {
			reset[0].Value = append(set, expiryFields(expiresAt)...)
		}
		expired := bson.D{{Key: "_id", Value: name}, {Key: "xn", Value: bson.D{{Key: "$lte", Value: now}}}}
		err = coll.FindOneAndUpdate(ctx, expired, reset, options.FindOneAndUpdate().SetReturnDocument(after)).Decode(&out)
		if err == nil {
			return out.N, nil
		}
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return 0, s.fail("reset expired counter "+name, err)
		}
	}
	return 0, fmt.Errorf("store/mongo: incr %s: gave up after %d attempts racing resets of the expired counter", name, maxIncrAttempts)
}
