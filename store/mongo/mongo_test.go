package mongo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"providerdir/store"
	"providerdir/testing/storecontract"
)

// The suite needs a MongoDB-protocol server. scripts/mongotest.sh starts one (FerretDB on a
// private PostgreSQL); `make test` does that itself.
const howToStart = `start one with: eval "$(scripts/mongotest.sh start)"`

// TestMain runs the checks of the suite 16 at a time unless -parallel says otherwise: they wait
// on the server's round trips far more than they compute, each on a database of its own.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", "16"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// TestStore runs beside TestUnavailableServer and TestOpenWaitsForFirstAnswer, which spend
// their time waiting on a relay that cuts the server off, not on the server.
func TestStore(t *testing.T) {
	t.Parallel()
	storecontract.Run(t, func(t *testing.T) store.Store { return openTest(t) })
}

func BenchmarkStore(b *testing.B) {
	storecontract.Bench(b, func(b *testing.B) store.Store { return openTest(b) })
}

var dbSeq atomic.Int64

// openTest opens a store on a database of its own, dropped when the test ends. In CI the server
// must be there: a suite that skips there would pass while testing nothing.
func openTest(tb testing.TB) store.Store { return openTestWith(tb) }

// serverURI is the server the suite runs against (MONGODB_URI). Without one the test is
// skipped, except under CI, which must run the suite.
func serverURI(tb testing.TB) string {
	tb.Helper()
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		if os.Getenv("CI") != "" {
			tb.Fatal("MONGODB_URI is not set; CI must run the mongo backend's suite: " + howToStart)
		}
		tb.Skip("MONGODB_URI is not set: " + howToStart)
	}
	return uri
}

// openTestWith is openTest with further client options.
func openTestWith(tb testing.TB, extra ...*options.ClientOptions) *Store {
	tb.Helper()
	uri := serverURI(tb)
	// Database names must suit FerretDB too: letters, digits, '_' and '-', at most 63 bytes.
	db := fmt.Sprintf("storetest_%d_%s_%d", os.Getpid(), time.Now().Format("150405"), dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := open(ctx, withDatabase(uri, db), extra...)
	if err != nil {
		tb.Fatalf("open %s: %v", db, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if s.closed.Load() {
			// The suite closed it; drop the database through a connection of our own.
			again, err := open(ctx, withDatabase(uri, db))
			if err != nil {
				tb.Errorf("reopen %s to drop it: %v", db, err)
				return
			}
			s = again
		}
		if err := s.db.Drop(ctx); err != nil {
			tb.Errorf("drop database %s: %v", db, err)
		}
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			tb.Errorf("close: %v", err)
		}
	})
	return s
}

// withDatabase returns uri with its database path set to db, keeping hosts and options. A URI
// may list several hosts, which net/url does not parse, so this works on the text.
func withDatabase(uri, db string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return uri
	}
	hosts, query := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		hosts = rest[:i]
		if j := strings.IndexByte(rest[i:], '?'); j >= 0 {
			query = rest[i+j:]
		}
	}
	return scheme + "://" + hosts + "/" + db + query
}

