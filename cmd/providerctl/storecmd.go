package main

import (
	"context"
	"fmt"
	"time"

	"providerdir/store"
	"providerdir/store/storeopen"
)

// withStore opens the store named by --store for one operation bounded by timeout, so that an
// operator gets an answer or an error, not a hang on an unreachable MongoDB. A --store value that
// does not parse is a usage error.
func withStore(ctx context.Context, timeout time.Duration, spec func() (storeopen.Spec, error), f func(context.Context, store.Store) error, opts ...storeopen.Option) error {
	sp, err := spec()
	if err != nil {
		return usageError{err}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := storeopen.Open(ctx, sp, opts...)
	if err != nil {
		return fmt.Errorf("open store %s: %w", sp, err)
	}
	defer s.Close()
	return f(ctx, s)
}
