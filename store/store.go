// Package store owns the document-store contract every surface reads through and every backend
// implements: generation-scoped collections of JSON documents found by precomputed search keys,
// small versioned records with compare-and-swap and expiry, atomic counters, and the serving
// snapshot pointer that switches generations atomically.
//
// The store knows nothing of FHIR or of the federal files. Callers (the mapping package) compute
// a document's search keys when they write it; queries only look keys up, so user text never
// becomes a database operator.
//
//   - Documents live in collections inside generations: an id, an opaque JSON body and the
//     search keys. Find returns one page of the documents matching a conjunction of conditions,
//     ordered by id or by a key's param, with an opaque cursor that encodes the order value and
//     id of the last document returned, so concurrent writes never shift, skip or repeat a
//     document of a result set; Count is exact.
//   - Records are small versioned documents outside generations (API keys, clients, replay
//     guards): create at Version 0, compare-and-swap on Version, optional expiry. Counters are
//     atomic increments with optional expiry.
//   - The serving Snapshot maps each collection to the generation served. An ingest writes new
//     generations beside the serving ones and switches by one compare-and-swap of that record;
//     rollback is the same operation with the previous mapping, which Reclaim releases after the
//     rollback window so that unreferenced generations can be dropped. No backend needs
//     multi-document transactions or change streams.
//   - A collection's serving generation may be a stack (StackGeneration): a small top
//     generation laid over the view below it, holding the documents that are new or changed and
//     a mask (MaskCollection) of those it replaces or deletes. An update that touches a few
//     documents of a large collection then writes only those, yet switches like a full ingest.
//     Stacked wraps a backend so that reads of a stacked generation answer from the merged view
//     (Find pages in the query's order with the same cursors, exact Count), and every reader
//     that passes the snapshot's generation on sees the stack without knowing of it.
//   - A reader asks for no more than it uses: BodiesOnly and KeysOf leave keys undecoded, and an
//     Arena it lends takes the bodies of a read, so a server that serves a page and drops it
//     reuses the same memory for the next.
//   - A Loader fills an empty collection in one pass, visible at once on Commit as if it had
//     been Put batch by batch.
//   - Every backend answers ErrUnavailable when it cannot be reached, which every surface turns
//     into 503 with Retry-After; argument checks and cursor encoding are shared (validate.go),
//     so all backends reject the same calls.
//
// Backends live in sub-packages named after their technology (store/embedded, store/mongo) and
// prove themselves against one conformance suite, testing/storecontract. store/remote carries the
// contract over a private unix socket, so operator commands reach a running server's embedded
// store, and store/breaker fails calls at once while a backend cannot be reached.
package store

import (
	"context"
	"errors"
	"time"
)

// Sentinel errors. Backends return these (possibly wrapped); callers test with errors.Is.
var (
	// ErrNotFound: no document or live record with that id, or a generation that does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a compare-and-swap lost (the stored version differs from the expected one) or
	// a create found a live record already there.
	ErrConflict = errors.New("store: conflict")
	// ErrInvalid: the call itself is malformed (empty id, bad collection name, bad cursor ...).
	ErrInvalid = errors.New("store: invalid argument")
	// ErrClosed: the store was used after Close.
	ErrClosed = errors.New("store: closed")
	// ErrUnavailable: the store's server cannot be reached or did not answer in time, or calls
	// are being refused at once because the last ones failed that way (see store/breaker). The
	// call may succeed if retried later; surfaces answer 503 with a Retry-After of RetryAfter.
	ErrUnavailable = errors.New("store: unavailable")
)

// RetryAfterSeconds is how long, in whole seconds, a client is told to wait (the Retry-After
// header) before retrying a request that failed with ErrUnavailable: the time store/breaker
// refuses calls before it lets one through to try the store again.
const RetryAfterSeconds = 5

// RetryAfter is RetryAfterSeconds as a duration.
const RetryAfter = RetryAfterSeconds * time.Second

// Key is one precomputed search key of a document: a parameter name and a normalized value.
// A document may carry several keys with the same Param (for example one per name part).
type Key struct {
	Param string `json:"p" bson:"p"`
	Value string `json:"v" bson:"v"`
}

// Document is one stored document of a data collection.
type Document struct {
	// ID is unique within its collection and generation. At most MaxIDLen bytes, no NUL byte.
	ID string
	// Body is the document itself, opaque to the store (JSON by convention).
	Body []byte
	// Keys are the search keys the document is found by. Params and values may not contain a NUL
	// byte; values are compared byte-wise, so callers normalize them before writing.
	Keys []Key
}

// Match says how a Condition compares a key value.
type Match int

const (
	// Exact matches a key whose value equals one of the condition's values.
	Exact Match = iota
	// Prefix matches a key whose value starts with one of the condition's values.
	Prefix
)

// Condition matches documents that have at least one key with Param whose value matches one of
// Values (an OR within the condition), or a key of one of the Or alternatives' params whose value
// matches one of theirs. A query's conditions are joined with AND.
type Condition struct {
	Param  string
	Values []string
	Match  Match
	// Or are further params searched by the same condition, each with its values, compared
	// the same way: one search over several kinds of key, such as an address over its lines,
	// city, state and ZIP code, each of which is indexed under a param of its own.
	Or []Alternative
}

// Alternative is a further param of a Condition and the values it is searched for.
type Alternative struct {
	Param  string
	Values []string
}

// Terms returns the condition's params and their values, Param and Values first.
func (c Condition) Terms() []Alternative {
	return append([]Alternative{{Param: c.Param, Values: c.Values}}, c.Or...)
}

