package testenv

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

// The demo snapshot: a synthetic drop of 2,000 providers in the real file formats, ingested with
// the real Census and NUCC reference files into one embedded store shared by the black-box tests
// of a test binary. Tests never write data to it; each makes its own keys and plays its own
// client address, so their quotas never meet.
const (
	DemoProviders = 2000
	DemoSeed      = 20250608
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

// DemoSnapshot generates and ingests the demo drop once per test binary.
func DemoSnapshot(tb testing.TB) Demo {
	tb.Helper()
	ref := reference.Embedded()
	demo.once.Do(func() {
		if demo.root, demo.err = os.MkdirTemp("", "rest-demo-"); demo.err != nil {
			return
		}
		demo.d.Drop = filepath.Join(demo.root, "drop")
		ctx := context.Background()
		demo.d.Manifest, demo.err = synth.Generate(ctx, synth.Config{Providers: DemoProviders, Seed: DemoSeed, Out: demo.d.Drop, Reference: ref})
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

// CloseDemo closes and removes the demo snapshot, if one was made; TestMain calls it after the
// tests ran.
func CloseDemo() {
	if demo.d.Store != nil {
		_ = demo.d.Store.Close()
	}
	if demo.root != "" {
		_ = os.RemoveAll(demo.root)
	}
}
