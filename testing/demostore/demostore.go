// Package demostore builds the demo snapshot black-box tests share: a synthetic drop of 2,000
// providers in the real file formats, ingested with the built-in reference files into one
// embedded store per test binary. It is a test helper; only tests import it.
package demostore

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/store/embedded"
)

// Size and seed of the demo drop. Tests never write data to the snapshot; each makes its own keys
// and plays its own client address, so their quotas never meet.
const (
	Providers = 2000
	Seed      = 20250608
)

// Demo is the demo snapshot of one test binary.
type Demo struct {
	Store    store.Store
	Drop     string // the source drop's directory
	Manifest *synth.Manifest
}

var demo struct {
	once sync.Once
	root string // temporary directory holding the drop and the store
	d    Demo
	err  error
}

// Open generates and ingests the demo drop once per test binary.
func Open(tb testing.TB) Demo {
	tb.Helper()
	ref := reference.Embedded()
	demo.once.Do(func() {
		if demo.root, demo.err = os.MkdirTemp("", "rest-demo-"); demo.err != nil {
			return
		}
		demo.d.Drop = filepath.Join(demo.root, "drop")
		ctx := context.Background()
		demo.d.Manifest, demo.err = synth.Generate(ctx, synth.Config{Providers: Providers, Seed: Seed, Out: demo.d.Drop, Reference: ref})
		if demo.err != nil {
			return
		}
		if demo.d.Store, demo.err = embedded.Open(filepath.Join(demo.root, "db")); demo.err != nil {
			return
		}
		_, demo.err = ingest.Run(ctx, ingest.Options{Store: demo.d.Store, Dir: demo.d.Drop, Reference: ref})
	})
	if demo.err != nil {
		tb.Fatalf("demo snapshot: %v", demo.err)
	}
	return demo.d
}

// Close closes and removes the demo snapshot, if one was made; TestMain calls it after the tests
// ran.
func Close() {
	if demo.d.Store != nil {
		_ = demo.d.Store.Close()
	}
	if demo.root != "" {
		_ = os.RemoveAll(demo.root)
	}
}

// Main runs the tests of a package that opens the demo snapshot, then closes it; the package's
// TestMain calls it.
func Main(m *testing.M) {
	code := m.Run()
	Close()
	os.Exit(code)
}