// Query selects documents of one collection in one generation.
type Query struct {
	Collection string
	Generation string
	Where      []Condition
	// OrderBy names a search-key param to order by (its smallest value per document), ties by ID.
	// Documents without a key for OrderBy are not returned. Empty orders by ID alone.
	OrderBy string
	// Descending reverses the whole order, ties included (equal values come by ID descending).
	Descending bool
	// After is the cursor of a previous page (Page.Next); empty starts at the beginning.
	After string
	// Limit caps the page size; 0 or less means DefaultLimit, above MaxLimit is an ErrInvalid.
	Limit int
	// BodiesOnly returns the documents with their ID and Body and with Keys nil, for a reader
	// that serves or compares bodies and never looks at keys (a scan of a whole collection, an
	// export): a backend keeping the keys beside the body then neither decodes nor returns
	// them, as GetBodies does for reads by id. The page and its cursor are the same.
	BodiesOnly bool
	// KeysOf, when not empty, returns each document with its keys of these params only (all of
	// them, in their stored order; Keys nil when it has none), for a reader that looks at a few
	// kinds of key (the references a page's includes follow, its order value): a backend keeping
	// the keys beside the body decodes only those. BodiesOnly takes precedence.
	KeysOf []string
	// Arena, when not nil, is memory the caller lends for the page's bodies (see Arena).
	Arena *Arena
}

// Page is one page of a Find.
type Page struct {
	Docs []Document
	// Next is the cursor of the following page, empty when this page is the last. Cursors stay
	// valid while the generation exists, and concurrent writes never shift them: a page starts
	// strictly after the last document of the page before it in the query's order.
	Next string
}

// Paging bounds.
const (
	DefaultLimit = 20
	MaxLimit     = 10000
	MaxIDLen     = 512
)

// Record is a small versioned record outside the data generations: API keys, clients,
// subscriptions, deliveries, manifests, replay guards.
type Record struct {
	Kind string
	ID   string
	// Version is 0 for a record not yet stored; the store sets 1 on create and adds 1 per update.
	Version int64
	Body    []byte
	// ExpiresAt, when not zero, is when the record stops existing: reads after it return
	// ErrNotFound and a create may take its place. Backends may reclaim the space later.
	// Records that expire (rate-limit windows, replay guards) are ephemeral: a backend may
	// acknowledge their writes before they are durable against a crash of the machine (never
	// of the process), since losing the last moments of a window costs nothing that matters.
	ExpiresAt time.Time
}

// Store is the narrow document store. Implementations are safe for concurrent use.
type Store interface {
	// Put writes a batch of documents into a collection of a generation, replacing documents with
	// the same ID (and their keys). A batch is applied whole or not at all on the embedded
	// backend; on MongoDB it is one unordered bulk write, retried whole by the caller on error.
	// Put keeps no reference to the documents' memory once it returns, so the caller may reuse
	// it.
	Put(ctx context.Context, generation, collection string, docs []Document) error
	// Get returns one document, or ErrNotFound.
	Get(ctx context.Context, generation, collection, id string) (Document, error)
	// GetMany returns the documents of a collection with the given ids, in the order of ids,
	// each once (an id given twice is returned at its first place): the documents a page
	// includes, read together rather than one round trip each. An id with no document is left
	// out, not an error. More than MaxLimit ids is ErrInvalid. The bodies may be copied into
	// arena when it is not nil (see Arena).
	GetMany(ctx context.Context, generation, collection string, ids []string, arena *Arena) ([]Document, error)
	// GetBodies is GetMany for a reader that serves documents' bodies and never looks at their
	// keys: the same documents in the same order, each with its ID and Body and with Keys nil,
	// so that a backend keeping the keys beside the body neither decodes nor returns them.
	GetBodies(ctx context.Context, generation, collection string, ids []string, arena *Arena) ([]Document, error)
	// Find returns one page of the documents matching the query, in a stable order. A generation
	// or collection that holds no documents gives an empty page, not ErrNotFound.
	Find(ctx context.Context, q Query) (Page, error)
	// Count returns the exact number of documents matching the query (After and Limit ignored).
	Count(ctx context.Context, q Query) (int64, error)
	// Generations lists the generations that hold any document, in ascending order.
	Generations(ctx context.Context) ([]string, error)
	// DropGeneration deletes every document of a generation. Dropping an absent one is no error.
	DropGeneration(ctx context.Context, generation string) error

	// GetRecord returns a live record, or ErrNotFound.
	GetRecord(ctx context.Context, kind, id string) (Record, error)
	// PutRecord creates (r.Version == 0) or compare-and-swaps (r.Version == stored version) a
	// record and returns it as stored, with its new Version. A lost race is ErrConflict, and so
	// is a compare-and-swap on a record that is absent or expired (the version read is gone).
	PutRecord(ctx context.Context, r Record) (Record, error)
	// DeleteRecord deletes a record if its stored version equals version (0 deletes whatever is
	// there). Deleting an absent record is ErrNotFound; a version mismatch is ErrConflict.
	DeleteRecord(ctx context.Context, kind, id string, version int64) error
	// ListRecords returns up to limit live records of a kind with ID greater than after, by ID.
	// A limit of 0 or less means DefaultLimit; above MaxLimit is ErrInvalid (as Query.Limit).
	ListRecords(ctx context.Context, kind, after string, limit int) ([]Record, error)

	// Incr atomically adds delta to a named counter and returns the new value. A counter that does
	// not exist (or has expired) starts from zero; expiresAt, when not zero, sets when the counter
	// expires (applied when the counter is created; later calls keep the first expiry).
	Incr(ctx context.Context, name string, delta int64, expiresAt time.Time) (int64, error)

	// Close releases the store. Calls after Close return ErrClosed.
	Close() error
}
