package smart

import (
	"strconv"
	"testing"
	"time"
)

// TestGrantCache holds the cache to its contract: a grant is served until its token's expiry
// plus the clock skew and not after, a dropped token is gone, and the cache never grows past
// its bound.
func TestGrantCache(t *testing.T) {
	exp := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	g := Grant{ClientID: "c1", Scopes: []string{"system/*.read"}, ExpiresAt: exp}
	var c grantCache
	c.put("tok", g)
	for _, tc := range []struct {
		name string
		at   time.Time
		ok   bool
	}{
		{"before expiry", exp.Add(-time.Minute), true},
		{"at expiry", exp, true},
		{"within the skew", exp.Add(ClockSkew), true},
		{"past the skew", exp.Add(ClockSkew + time.Nanosecond), false},
	} {
		got, ok := c.get("tok", tc.at)
		if ok != tc.ok || ok && got.ClientID != "c1" {
			t.Errorf("%s: %v %v, want %v", tc.name, got, ok, tc.ok)
		}
	}
	if _, ok := c.get("other", exp); ok {
		t.Error("a token never put is served")
	}
	c.drop("tok")
	if _, ok := c.get("tok", exp); ok {
		t.Error("a dropped token is served")
	}
	for i := range 3 * grantCacheEntries {
		c.put(strconv.Itoa(i), g)
		if n := c.len(); n > grantCacheEntries {
			t.Fatalf("%d entries after %d puts, bound %d", n, i+1, grantCacheEntries)
		}
	}
}
