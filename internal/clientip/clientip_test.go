package clientip

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func prefixes(t testing.TB, ss ...string) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range ss {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}

func TestClientIP(t *testing.T) {
	proxies := prefixes(t, "10.0.0.0/8", "2001:db8:ffff::/48")
	tests := []struct {
		name    string
		trusted []netip.Prefix
		remote  string
		xff     []string
		want    string
	}{
		{"no proxies configured: the header is ignored", nil, "198.51.100.7:5555", []string{"203.0.113.9"}, "198.51.100.7"},
		{"untrusted peer: the header is ignored", proxies, "198.51.100.7:5555", []string{"203.0.113.9"}, "198.51.100.7"},
		{"trusted peer, one hop", proxies, "10.1.2.3:80", []string{"203.0.113.9"}, "203.0.113.9"},
		{"client-supplied entries left of the real one are ignored", proxies, "10.1.2.3:80", []string{"1.1.1.1, 203.0.113.9"}, "203.0.113.9"},
		{"a chain of trusted proxies", proxies, "10.1.2.3:80", []string{"203.0.113.9, 10.9.9.9, 10.8.8.8"}, "203.0.113.9"},
		{"several header lines read as one list", proxies, "10.1.2.3:80", []string{"6.6.6.6, 203.0.113.9", "10.9.9.9"}, "203.0.113.9"},
		{"rightmost untrusted wins over a trusted one further left", proxies, "10.1.2.3:80", []string{"10.5.5.5, 203.0.113.9, 10.9.9.9"}, "203.0.113.9"},
		{"all trusted: the leftmost", proxies, "10.1.2.3:80", []string{"10.5.5.5, 10.9.9.9"}, "10.5.5.5"},
		{"trusted peer without the header", proxies, "10.1.2.3:80", nil, "10.1.2.3"},
		{"garbage ends the chain at the last trusted hop", proxies, "10.1.2.3:80", []string{"203.0.113.9, unknown, 10.9.9.9"}, "10.9.9.9"},
		{"garbage left of the client is not reached", proxies, "10.1.2.3:80", []string{"<script>, 203.0.113.9"}, "203.0.113.9"},
		{"ports and brackets", proxies, "10.1.2.3:80", []string{"[2001:db8::7]:4711, 203.0.113.9:1234"}, "203.0.113.9"},
		{"IPv6 client through an IPv6 proxy", proxies, "[2001:db8:ffff::1]:443", []string{"2001:db8:1::5"}, "2001:db8:1::5"},
		{"IPv4-mapped peer is the IPv4 proxy", proxies, "[::ffff:10.1.2.3]:80", []string{"203.0.113.9"}, "203.0.113.9"},
		{"IPv4-mapped client is unmapped", proxies, "10.1.2.3:80", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
		{"empty members are skipped", proxies, "10.1.2.3:80", []string{"203.0.113.9,, ,"}, "203.0.113.9"},
		{"zones are refused", proxies, "10.1.2.3:80", []string{"fe80::1%eth0"}, "10.1.2.3"},
		{"unreadable peer", proxies, "@", []string{"203.0.113.9"}, "invalid IP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := New(tt.trusted).ClientIP(r).String(); got != tt.want {
				t.Fatalf("client %s, want %s", got, tt.want)
			}
		})
	}
}

func TestHopLimit(t *testing.T) {
	proxies := New(prefixes(t, "10.0.0.0/8"))
	chain := "203.0.113.9" + strings.Repeat(", 10.0.0.1", maxHops+5)
	got := Resolve(netip.MustParseAddr("10.1.1.1"), []string{chain}, proxies.Trusted)
	if got.String() != "10.0.0.1" {
		t.Fatalf("a chain longer than %d hops gave %s, want the last trusted hop examined", maxHops, got)
	}
}

func TestSubject(t *testing.T) {
	tests := map[string]string{
		"203.0.113.9":               "203.0.113.9",
		"::ffff:203.0.113.9":        "203.0.113.9",
		"2001:db8:1:2:aaaa::1":      "2001:db8:1:2::/64",
		"2001:db8:1:2:bbbb:cccc::9": "2001:db8:1:2::/64",
	}
	for in, want := range tests {
		if got := Subject(netip.MustParseAddr(in)); got != want {
			t.Errorf("Subject(%s) = %s, want %s", in, got, want)
		}
	}
	if got := Subject(netip.Addr{}); got != "unknown" {
		t.Errorf("Subject(zero) = %s", got)
	}
}

func FuzzResolve(f *testing.F) {
	f.Add("10.1.2.3", "203.0.113.9, 10.9.9.9", "")
	f.Add("10.1.2.3", "[2001:db8::1]:80,unknown,,", "1.2.3.4")
	f.Add("198.51.100.1", "1.1.1.1", "")
	trusted := New(prefixes(f, "10.0.0.0/8", "2001:db8::/32"))
	f.Fuzz(func(t *testing.T, peer, line1, line2 string) {
		p, _ := ParseHop(peer)
		got := Resolve(p, []string{line1, line2}, trusted.Trusted)
		if !p.IsValid() || !trusted.Trusted(p) {
			if got != p.Unmap() {
				t.Fatalf("untrusted peer %s gave %s", p, got)
			}
			return
		}
		if !got.IsValid() || got.Zone() != "" || got.Is4In6() {
			t.Fatalf("resolved %q", got)
		}
		// The answer is the peer or an address that appears in the header.
		if got != p.Unmap() && !strings.Contains(line1+","+line2, strings.TrimPrefix(got.String(), "::ffff:")) && !mentions(line1+","+line2, got) {
			t.Fatalf("resolved %s appears nowhere in %q %q", got, line1, line2)
		}
	})
}

// mentions reports whether any list entry parses to a.
func mentions(list string, a netip.Addr) bool {
	for _, e := range strings.Split(list, ",") {
		if b, ok := ParseHop(e); ok && b.Unmap() == a {
			return true
		}
	}
	return false
}
