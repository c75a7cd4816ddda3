// Package clientip finds the address of the client behind a request, for limits keyed by client
// address. The connection's peer is the client unless it is a configured trusted proxy
// (--trusted-proxies); only then is X-Forwarded-For read, and only as far as the proxies
// vouch for it: from the right, skipping trusted proxies, the first address that is not one is
// the client. Everything left of it was written by the client (or whoever it chose to relay
// through) and proves nothing, so a client cannot choose its own address by sending the header.
package clientip

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Resolver finds client addresses given the trusted proxies.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a resolver trusting the proxies in trusted. With none, X-Forwarded-For is never
// read.
func New(trusted []netip.Prefix) Resolver {
	return Resolver{trusted: trusted}
}

// Trusted reports whether a is a trusted proxy.
func (r Resolver) Trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientIP returns the client's address, or the zero Addr when the peer address cannot be read
// (a listener that is not TCP).
func (r Resolver) ClientIP(req *http.Request) netip.Addr {
	peer, _ := ParseHop(req.RemoteAddr)
	if len(r.trusted) == 0 {
		return peer
	}
	return Resolve(peer, req.Header.Values("X-Forwarded-For"), r.Trusted)
}

// maxHops bounds how many X-Forwarded-For entries are examined: a chain of trusted proxies is
// short, and a client must not make every request parse a megabyte header.
const maxHops = 32

// Resolve walks the X-Forwarded-For values (all header lines, in order) from the right,
// starting at peer: while the current address is a trusted proxy, the entry before it is who
// connected to that proxy. It returns the first address that is not trusted. When an entry is
// not an address (garbage, "unknown", an obfuscated identifier) the chain of custody ends: the
// last trusted address seen is returned, since nothing beyond it can be believed. A chain of
// trusted proxies only ends at its leftmost entry.
func Resolve(peer netip.Addr, forwarded []string, trusted func(netip.Addr) bool) netip.Addr {
	cur := peer.Unmap()
	if !cur.IsValid() || !trusted(cur) {
		return cur
	}
	hops := 0
	for i := len(forwarded) - 1; i >= 0; i-- {
		entries := forwarded[i]
		for entries != "" {
			var entry string
			if j := strings.LastIndexByte(entries, ','); j >= 0 {
				entry, entries = entries[j+1:], entries[:j]
			} else {
				entry, entries = entries, ""
			}
			if strings.TrimSpace(entry) == "" {
				continue // "a,,b" and trailing commas: empty list members are ignored
			}
			if hops++; hops > maxHops {
				return cur
			}
			a, ok := ParseHop(entry)
			if !ok {
				return cur
			}
			cur = a.Unmap()
			if !trusted(cur) {
				return cur
			}
		}
	}
	return cur
}

// ParseHop reads one address as proxies write them: "192.0.2.1", "192.0.2.1:443", "2001:db8::1"
// or "[2001:db8::1]:443", with surrounding spaces. Zones are refused: they name an interface of
// the sender, not a client.
func ParseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a, a.Zone() == ""
	}
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(host)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a, true
}

// Subject names a client address for keying limits: an IPv4 address as is, an IPv6 address by
// its /64, since one subscriber is routinely given a whole /64 and could otherwise step through
// it to multiply its allowance. An unknown address is "unknown": such clients share one limit.
func Subject(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "unknown"
	case a.Is4():
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}
