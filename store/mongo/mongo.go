// Package mongo is the store backend for MongoDB 6+ (replica sets and sharded clusters) and for
// FerretDB, through the official driver. It is the backend for a deployment that outgrows one
// machine: API replicas are stateless and share one database.
//
// It uses single-document operations only: no multi-document transactions and no change
// streams. FerretDB has neither, and on a sharded cluster both are costly. Everything the store
// contract makes atomic is one document here: a record's compare-and-swap, a counter, and the
// serving snapshot pointer (a record, see store.Switch).
//
// # Layout
//
// Each (generation, collection) pair is its own physical collection "data~<gen>~<coll>" ('~'
// cannot occur in a store name, so the name parses back unambiguously). Dropping a generation
// drops its collections, which frees the space at once, where deleting documents would not.
// Names too long for the server's namespace limit become "data~~<sha256>" and the pair is noted
// in the "catalog" collection so Generations can still name them. A data document is
//
//	{_id: id, b: BinData(body), k: ["<len(param)>:<param>=<value>", ...], s: {<param>: smallest value}}
//
// k holds the search keys in the caller's order (duplicates kept) and carries a multikey index,
// so an exact condition is an equality or $in on k and a prefix condition is an anchored regex
// on k, which MongoDB turns into a bounded index scan. The length prefix makes the param part
// self-delimiting without a separator byte (a param may hold any byte but NUL, and NUL cannot be
// stored, see below). s holds the smallest value per param, which is what Query.OrderBy sorts on;
// each param found in a written batch gets a {s.<param>: 1, _id: 1} index when the collection
// first sees it, so ordered pages are index walks. The store does not know which params callers
// order by, so it indexes all of them (up to maxSortIndexes per collection, below MongoDB's 64
// index limit); this costs write throughput during an ingest rather than a surprise index build
// on the first ordered query after a snapshot switch. Pages continue with a range condition on
// (order value, _id) built from the shared store.Cursor, never with skip.
//
// Records (kind, id) are documents of the "records" collection with _id "<kind>:<id>" (':' is
// not allowed in a kind), so ListRecords is one _id range scan. Counters live in "counters". An
// expiring record or counter carries xn (expiry in Unix nanoseconds, which the store compares
// against the client's clock, so expiry is exact and matches the embedded backend) and exp (the
// same instant as a BSON date rounded up to the millisecond, for the TTL index that reclaims
// space; rounding up means the TTL monitor never deletes a record that is still live).
//
// Ids, key values and params are stored as strings of valid UTF-8 whatever bytes they hold:
// every byte becomes the code point of the same number (see enc). The mapping keeps byte-wise
// order and prefixes, so sorting and prefix matching on the server agree with the contract's
// byte-wise comparison. Plain ASCII is stored unchanged.
//
// # FerretDB
//
// The tests run against FerretDB 1.24 on PostgreSQL (tools/mongotest). What it lacks, and what
// this package does about it:
//
//   - Strings cannot hold NUL (PostgreSQL jsonb rejects \u0000), hence no NUL separators.
//   - Invalid UTF-8 in strings is silently replaced by U+FFFD, hence enc.
//   - Field names cannot contain '.', and must not start with '$', hence escaped param names in s.
//   - createIndexes with several indexes that all exist already drops the connection (a panic in
//     the server), so indexes are created one per call.
//   - TTL indexes are not implemented (error code 238, NotImplemented). The error is ignored for
//     that index only: expired records stay invisible because every read filters on xn, they
//     are replaced by the next create, and they simply are not reclaimed in the background.
//   - Secondary indexes are PostgreSQL expression indexes over the whole field value: an array
//     becomes one B-tree entry, which never serves an element match and fails an insert whose
//     key array outgrows PostgreSQL's index row limit (about 2.7 KB). Its query engine also
//     filters and sorts in memory apart from top-level equality. So on FerretDB (detected by
//     buildInfo's ferretdbVersion) data collections get no secondary indexes.
//   - A query's equality on _id (or any field) becomes a jsonb containment test, which its
//     B-tree index on _id cannot serve, so finding one document by _id scans the table in
//     PostgreSQL; updates and upserts find their document that way. Put therefore inserts and
//     replaces only what already existed, instead of upserting every document.
//   - $elemMatch with more than one field condition is not implemented, which rules out storing
//     keys as {p, v} subdocuments.
//   - Conditional writes are not atomic: update, findAndModify and delete run the query, match
//     the filter in memory and then write by _id alone (UPDATE ... WHERE _id = $2), so two
//     compare-and-swaps from the same version can both succeed and concurrent $inc operations
//     lose increments. This backend relies on MongoDB's single-document atomicity and does not
//     work around it: on FerretDB 1.x with concurrent writers, records and counters are not
//     safe. The test server (tools/mongotest) runs those commands one at a time per collection,
//     which gives them MongoDB's semantics, so the suite checks this package's filters and
//     retries rather than the defect.
//   - An update (update, findAndModify, upserts) holds the PostgreSQL connection of the query that
//     found the document while it takes a second one for the write. With as many concurrent
//     updates as the server's pool has connections (pool_max_conns, 50 by default) every one
//     waits for its second connection and the server hangs for good. The driver may run up to
//     100 operations at once per client, so FerretDB needs a larger pool; tools/mongotest sets
//     250. Collections are also created explicitly before their first write, so concurrent
//     first writes do not all create the collection at once.
//   - $in is not handed to PostgreSQL: the server reads the whole collection and matches each
//     document in memory, so GetMany's one $in query on _id would cost a scan of the collection
//     per call, several seconds for a page's includes on a collection of some thousands. On
//     FerretDB GetMany therefore reads its documents by _id equality, a few at a time across
//     all of the store's callers (pointGetsAtOnce).
//   - endSessions is not implemented; the driver's call at Disconnect fails harmlessly.
//
// Generations are never reused after DropGeneration (they are allocated from a counter), so the
// per-process cache of which indexes exist is only cleared for drops made through this process.
package mongo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"providerdir/store"
	"providerdir/store/breaker"
)

