// Package storeopen parses a --store value (Spec) and opens the backend it names. It is the one place that
// imports the backends, so that package store stays free of them and providerd and providerctl
// cannot open a store differently.
package storeopen

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"providerdir/store"
	"providerdir/store/embedded"
	"providerdir/store/mongo"
	"providerdir/store/remote"
)

// Option adjusts how a store is opened.
type Option func(*options)

type options struct {
	mustExist bool
	embedded  []embedded.Option
}

// MustExist refuses to create an embedded store that is not there yet. Commands that only read
// (providerctl status) use it, so that a mistyped directory is an error, not a new empty store.
func MustExist() Option { return func(o *options) { o.mustExist = true } }

// CacheSize sets the block cache of an embedded store opened here (embedded.WithCacheSize); it
// has no effect on the other backends, or on a store reached through a running server's socket.
func CacheSize(bytes int64) Option {
	return func(o *options) { o.embedded = append(o.embedded, embedded.WithCacheSize(bytes)) }
}

// Open opens the store spec names, wrapped by store.Stacked so that every reader of a stacked
// generation sees its merged view, on any backend and through a running server's socket alike
// (the socket carries plain calls; the stack is resolved on this side of it).
func Open(ctx context.Context, spec Spec, opts ...Option) (store.Store, error) {
	s, err := open(ctx, spec, opts...)
	if err != nil {
		return nil, err
	}
	return store.Stacked(s), nil
}

// open opens the backend spec names.
func open(ctx context.Context, spec Spec, opts ...Option) (store.Store, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	switch spec.Backend {
	case BackendEmbedded:
		if o.mustExist {
			if _, err := os.Stat(spec.Dir); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("no store at %s", spec.Dir)
			}
		}
		s, err := embedded.Open(spec.Dir, o.embedded...)
		if locked(err) {
			// The embedded engine admits one process; a running providerd serves its store to
			// the others on a private socket beside the directory.
			if c, rerr := remote.Dial(ctx, remote.SocketPath(spec.Dir)); rerr == nil {
				return c, nil
			}
			return nil, fmt.Errorf("%w (another process has this embedded store open and serves it on no socket; only one may open it)", err)
		}
		if err != nil { // return a nil interface, not a typed nil *embedded.Store
			return nil, err
		}
		return s, nil
	case BackendMongo:
		return mongo.Open(ctx, spec.URI)
	}
	return nil, fmt.Errorf("storeopen: unknown backend %q", spec.Backend)
}

// locked reports whether opening failed because the store's lock is held: by another process
// (EWOULDBLOCK from the file lock) or by this one (pebble says so in its message).
func locked(err error) bool {
	return err != nil && (errors.Is(err, syscall.EWOULDBLOCK) || strings.Contains(err.Error(), "lock held by current process"))
}
