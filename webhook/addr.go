package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// MaxURLLen bounds a subscription URL.
const MaxURLLen = 2048

// ErrAddressRefused: a URL's host is, or resolves to, an address deliveries may not reach.
var ErrAddressRefused = errors.New("webhook: address refused")

// refusedPrefixes are the networks a delivery never connects to: they reach this machine, its
// private network or its cloud's metadata service rather than a subscriber on the internet.
// Loopback is refused too unless the development flag allows it (AddressPolicy.AllowLoopback).
var refusedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // carrier-grade NAT
		"169.254.0.0/16",  // link-local, cloud metadata (169.254.169.254)
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"192.168.0.0/16",  // private
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, broadcast
		"::/128",          // unspecified
		"64:ff9b::/96",    // NAT64: would reach an IPv4 address unchecked
		"64:ff9b:1::/48",  // local-use NAT64
		"100::/64",        // discard
		"2001:db8::/32",   // documentation
		"2002::/16",       // 6to4: embeds an IPv4 address
		"fc00::/7",        // unique local
		"fe80::/10",       // link-local
		"fec0::/10",       // site-local (deprecated)
		"ff00::/8",        // multicast
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// AddressPolicy decides which URLs a subscription may name and which addresses a delivery may
// connect to. The zero value allows public https endpoints only.
type AddressPolicy struct {
	// AllowLoopback admits http and https URLs on loopback addresses (127.0.0.0/8, ::1): the
	// development flag --webhook-allow-loopback, for a receiver on the same machine.
	AllowLoopback bool
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

// Allowed reports whether a delivery may connect to ip.
func (p AddressPolicy) Allowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() {
		return false
	}
	if ip.IsLoopback() {
		return p.AllowLoopback
	}
	for _, pfx := range refusedPrefixes {
		if pfx.Contains(ip) {
			return false
		}
	}
	return true
}

// CheckURL validates a subscription URL: absolute https (http only to a loopback address with
// AllowLoopback), a host, no user information, and every address the host resolves to allowed.
// The error says what is wrong in words a subscriber can act on.
func (p AddressPolicy) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	if len(raw) > MaxURLLen {
		return nil, fmt.Errorf("url is longer than %d characters", MaxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, errors.New("url must be an absolute https URL")
	}
	if u.User != nil {
		return nil, errors.New("url must not carry user information")
	}
	if u.Fragment != "" {
		return nil, errors.New("url must not carry a fragment")
	}
	ips, err := p.resolve(ctx, u.Hostname())
	if err != nil {
		return nil, fmt.Errorf("url host %q does not resolve", u.Hostname())
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !p.AllowLoopback || !allLoopback(ips) {
			return nil, errors.New("url must use https")
		}
	default:
		return nil, errors.New("url must use https")
	}
	for _, ip := range ips {
		if !p.Allowed(ip) {
			return nil, fmt.Errorf("url host %q resolves to %s, a private, loopback, link-local or reserved address: %w", u.Hostname(), ip, ErrAddressRefused)
		}
	}
	return u, nil
}

func allLoopback(ips []netip.Addr) bool {
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return false
		}
	}
	return len(ips) > 0
}

// resolve returns the addresses of host: the host itself when it is an IP literal.
func (p AddressPolicy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{ip}, nil
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err == nil && len(ips) == 0 {
		err = fmt.Errorf("no address for %s", host)
	}
	return ips, err
}

// DialContext resolves the host of addr once, checks every address, and connects to a checked
// address literally, so the address connected to is the one checked: a name that resolves to
// a public address at registration and to a private one at delivery (DNS rebinding) is caught
// here. It is the delivery transport's DialContext.
func (p AddressPolicy) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := p.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var last error = fmt.Errorf("%s: %w", host, ErrAddressRefused)
	for _, ip := range ips {
		if !p.Allowed(ip) {
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}