// DefaultDatabase is the database used when the URI names none.
const DefaultDatabase = "providerdir"

const (
	recordsColl  = "records"
	countersColl = "counters"
	catalogColl  = "catalog"
	dataPrefix   = "data~"

	// maxNamespace is the longest "<db>.<collection>" namespace used as is: MongoDB's limit for
	// sharded collections (unsharded ones may reach 255) and FerretDB's collection name limit.
	maxNamespace = 235
	// maxSortIndexes caps the order indexes per collection below MongoDB's 64 indexes; params
	// beyond it are still ordered by, with an in-memory sort.
	maxSortIndexes = 48

	// codeNotImplemented is the server error FerretDB answers for a TTL index.
	codeNotImplemented = 238
	// codeNamespaceExists answers the creation of a collection that exists.
	codeNamespaceExists = 48
	// codeDuplicateKey is a write that hit a unique index (the _id).
	codeDuplicateKey = 11000
)

// Store is the MongoDB backend of store.Store.
type Store struct {
	client *mongo.Client
	db     *mongo.Database
	dbName string
	// indexData is whether data collections get their key and order indexes: not on FerretDB,
	// which cannot use them (see the package comment).
	indexData bool
	// pointReads is whether GetMany reads its documents one by one: on FerretDB, which
	// evaluates $in in memory over the whole collection but hands an equality on _id to
	// PostgreSQL (see the package comment).
	pointReads bool
	// pointSlots holds a token per read by _id in flight (pointGets).
	pointSlots chan struct{}
	// callSlots holds a token per call of the store's that may use a connection (enter); nil
	// when the pool is unbounded.
	callSlots chan struct{}
	closed    atomic.Bool

	mu    sync.Mutex
	colls map[string]*collState
}

var _ store.Store = (*Store)(nil)

// Client timeouts. The driver's defaults (30 s to find a server, 30 s to connect, no limit on an
// operation) make every call wait half a minute when the server is down before it fails; these
// bound each call so that a client is told the store is unavailable while it can still retry.
// The URI's serverSelectionTimeoutMS, connectTimeoutMS and timeoutMS override them.
const (
	// selectionTimeout bounds the wait for a server able to take the operation (the primary,
	// for writes). The driver waits only while it knows of no such server: a healthy
	// deployment is known, and a server it lost is rediscovered within a heartbeat's round
	// trip once it is back. A request may make two store calls (its key, then its data) before
	// the circuit opens, each waiting this long, and should still be answered within a
	// second. Calls during a primary election fail as unavailable rather than wait for it;
	// the URI's serverSelectionTimeoutMS raises it where the deployment needs longer.
	selectionTimeout = 500 * time.Millisecond
	// connectTimeout bounds opening a connection, TCP and handshake, for operations and for the
	// driver's monitoring of the servers.
	connectTimeout = 2 * time.Second
	// operationTimeout bounds a whole operation whose context has no earlier deadline,
	// including retries and reading every batch of a cursor: a server that accepts connections
	// but stops answering fails the call instead of holding it forever. It is generous because
	// an ingest's bulk writes of a thousand documents are operations too.
	operationTimeout = 10 * time.Second
	// firstAnswerWait bounds how long Open waits for the deployment's first answer. A call
	// finds a server within selectionTimeout once the driver knows the deployment, but the
	// first one also opens a connection and hands shake with a server that may be busy or
	// still starting; Open asks again until this much time has passed, so that a wrong URI
	// still fails at startup.
	firstAnswerWait = 10 * time.Second
)