func TestWithDatabase(t *testing.T) {
	cases := map[string]string{
		"mongodb://h":                         "mongodb://h/d",
		"mongodb://h/":                        "mongodb://h/d",
		"mongodb://h:1,k:2/old?replicaSet=rs": "mongodb://h:1,k:2/d?replicaSet=rs",
		"mongodb://u:p@h?tls=true":            "mongodb://u:p@h/d?tls=true",
	}
	for in, want := range cases {
		if got := withDatabase(in, "d"); got != want {
			t.Errorf("withDatabase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEncoding checks the stored string forms the server compares: they must keep byte-wise
// order and prefixes for any bytes, which the conformance suite exercises only with UTF-8.
func TestEncoding(t *testing.T) {
	values := []string{"", "a", "ab", "b", "\x01", "\x7f", "\x80", "\xc3\xa9", "\xe9", "\xff", "\xff\x00", "é", "日本", "a\xffb"}
	for _, a := range values {
		ea := enc(a)
		if back, err := dec(ea); err != nil || back != a {
			t.Errorf("dec(enc(%q)) = %q, %v", a, back, err)
		}
		if !utf8.ValidString(ea) {
			t.Errorf("enc(%q) = %q is not valid UTF-8", a, ea)
		}
		for _, b := range values {
			if got, want := strings.Compare(ea, enc(b)), strings.Compare(a, b); got != want {
				t.Errorf("compare(enc(%q), enc(%q)) = %d, raw %d", a, b, got, want)
			}
			if got, want := strings.HasPrefix(ea, enc(b)), strings.HasPrefix(a, b); got != want {
				t.Errorf("hasPrefix(enc(%q), enc(%q)) = %v, raw %v", a, b, got, want)
			}
		}
	}
	for _, k := range []store.Key{{Param: "p", Value: ""}, {Param: "a=b:c", Value: "=:"}, {Param: "\xff", Value: "\xfe"}, {Param: "12", Value: "3:x"}} {
		if got, err := decKey(encKey(k)); err != nil || got != k {
			t.Errorf("decKey(encKey(%q)) = %q, %v", k, got, err)
		}
	}
}

// TestLongNames writes through names too long for a namespace, which are stored under a hashed
// collection name and found again through the catalog.
func TestLongNames(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	gen, coll := strings.Repeat("g", 128), strings.Repeat("c", 128)
	d := store.Document{ID: "a", Body: []byte("x"), Keys: []store.Key{{Param: "k", Value: "v"}}}
	if err := s.Put(ctx, gen, coll, []store.Document{d}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, gen, coll, "a"); err != nil || string(got.Body) != "x" {
		t.Fatalf("Get = %q, %v", got.Body, err)
	}
	q := store.Query{Generation: gen, Collection: coll, Where: []store.Condition{{Param: "k", Values: []string{"v"}}}, OrderBy: "k"}
	if p, err := s.Find(ctx, q); err != nil || len(p.Docs) != 1 {
		t.Fatalf("Find = %d docs, %v", len(p.Docs), err)
	}
	if gens, err := s.Generations(ctx); err != nil || len(gens) != 1 || gens[0] != gen {
		t.Fatalf("Generations = %q, %v", gens, err)
	}
	if err := s.DropGeneration(ctx, gen); err != nil {
		t.Fatal(err)
	}
	if gens, err := s.Generations(ctx); err != nil || len(gens) != 0 {
		t.Fatalf("Generations after drop = %q, %v", gens, err)
	}
	if _, err := s.Get(ctx, gen, coll, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after drop: %v", err)
	}
}

// TestIndexes runs the index path that MongoDB takes even on FerretDB (where the store skips it
// because FerretDB cannot use the indexes), and checks the indexes exist and queries still agree.
func TestIndexes(t *testing.T) {
	s := openTest(t).(*Store)
	s.indexData = true
	ctx := t.Context()
	docs := []store.Document{
		{ID: "a", Body: []byte("1"), Keys: []store.Key{{Param: "name", Value: "smith"}, {Param: "a.b$c", Value: "2"}}},
		{ID: "b", Body: []byte("2"), Keys: []store.Key{{Param: "name", Value: "smythe"}, {Param: "a.b$c", Value: "1"}}},
	}
	// Twice: the second Put must not create anything again (FerretDB drops the connection when
	// asked to create indexes that all exist).
	for range 2 {
		if err := s.Put(ctx, "g1", "c", docs); err != nil {
			t.Fatal(err)
		}
	}
	phys, _ := s.physName("g1", "c")
	specs, err := s.db.Collection(phys).Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, spec := range specs {
		names = append(names, spec.Name)
	}
	for _, want := range []string{"k", orderField("name") + "_1__id_1", orderField("a.b$c") + "_1__id_1"} {
		if !slices.Contains(names, want) {
			t.Errorf("indexes %q lack %q", names, want)
		}
	}
	p, err := s.Find(ctx, store.Query{Generation: "g1", Collection: "c", OrderBy: "a.b$c",
		Where: []store.Condition{{Param: "name", Values: []string{"sm"}, Match: store.Prefix}}})
	if err != nil || len(p.Docs) != 2 || p.Docs[0].ID != "b" {
		t.Fatalf("Find over indexed fields = %v, %v", p.Docs, err)
	}
}

// TestPointReadsBounded: on FerretDB GetMany reads its documents by _id, and each such read
// scans the whole collection on the server. However many callers read at once, the store has at
// most pointGetsAtOnce of them in flight, so that under load each read stays short of the
// operation timeout rather than all of them slowing down together until they time out.
func TestPointReadsBounded(t *testing.T) {
	var inFlight, most atomic.Int64
	done := func(name string) {
		if name == "find" {
			inFlight.Add(-1)
		}
	}
	s := openTestWith(t, options.Client().SetMonitor(&event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			if e.CommandName != "find" {
				return
			}
			n := inFlight.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
		},
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) { done(e.CommandName) },
		Failed:    func(_ context.Context, e *event.CommandFailedEvent) { done(e.CommandName) },
	}))
	if !s.pointReads {
		t.Skip("GetMany is one $in query on this server")
	}
	ctx := t.Context()
	var docs []store.Document
	var ids []string
	for i := range 40 {
		id := fmt.Sprintf("d%02d", i)
		docs = append(docs, store.Document{ID: id, Body: []byte(id)})
		ids = append(ids, id)
	}
	if err := s.Put(ctx, "g1", "c", docs); err != nil {
		t.Fatal(err)
	}
	most.Store(0)
	const callers = 16
	errs := make(chan error, callers)
	for range callers {
		go func() {
			got, err := s.GetMany(ctx, "g1", "c", append([]string{"absent"}, ids...), nil)
			if err == nil && len(got) != len(ids) {
				err = fmt.Errorf("GetMany returned %d documents, want %d", len(got), len(ids))
			}
			for i := 0; err == nil && i < len(got); i++ {
				if got[i].ID != ids[i] || string(got[i].Body) != ids[i] {
					err = fmt.Errorf("GetMany's document %d is %q (%q), want %q", i, got[i].ID, got[i].Body, ids[i])
				}
			}
			errs <- err
		}()
	}
	for range callers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := most.Load(); n > pointGetsAtOnce {
		t.Errorf("%d reads by _id were in flight at once, want at most %d", n, pointGetsAtOnce)
	}
}

// The store's lines for connections never ask for more connections than the pool has, and
// leave calls unbounded when the pool is.
func TestSlots(t *testing.T) {
	tests := []struct {
		uri           string
		points, calls int // calls -1: no line
	}{
		{"mongodb://h/db", pointGetsAtOnce, driverPoolSize - pointGetsAtOnce},
		{"mongodb://h/db?maxPoolSize=500", pointGetsAtOnce, 500 - pointGetsAtOnce},
		{"mongodb://h/db?maxPoolSize=30", 15, 15},
		{"mongodb://h/db?maxPoolSize=2", 1, 1},
		{"mongodb://h/db?maxPoolSize=1", 1, 1},
		{"mongodb://h/db?maxPoolSize=0", pointGetsAtOnce, -1},
	}
	for _, tt := range tests {
		cs, err := connstring.Parse(tt.uri)
		if err != nil {
			t.Fatal(err)
		}
		points, calls := slots(cs)
		gotCalls := -1
		if calls != nil {
			gotCalls = cap(calls)
		}
		if cap(points) != tt.points || gotCalls != tt.calls {
			t.Errorf("%s: %d point reads and %d calls, want %d and %d", tt.uri, cap(points), gotCalls, tt.points, tt.calls)
		}
	}
}
