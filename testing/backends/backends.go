// Package backends opens the stores tests run on: every backend a suite must pass on, and a
// fresh embedded store. Only tests import it.
package backends

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"providerdir/store"
	"providerdir/store/embedded"
	storemongo "providerdir/store/mongo"
)

// Backend is one store backend under test.
type Backend struct {
	Name string
	// Open returns a fresh, empty store closed when the test ends, and a function opening a
	// second handle on the same data, as a second replica of the service would hold. The
	// embedded engine admits one process, and one handle per process, so its second handle is
	// the first one; on MongoDB it is a client of its own.
	Open func(tb testing.TB) (s store.Store, replica func() store.Store)
}

// Backends returns the embedded backend and the MongoDB one. The MongoDB backend needs
// MONGODB_URI (scripts/mongotest.sh start prints it); without it its tests skip, except under CI,
// where a suite that skipped would pass while testing nothing, so they fail.
func Backends() []Backend {
	return []Backend{{Name: "embedded", Open: openEmbedded}, {Name: "mongo", Open: openMongo}}
}

// Each runs fn once per backend, as a subtest named after it.
func Each(t *testing.T, fn func(t *testing.T, b Backend)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
}

// Embedded opens a fresh embedded store in a temporary directory.
func Embedded(tb testing.TB) store.Store {
	s, _ := openEmbedded(tb)
	return s
}

func openEmbedded(tb testing.TB) (store.Store, func() store.Store) {
	tb.Helper()
	s, err := embedded.Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s, func() store.Store { return s }
}

var dbSeq atomic.Int64

func openMongo(tb testing.TB) (store.Store, func() store.Store) {
	tb.Helper()
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		const how = `start a server with: eval "$(scripts/mongotest.sh start)"`
		if os.Getenv("CI") != "" {
			tb.Fatal("MONGODB_URI is not set; CI must run the MongoDB backend: " + how)
		}
		tb.Skip("MONGODB_URI is not set: " + how)
	}
	db := fmt.Sprintf("storetest_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, dbSeq.Add(1))
	dbURI := databaseURI(uri, db)
	open := func() store.Store {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := storemongo.Open(ctx, dbURI)
		if err != nil {
			tb.Fatalf("open %s: %v", db, err)
		}
		tb.Cleanup(func() { _ = s.Close() })
		return s
	}
	first := open()
	tb.Cleanup(func() { dropDatabase(tb, uri, db) })
	var once sync.Once
	var second store.Store
	return first, func() store.Store {
		once.Do(func() { second = open() })
		return second
	}
}

// databaseURI puts db into the path of a MongoDB URI, which may list several hosts (which
// net/url cannot parse) and may carry options after '?'.
func databaseURI(uri, db string) string {
	scheme, rest, found := strings.Cut(uri, "://")
	if !found {
		return uri
	}
	hostEnd := len(rest)
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		hostEnd = i
	}
	query := ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		query = rest[i:]
	}
	return scheme + "://" + rest[:hostEnd] + "/" + db + query
}

// dropDatabase removes a test database through a client of its own: the stores' clients are
// closed by then (cleanups run last-registered first).
func dropDatabase(tb testing.TB, uri, db string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		tb.Errorf("connect to drop %s: %v", db, err)
		return
	}
	defer func() { _ = client.Disconnect(ctx) }()
	if err := client.Database(db).Drop(ctx); err != nil {
		tb.Errorf("drop %s: %v", db, err)
	}
}
