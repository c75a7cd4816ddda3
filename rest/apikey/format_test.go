package apikey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	r43 := strings.Repeat("aZ9", 14) + "x"
	tests := []struct {
		in     string
		prefix string // "" when invalid
	}{
		{"pdsupply_" + r43, PrefixSupply},
		{"pdpilot_" + r43, PrefixSupplyLegacy},
		{"pdpilot_" + strings.Repeat("a", 32), PrefixSupplyLegacy},
		{"pdpilot_" + strings.Repeat("a", 128), PrefixSupplyLegacy},
		{"pdlive_" + r43, PrefixLive},
		{"pdsandbox_" + r43, PrefixSandbox},
		{"", ""},
		{"pdsupply", ""},
		{"pdsupply_", ""},
		{"pdsupply" + r43, ""},
		{"pdsupply_" + r43[:42], ""},
		{"pdsupply_" + r43 + "a", ""},
		{"pdsupply_" + r43[:42] + "-", ""},
		{"pdsupply_" + r43[:42] + "_", ""},
		{"pdsupply_" + r43[:42] + "é", ""},
		{"PDSUPPLY_" + r43, ""},
		{"sk_" + r43, ""},
		{" pdsupply_" + r43, ""},
		{"pdsupply_" + r43 + " ", ""},
		{"pdpilot_" + strings.Repeat("a", 31), ""},
		{"pdpilot_" + strings.Repeat("a", 129), ""},
		{"pdlive_" + strings.Repeat("a", 32), ""}, // only the legacy prefix takes other lengths
	}
	for _, tt := range tests {
		prefix, ok := Parse(tt.in)
		if ok != (tt.prefix != "") || prefix != tt.prefix {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.in, prefix, ok, tt.prefix)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("pdsupply_" + strings.Repeat("A", 43))
	f.Add("pdpilot_" + strings.Repeat("0", 40))
	f.Add("pdlive__")
	f.Add("pdsandbox_\x00")
	f.Fuzz(func(t *testing.T, s string) {
		prefix, ok := Parse(s)
		if !ok {
			if prefix != "" {
				t.Fatalf("rejected %q but returned prefix %q", s, prefix)
			}
			return
		}
		random, found := strings.CutPrefix(s, prefix+"_")
		if !found {
			t.Fatalf("accepted %q with prefix %q it does not start with", s, prefix)
		}
		if _, known := prefixSurface[prefix]; !known {
			t.Fatalf("accepted unknown prefix %q", prefix)
		}
		if len(random) < minLegacyLen || len(random) > maxLegacyLen {
			t.Fatalf("accepted %q: random part of %d bytes", s, len(random))
		}
		for i := 0; i < len(random); i++ {
			if !isBase62(random[i]) {
				t.Fatalf("accepted %q: byte %q", s, random[i])
			}
		}
	})
}

func TestGenerate(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	for _, tier := range Tiers {
		for range 200 {
			k := generate(tier.Prefix()).Reveal()
			if prefix, ok := Parse(k); !ok || prefix != tier.Prefix() {
				t.Fatalf("generated %q does not parse as %s", k, tier.Prefix())
			}
			if seen[k] {
				t.Fatalf("generated %q twice", k)
			}
			seen[k] = true
			for _, r := range k[len(tier.Prefix())+1:] {
				counts[r]++
			}
		}
	}
	if len(counts) != 62 {
		t.Fatalf("%d distinct characters in 800 keys, want all 62", len(counts))
	}
	// 800 keys of 43 characters: each character is expected 555 times; a sampling bias (such as
	// a plain byte%62) would push some far out.
	for r, n := range counts {
		if n < 400 || n > 720 {
			t.Errorf("character %q drawn %d times, expected about 555", r, n)
		}
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := generate(PrefixLive)
	key := s.Reveal()
	hint := "pdlive_…" + key[len(key)-4:]
	var outs []string
	for _, verb := range []string{"%v", "%s", "%q", "%x", "%X", "%d", "%+v", "%#v", "%T %v"} {
		outs = append(outs, fmt.Sprintf(verb, s))
	}
	outs = append(outs, fmt.Sprint(s), fmt.Sprintf("%v", struct{ K Secret }{s}), fmt.Sprintf("%+v", []Secret{s}))
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "key", s)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "key", s)
	outs = append(outs, buf.String())
	b, _ := json.Marshal(map[string]any{"key": s})
	outs = append(outs, string(b))
	for _, out := range outs {
		if strings.Contains(out, key[len("pdlive_"):len("pdlive_")+8]) {
			t.Errorf("the key shows in %q", out)
		}
	}
	if s.String() != hint {
		t.Errorf("String() = %q, want %q", s.String(), hint)
	}
}

func TestTiers(t *testing.T) {
	tests := []struct {
		tier     Tier
		api      Surface
		prefix   string
		accepted []string
	}{
		{TierPilot, Supply, PrefixSupply, []string{PrefixSupply, PrefixSupplyLegacy}},
		{TierSandbox, Resolver, PrefixSandbox, []string{PrefixSandbox}},
		{TierStarter, Resolver, PrefixLive, []string{PrefixLive}},
		{TierPro, Resolver, PrefixLive, []string{PrefixLive}},
	}
	for _, tt := range tests {
		if got, err := ParseTier(string(tt.tier)); err != nil || got != tt.tier {
			t.Errorf("ParseTier(%s) = %s, %v", tt.tier, got, err)
		}
		if tt.tier.Surface() != tt.api || tt.tier.Prefix() != tt.prefix {
			t.Errorf("%s: surface %s prefix %s", tt.tier, tt.tier.Surface(), tt.tier.Prefix())
		}
		for p := range prefixSurface {
			want := false
			for _, a := range tt.accepted {
				want = want || a == p
			}
			if tt.tier.accepts(p) != want {
				t.Errorf("%s accepts %s: %v, want %v", tt.tier, p, !want, want)
			}
		}
	}
	if _, err := ParseTier("gold"); err == nil || !strings.Contains(err.Error(), "pilot, sandbox, starter, pro") {
		t.Errorf("ParseTier(gold): %v", err)
	}
}
