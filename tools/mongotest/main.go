// Command mongotest runs FerretDB, a MongoDB-protocol server, on a PostgreSQL database so that the
// mongo store backend can be tested on a machine where MongoDB itself cannot be installed.
//
// It lives in its own module because FerretDB pulls in dozens of modules (and older versions of
// some the service uses); keeping them out of the service's module graph keeps the service's
// dependencies its own. FerretDB's own command panics when built from the module rather than from
// its repository, so this program embeds the library (package ferretdb) instead.
//
// Usage:
//
//	mongotest -postgresql-url postgres://user@127.0.0.1:5432/db [-listen 127.0.0.1:0] [-uri-file FILE] [-serialize-writes=false]
//	mongotest -check mongodb://127.0.0.1:27017/
//
// The server listens until SIGINT or SIGTERM. Once it answers a listDatabases round trip (which
// also proves the PostgreSQL side works) it prints its MongoDB URI on stdout and, with -uri-file,
// writes it to that file atomically, so a script can wait for the file instead of polling a port.
// -check exits 0 when a server at the URI answers and 1 otherwise.
//
// Clients reach FerretDB through a relay that runs conditional writes one at a time per
// collection, because FerretDB 1.24 does not apply them atomically (serialize.go says more).
//
// FerretDB 1.24 runs an update (update, findAndModify, upserts) while the query that found the
// document still holds its PostgreSQL connection, and takes a second connection for the write.
// Once as many updates run at once as its pool has connections (pool_max_conns, 50 by default),
// each waits for a second connection forever and the whole server stops answering. The
// conformance suite runs 50 concurrent updates, and one driver client may run 100, so unless the
// URL says otherwise the pool is raised to defaultPoolMaxConns (PostgreSQL must allow that many
// connections; scripts/mongotest.sh configures it).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on (port 0 picks a free one)")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL connection URL of the database FerretDB stores into")
	uriFile := flag.String("uri-file", "", "write the MongoDB URI to this file once the server answers")
	check := flag.String("check", "", "only check that a server at this MongoDB URI answers, then exit")
	// FerretDB logs every error it answers at warn, including the endSessions every driver sends
	// on disconnect, so the default keeps only its own errors.
	logLevel := flag.String("log-level", "error", "FerretDB log level: debug, info, warn or error")
	serialize := flag.Bool("serialize-writes", true, "run update, findAndModify and delete one at a time per collection, for MongoDB's single-document atomicity")
	flag.Parse()

	if *check != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := probe(ctx, *check); err != nil {
			fmt.Fprintln(os.Stderr, "mongotest:", err)
			os.Exit(1)
		}
		return
	}
	if *pgURL == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: mongotest -postgresql-url URL [-listen ADDR] [-uri-file FILE] | mongotest -check URI")
		os.Exit(2)
	}
	if err := run(*listen, *pgURL, *uriFile, *logLevel, *serialize); err != nil {
		fmt.Fprintln(os.Stderr, "mongotest:", err)
		os.Exit(1)
	}
}

// gcMemoryLimit is the heap size at which the server collects garbage (see run).
const gcMemoryLimit = 1 << 30

// defaultPoolMaxConns is FerretDB's PostgreSQL pool size unless the URL sets pool_max_conns.
const defaultPoolMaxConns = "250"

func run(listen, pgURL, uriFile, logLevel string, serialize bool) error {
	// FerretDB spends much of a query decoding every document of the collection (it filters in
	// memory), and a good part of that in the garbage collector. A throwaway test server can
	// trade memory for that CPU: it collects only when its heap reaches gcMemoryLimit, which its
	// live data (a few tens of MB) is far below, so collections are rare. GOGC or GOMEMLIMIT in
	// the environment choose otherwise.
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(gcMemoryLimit)
	}
	u, err := url.Parse(pgURL)
	if err != nil {
		return fmt.Errorf("bad -postgresql-url: %w", err)
	}
	if q := u.Query(); !q.Has("pool_max_conns") {
		q.Set("pool_max_conns", defaultPoolMaxConns)
		u.RawQuery = q.Encode()
		pgURL = u.String()
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return fmt.Errorf("bad -log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	// With the relay, FerretDB itself listens on a private loopback port and the relay on listen.
	var front net.Listener
	ferretAddr := listen
	if serialize {
		if front, err = net.Listen("tcp", listen); err != nil {
			return err
		}
		defer front.Close()
		ferretAddr = "127.0.0.1:0"
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: ferretAddr},
		Logger:        logger,
		Handler:       "postgresql",
		PostgreSQLURL: pgURL,
	})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	// MongoDBURI blocks until the listener is bound, so it is only called once Run has started.
	uri := f.MongoDBURI()
	if serialize {
		u, err := url.Parse(uri)
		if err != nil {
			return err
		}
		go newSerializer(u.Host).serve(front)
		u.Host = front.Addr().String()
		uri = u.String()
	}
	if err := waitReady(ctx, uri, done); err != nil {
		stop()
		<-done
		return err
	}
	fmt.Println(uri)
	if uriFile != "" {
		if err := writeAtomic(uriFile, uri+"\n"); err != nil {
			stop()
			<-done
			return err
		}
		defer os.Remove(uriFile)
	}

	return <-done
}

// waitReady probes the server until it answers or startup fails. The first round trip also makes
// FerretDB open its PostgreSQL pool, so a bad PostgreSQL URL is reported here, not by the first test.
func waitReady(ctx context.Context, uri string, done <-chan error) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := probe(pctx, uri)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server at %s did not answer: %w", uri, err)
		}
		select {
		case runErr := <-done:
			return fmt.Errorf("server stopped during startup: %v", runErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// probe connects to uri and lists databases, which needs the backing PostgreSQL to answer too.
func probe(ctx context.Context, uri string) error {
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(uri).SetServerSelectionTimeout(3*time.Second))
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	_, err = client.ListDatabaseNames(ctx, bson.D{})
	return err
}

func writeAtomic(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".uri-*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(content)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
