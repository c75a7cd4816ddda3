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

// refusal is a URL refused for its address: errors.Is finds ErrAddressRefused in it, and its
// text is the sentence a subscriber reads, without the sentinel's wording appended.
type refusal struct{ msg string }

func (e *refusal) Error() string        { return e.msg }
func (e *refusal) Is(target error) bool { return target == ErrAddressRefused }

func refused(format string, a ...any) error { return &refusal{msg: fmt.Sprintf(format, a...)} }

// errNonstandardHost: a host that is neither a domain name nor an IP address in standard form
// but that a system resolver may read as an IPv4 address ("2130706433", "0x7f.1", "127.1").
var errNonstandardHost = fmt.Errorf("host in a nonstandard IPv4 form: %w", ErrAddressRefused)

// refused4 are the IPv4 networks a delivery never connects to: they reach this machine, its
// private network or its cloud's metadata service rather than a subscriber on the internet.
// Loopback (127.0.0.0/8) is refused too unless AddressPolicy.AllowLoopback.
var refused4 = prefixes(
	"0.0.0.0/8",       // "this network"
	"10.0.0.0/8",      // private
	"100.64.0.0/10",   // carrier-grade NAT
	"169.254.0.0/16",  // link-local, cloud metadata (169.254.169.254)
	"172.16.0.0/12",   // private
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // documentation
	"192.88.99.0/24",  // 6to4 relay anycast
	"192.168.0.0/16",  // private
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // documentation
	"203.0.113.0/24",  // documentation
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, broadcast
)

// globalUnicast6 is the IPv6 space allocated to global unicast. Every IPv6 address outside it
// is refused (::1 only with AllowLoopback): that is where the unspecified address, the
// IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96) addresses, NAT64 (64:ff9b::/96,
// 64:ff9b:1::/48), discard (100::/64), unique-local (fc00::/7), link-local (fe80::/10),
// site-local (fec0::/10), multicast (ff00::/8) and space not yet allocated lie. IPv4-mapped
// addresses are checked as the IPv4 address they carry.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// refused6 are the networks inside globalUnicast6 a delivery never connects to.
var refused6 = prefixes(
	"2001::/23",     // IETF protocol assignments: Teredo (2001::/32, embeds an IPv4 address), benchmarking, ORCHID
	"2001:db8::/32", // documentation
	"2002::/16",     // 6to4: embeds an IPv4 address
	"3fff::/20",     // documentation
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// AddressPolicy decides which URLs a subscription may name and which addresses a delivery may
// connect to. The zero value allows public https endpoints only.
type AddressPolicy struct {
	// AllowLoopback admits http and https URLs on loopback addresses (127.0.0.0/8, ::1): the
	// development flag --webhook-allow-loopback, for a receiver on the same machine.
	AllowLoopback bool
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
	// Dial connects to an address DialContext has checked, given as "ip:port"; nil means a
	// net.Dialer. A test sets it to see what a delivery would connect to without connecting.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// Allowed reports whether a delivery may connect to ip. An address with a zone is refused
// whatever it is: a zone names an interface of this host, and no prefix contains a zoned
// address.
func (p AddressPolicy) Allowed(ip netip.Addr) bool {
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return p.AllowLoopback
	case ip.Is4():
		return !anyContains(refused4, ip)
	}
	return globalUnicast6.Contains(ip) && !anyContains(refused6, ip)
}

func anyContains(ps []netip.Prefix, ip netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// CheckURL validates a subscription URL: absolute https (http only to a loopback address with
// AllowLoopback), a host, no user information, and every address the host resolves to allowed.
// The error says what is wrong in words a subscriber can act on, without the addresses a name
// resolves to.
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
	if u.Scheme != "https" && (u.Scheme != "http" || !p.AllowLoopback) {
		return nil, errors.New("url must use https")
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil && ip.Zone() != "" {
		return nil, refused("url host %q carries an IPv6 zone, which names an interface of this host", host)
	}
	ips, err := p.resolve(ctx, host)
	switch {
	case errors.Is(err, errNonstandardHost):
		return nil, refused("url host %q is neither a domain name nor an IP address in standard form", host)
	case err != nil:
		return nil, fmt.Errorf("url host %q does not resolve", host)
	case u.Scheme == "http" && !allLoopback(ips):
		return nil, errors.New("url must use https")
	}
	for _, ip := range ips {
		if !p.Allowed(ip) {
			return nil, refused("url host %q is or resolves to a private, loopback, link-local, multicast or reserved address", host)
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

// resolve returns the addresses of host: the host itself when it is an IP literal. A host in
// a nonstandard IPv4 form is refused rather than handed to the system resolver, which may read
// it as an address.
func (p AddressPolicy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	if nonstandardIPv4(host) {
		return nil, errNonstandardHost
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

// nonstandardIPv4 reports whether host, not an IP address in standard form, ends in a label
// that is a number (decimal, or hexadecimal after 0x): inet_aton reads such hosts as IPv4
// addresses ("2130706433", "0x7f.1", "127.1", "0177.0.0.1"), and no domain name has a numeric
// top-level label.
func nonstandardIPv4(host string) bool {
	host = strings.TrimSuffix(host, ".")
	label := host[strings.LastIndexByte(host, '.')+1:]
	if len(label) >= 2 && (label[:2] == "0x" || label[:2] == "0X") {
		label = label[2:]
		return strings.Trim(label, "0123456789abcdefABCDEF") == ""
	}
	return label != "" && strings.Trim(label, "0123456789") == ""
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
	dial := p.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	var last error = fmt.Errorf("%s: %w", host, ErrAddressRefused)
	for _, ip := range ips {
		if !p.Allowed(ip) {
			continue
		}
		c, err := dial(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}
