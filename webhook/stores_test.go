package webhook

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"providerdir/internal/storeopen"
	"providerdir/store"
)

// backends are the stores the outbox is tested on: the embedded store always, MongoDB when
// MONGODB_URI names a server (scripts/with-mongotest.sh sets it).
var backends = []struct {
	name string
	open func(testing.TB) store.Store
}{
	{"embedded", openStore},
	{"mongo", openMongo},
}

var mongoSeq atomic.Int64

// openMongo opens a store on a database of its own on MONGODB_URI's server, dropped when the
// test ends; without MONGODB_URI the test is skipped.
func openMongo(tb testing.TB) store.Store {
	tb.Helper()
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		tb.Skip("MONGODB_URI is not set (scripts/with-mongotest.sh sets it)")
	}
	u, err := url.Parse(uri)
	if err != nil {
		tb.Fatalf("MONGODB_URI: %v", err)
	}
	db := fmt.Sprintf("webhooktest_%d_%s_%d", os.Getpid(), time.Now().Format("150405"), mongoSeq.Add(1))
	u.Path = "/" + db
	spec, err := storeopen.Parse(u.String())
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := storeopen.Open(ctx, spec)
	if err != nil {
		tb.Fatalf("open %s: %v", db, err)
	}
	tb.Cleanup(func() {
		st.Close()
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
	})
	return st
}
