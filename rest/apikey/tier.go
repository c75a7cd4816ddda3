package apikey

import (
	"fmt"
	"strings"
)

// Tier is a key's service level. Its request limits belong to the HTTP layer (package gate),
// which meters requests; here a tier only decides the API and the prefix of its keys.
type Tier string

// Tiers: the supply API's pilot tier (docs/contracts/supply-api.md §8) and the resolver's sandbox,
// starter and pro tiers (docs/contracts/resolver-api.md §8).
const (
	TierPilot   Tier = "pilot"
	TierSandbox Tier = "sandbox"
	TierStarter Tier = "starter"
	TierPro     Tier = "pro"
)

// Tiers lists every tier, for usage messages.
var Tiers = []Tier{TierPilot, TierSandbox, TierStarter, TierPro}

// ParseTier reads a tier name.
func ParseTier(s string) (Tier, error) {
	for _, t := range Tiers {
		if string(t) == s {
			return t, nil
		}
	}
	names := make([]string, len(Tiers))
	for i, t := range Tiers {
		names[i] = string(t)
	}
	return "", fmt.Errorf("unknown tier %q (one of %s)", s, strings.Join(names, ", "))
}

// Surface is the API the tier's keys open.
func (t Tier) Surface() Surface {
	if t == TierPilot {
		return Supply
	}
	return Resolver
}

// Prefix is the prefix of new keys of the tier.
func (t Tier) Prefix() string {
	switch t {
	case TierPilot:
		return PrefixSupply
	case TierSandbox:
		return PrefixSandbox
	}
	return PrefixLive
}

// accepts reports whether a key with prefix may belong to the tier: the prefix names the tier's
// API, and only sandbox keys carry the sandbox prefix.
func (t Tier) accepts(prefix string) bool {
	if prefixSurface[prefix] != t.Surface() {
		return false
	}
	return (prefix == PrefixSandbox) == (t == TierSandbox)
}
