// Package synthdrops generates the synthetic source drops the ingest and delivery tests read: a
// small base drop and its evolved successor, in the real file formats, once per test binary and
// size. Only tests import it.
package synthdrops

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"providerdir/source/reference"
	"providerdir/source/synth"
)

// Drops are a base drop and the drop that follows it, each with its generation manifest.
type Drops struct {
	Base         string
	BaseManifest *synth.Manifest
	Next         string
	NextManifest *synth.Manifest
}

var made struct {
	mu    sync.Mutex
	root  string // temporary directory holding every pair
	pairs map[size]*pair
}

// size is what tells drops apart.
type size struct {
	providers int64
	seed      uint64
}

type pair struct {
	once sync.Once
	d    Drops
	err  error
}

// Generate returns the drops of providers providers from seed, generating them on the first call
// of the test binary.
func Generate(tb testing.TB, providers int64, seed uint64) Drops {
	tb.Helper()
	p, err := pairOf(providers, seed)
	if err != nil {
		tb.Fatalf("generate drops: %v", err)
	}
	p.once.Do(func() {
		dir := filepath.Join(made.root, strconv.FormatInt(providers, 10)+"-"+strconv.FormatUint(seed, 10))
		p.d.Base, p.d.Next = filepath.Join(dir, "base"), filepath.Join(dir, "next")
		ctx, ref := context.Background(), reference.Embedded()
		if p.d.BaseManifest, p.err = synth.Generate(ctx, synth.Config{Providers: providers, Seed: seed, Out: p.d.Base, Reference: ref}); p.err != nil {
			return
		}
		p.d.NextManifest, p.err = synth.Generate(ctx, synth.Config{Seed: seed, Out: p.d.Next, Reference: ref, EvolveFrom: p.d.Base})
	})
	if p.err != nil {
		tb.Fatalf("generate drops: %v", p.err)
	}
	return p.d
}

// pairOf returns the entry of one size and seed, making the binary's directory on first use.
func pairOf(providers int64, seed uint64) (*pair, error) {
	made.mu.Lock()
	defer made.mu.Unlock()
	if made.root == "" {
		root, err := os.MkdirTemp("", "drops-")
		if err != nil {
			return nil, err
		}
		made.root, made.pairs = root, map[size]*pair{}
	}
	key := size{providers, seed}
	if made.pairs[key] == nil {
		made.pairs[key] = &pair{}
	}
	return made.pairs[key], nil
}

// Main runs a package's tests, then removes the drops they generated; the package's TestMain
// calls it.
func Main(m *testing.M) {
	code := m.Run()
	if made.root != "" {
		_ = os.RemoveAll(made.root)
	}
	os.Exit(code)
}
