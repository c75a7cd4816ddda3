package ingest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"providerdir/catalog"
	"providerdir/source"
	"providerdir/source/openpayments"
	"providerdir/source/reference"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/backends"
	"providerdir/testing/synthdrops"
)

// TestMatcherPrepared checks that matching payments a batch at a time, after prepare has made
// the batch's look-ups concurrently, ties each payment to the NPI, by the method, that matching
// it alone with nothing prepared does; and that the drop's payments take both kinds of look-up.
func TestMatcherPrepared(t *testing.T) {
	drop := synthdrops.Generate(t, 400, 7).Base
	st := backends.Embedded(t)
	ctx := context.Background()
	if _, err := Run(ctx, Options{Store: st, Dir: drop, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	gen := snap.Generation(catalog.RegistryProviders)
	matcher := func() *registryMatcher {
		return &registryMatcher{st: st, gen: gen, byNPI: map[string]string{}, byName: map[nameKey][2]string{}}
	}
	prepared, alone := matcher(), matcher()

	files, err := filepath.Glob(filepath.Join(drop, "OP_DTL_GNRL_PGY*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("payment files: %v %v", files, err)
	}
	methods := map[string]int{}
	for _, f := range files {
		r, err := source.OpenFS(os.DirFS(drop), filepath.Base(f), openpayments.NewReader)
		if err != nil {
			t.Fatal(err)
		}
		var all []openpayments.Payment
		for {
			p, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, p)
		}
		r.Close()
		for start := 0; start < len(all); start += readBatch {
			batch := all[start:min(start+readBatch, len(all))]
			if err := prepared.prepare(ctx, batch); err != nil {
				t.Fatal(err)
			}
			for i := range batch {
				p := &batch[i]
				npi, method, err := prepared.match(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				wantNPI, wantMethod, err := alone.match(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if npi != wantNPI || method != wantMethod {
					t.Errorf("payment %s: prepared %s %s, alone %s %s", p.RecordID, npi, method, wantNPI, wantMethod)
				}
				methods[method]++
			}
		}
	}
	if methods[stored.MatchNPIAndName] == 0 || methods[stored.MatchNameAddress]+methods[stored.MatchNameState] == 0 {
		t.Errorf("match methods %v: want payments matched by NPI and by name", methods)
	}
}
