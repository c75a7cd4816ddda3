package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"providerdir/internal/config"
	"providerdir/internal/storeopen"
	"providerdir/store"
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

// storeCommand is a command that takes no argument but --store and runs f on the existing store
// within statusTimeout, writing to standard output.
func storeCommand(name, summary string, f func(context.Context, io.Writer, store.Store) error) *command {
	return &command{
		name:    name,
		args:    "[--store STORE]",
		summary: summary,
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			storeSpec := config.StoreFlag(fs, e.getenv)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments, got %q", args[0])
				}
				return withStore(ctx, statusTimeout, storeSpec, func(ctx context.Context, s store.Store) error {
					return f(ctx, e.stdout, s)
				}, storeopen.MustExist())
			}
		},
	}
}