// Open connects to the deployment at uri and prepares the records and counters collections. The
// database is the URI's path ("mongodb://host/dbname"), DefaultDatabase when it has none. Open
// fails when the server does not answer, so a wrong URI shows at startup, not on first use.
//
// Calls that cannot reach the server fail with store.ErrUnavailable, and the store is returned
// behind a circuit breaker (store/breaker, default threshold and cool-down): once calls fail
// that way several times in a row, the next ones fail at once instead of each waiting out the
// timeouts, until a probe finds the server back.
func Open(ctx context.Context, uri string) (store.Store, error) {
	s, err := open(ctx, uri)
	if err != nil {
		return nil, err
	}
	return breaker.Wrap(s, breaker.New(breaker.DefaultThreshold, breaker.DefaultCoolDown, nil)), nil
}

// open connects without the circuit breaker; extra client options (the benchmarks' command
// monitor) apply after the URI's.
func open(ctx context.Context, uri string, extra ...*options.ClientOptions) (*Store, error) {
	cs, err := connstring.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("store/mongo: bad URI: %w", err)
	}
	dbName := cs.Database
	if dbName == "" {
		dbName = DefaultDatabase
	}
	base := options.Client().
		SetServerSelectionTimeout(selectionTimeout).
		SetConnectTimeout(connectTimeout).
		SetTimeout(operationTimeout).
		ApplyURI(uri). // after the defaults, so that the URI's options win
		SetAppName("providerdir")
	client, err := mongo.Connect(append([]*options.ClientOptions{base}, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("store/mongo: connect: %w", err)
	}
	s := &Store{client: client, db: client.Database(dbName), dbName: dbName, colls: map[string]*collState{}}
	s.pointSlots, s.callSlots = slots(cs)
	if err := s.prepare(ctx); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

// prepare checks that the server answers, finds out whether it is FerretDB, and creates the TTL
// indexes of the records and counters collections.
func (s *Store) prepare(ctx context.Context) error {
	info, err := s.firstAnswer(ctx)
	if err != nil {
		return fmt.Errorf("store/mongo: server does not answer: %w", err)
	}
	_, ferret := info["ferretdbVersion"]
	s.indexData, s.pointReads = !ferret, ferret
	for _, name := range []string{recordsColl, countersColl} {
		if err := s.createCollection(ctx, name); err != nil {
			return err
		}
		_, err := s.db.Collection(name).Indexes().CreateOne(ctx, mongo.IndexModel{
			Keys:    bson.D{{Key: "exp", Value: 1}},
			Options: options.Index().SetName("exp_ttl").SetExpireAfterSeconds(0),
		})
		var se mongo.ServerError
		if err != nil && !(errors.As(err, &se) && se.HasErrorCode(codeNotImplemented)) {
			return fmt.Errorf("store/mongo: create TTL index on %s: %w", name, err)
		}
	}
	return nil
}

// firstAnswer asks the server for its build information until it answers, a call fails other
// than by finding no server or no connection, or firstAnswerWait (or ctx) ends.
func (s *Store) firstAnswer(ctx context.Context) (bson.M, error) {
	ctx, cancel := context.WithTimeout(ctx, firstAnswerWait)
	defer cancel()
	for {
		var info bson.M
		err := s.db.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info)
		if err == nil || !(mongo.IsTimeout(err) || mongo.IsNetworkError(err)) {
			return info, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createCollection creates a collection unless it exists. Writes would create it implicitly,
// but on FerretDB many concurrent first writes to a missing collection all queue on its catalog
// lock (see the package comment on its connection pool), so collections are created up front,
// one caller at a time.
func (s *Store) createCollection(ctx context.Context, name string) error {
	err := s.db.CreateCollection(ctx, name)
	var se mongo.ServerError
	if err != nil && !(errors.As(err, &se) && se.HasErrorCode(codeNamespaceExists)) {
		return s.fail("create collection "+name, err)
	}
	return nil
}

// Close disconnects from the server. Later calls return store.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return store.ErrClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.client.Disconnect(ctx); err != nil {
		return fmt.Errorf("store/mongo: disconnect: %w", err)
	}
	return nil
}

// driverPoolSize is the driver's connection pool size when the URI sets no maxPoolSize.
const driverPoolSize = 100

// slots sizes the store's two waiting lines for connections from the pool's size: the point
// reads GetMany may have in flight (at most pointGetsAtOnce, and half the pool) and the calls
// that may use a connection beside them, so that together they never ask for more connections
// than the pool has. The driver bounds its wait for a pooled connection by the server selection
// timeout, which is short so that calls fail soon when the server is down; a call that found
// every connection busy on a healthy server would fail the same way, as unavailable, and count
// towards opening the circuit. Waiting in these lines instead, a call waits for its turn as long
// as its context allows. A URI's maxPoolSize=0 (no bound) leaves calls unbounded.
func slots(cs *connstring.ConnString) (points, calls chan struct{}) {
	pool := uint64(driverPoolSize)
	if cs.MaxPoolSizeSet {
		pool = cs.MaxPoolSize
	}
	if pool == 0 {
		return make(chan struct{}, pointGetsAtOnce), nil
	}
	p := max(1, min(pointGetsAtOnce, pool/2))
	return make(chan struct{}, p), make(chan struct{}, max(1, pool-p))
}

// enter waits for a call slot (see slots), as long as ctx allows and at most the operation
// timeout; the caller runs its operations, then calls release.
func (s *Store) enter(ctx context.Context) (release func(), err error) {
	if s.callSlots == nil {
		return func() {}, nil
	}
	leave := func() { <-s.callSlots }
	select {
	case s.callSlots <- struct{}{}:
		return leave, nil
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, operationTimeout)
	defer cancel()
	select {
	case s.callSlots <- struct{}{}:
		return leave, nil
	case <-ctx.Done():
		return nil, s.fail("wait for a connection", ctx.Err())
	}
}

func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return nil
}

