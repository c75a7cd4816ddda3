package synth

import (
	"context"
	"os"
	"testing"
)

func TestScratch(t *testing.T) {
	out := os.Getenv("SYNTH_OUT")
	if out == "" {
		t.Skip()
	}
	m, err := Generate(context.Background(), Config{Providers: 2000, Seed: 20250608, Out: out, Reference: "../../../shared/data/reference"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files", len(m.Files))
}

func TestScratchEvolve(t *testing.T) {
	out := os.Getenv("SYNTH_OUT2")
	if out == "" {
		t.Skip()
	}
	m, err := Generate(context.Background(), Config{EvolveFrom: os.Getenv("SYNTH_OUT"), Out: out, Reference: "../../../shared/data/reference"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files", len(m.Files))
}
