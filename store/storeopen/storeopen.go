// Package storeopen maps a --store value to a backend and opens it. It is the one place that
// imports the backends, so that package store stays free of them and providerd and providerctl
// cannot open a store differently.
package storeopen

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"providerdir/config"
	"providerdir/store"
	"providerdir/store/embedded"
	"providerdir/store/mongo"
)

// Option adjusts how a store is opened.
type Option func(*options)

type options struct {
	mustExist bool
}

// MustExist refuses to create an embedded store that is not there yet. Commands that only read
// (providerctl status) use it, so that a mistyped directory is an error, not a new empty store.
func MustExist() Option { return func(o *options) { o.mustExist = true } }

// Open opens the store spec names.
func Open(ctx context.Context, spec config.StoreSpec, opts ...Option) (store.Store, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	switch spec.Backend {
	case config.BackendEmbedded:
		if o.mustExist {
			if _, err := os.Stat(spec.Dir); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("no store at %s", spec.Dir)
			}
		}
		s, err := embedded.Open(spec.Dir)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (another process, a running providerd perhaps, has this embedded store open; only one may)", err)
		}
		if err != nil { // return a nil interface, not a typed nil *embedded.Store
			return nil, err
		}
		return s, nil
	case config.BackendMongo:
		return mongo.Open(ctx, spec.URI)
	}
	return nil, fmt.Errorf("storeopen: unknown backend %q", spec.Backend)
}