// fail wraps a driver error for the caller; a call racing Close reports ErrClosed, and one that
// could not reach the server (see unreachable) ErrUnavailable.
func (s *Store) fail(op string, err error) error {
	if errors.Is(err, mongo.ErrClientDisconnected) || s.closed.Load() {
		return fmt.Errorf("store/mongo: %s: %w", op, store.ErrClosed)
	}
	if unreachable(err) {
		return fmt.Errorf("store/mongo: %s: %w: %w", op, store.ErrUnavailable, err)
	}
	return fmt.Errorf("store/mongo: %s: %w", op, err)
}

// unreachable reports whether a driver error says the server could not be reached or did not
// answer in time: no server could be selected, a connection failed or broke, or the operation
// or its caller's context ran out of time. A server's answer that refuses the operation (a
// duplicate key, a bad command) is none of these.
func unreachable(err error) bool {
	var sel topology.ServerSelectionError
	return errors.As(err, &sel) || mongo.IsNetworkError(err) || mongo.IsTimeout(err)
}

// enc maps a byte string to valid UTF-8 by reading each byte as the code point of the same
// number (ISO 8859-1). BSON strings must be UTF-8 and FerretDB replaces invalid sequences, but
// the contract allows any bytes. The mapping is a homomorphism of concatenation that preserves
// byte-wise order, so prefixes and comparisons on the server mean what they mean on the raw
// bytes. ASCII, the common case, maps to itself without allocating.
func enc(s string) string {
	i := 0
	for i < len(s) && s[i] < 0x80 {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + (len(s) - i))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

// dec reverses enc.
func dec(s string) (string, error) {
	i := 0
	for i < len(s) && s[i] < 0x80 {
		i++
	}
	if i == len(s) {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for _, r := range s[i:] {
		if r > 0xff {
			return "", fmt.Errorf("store/mongo: stored string %q was not written by this package", s)
		}
		b = append(b, byte(r))
	}
	return string(b), nil
}

// encField escapes a param for use as a field name: bytes other than ASCII letters, digits, '_'
// and '-' become "~XX". Field names may not contain '.' or start with '$', and FerretDB rejects
// both.
func encField(param string) string {
	var b strings.Builder
	for i := 0; i < len(param); i++ {
		c := param[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "~%02X", c)
		}
	}
	return b.String()
}
