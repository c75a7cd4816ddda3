package ingest

import (
	"context"
	"runtime"
)

// inOrder runs work(0..n-1) on goroutines and hands each result to consume on the calling
// goroutine, in order. At most one call per core and one more run or have results waiting to be
// consumed, so every core stays busy while a result waits, and the memory results hold stays
// bounded. The first error stops the rest.
func inOrder[T any](ctx context.Context, n int, work func(context.Context, int) (T, error), consume func(T) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	out := make([]chan result, n)
	for k := range out {
		out[k] = make(chan result, 1) // a worker never waits to hand its result over
	}
	// A slot is taken per result being made or waiting to be consumed.
	slots := make(chan struct{}, runtime.GOMAXPROCS(0)+1)
	go func() {
		for k := range n {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				v, err := work(ctx, k)
				out[k] <- result{v, err}
			}()
		}
	}()
	for k := range n {
		var r result
		select {
		case r = <-out[k]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-slots
		if r.err != nil {
			return r.err
		}
		if err := consume(r.v); err != nil {
			return err
		}
	}
	return nil
}
