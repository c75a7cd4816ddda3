package webhook

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"

	"providerdir/ident"
)

// hostsOnly resolves names from the hosts file alone: a name look-up that would ask DNS fails
// without a packet sent.
var hostsOnly = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("no name service in this test")
}}

// errNotDialled is what the recording dialer answers: it connects to nothing.
var errNotDialled = errors.New("not dialled in this test")

// recordDial returns a Dial hook that appends each address asked for to *dialled and
// connects to none.
func recordDial(dialled *[]string) func(context.Context, string, string) (net.Conn, error) {
	return func(_ context.Context, _, address string) (net.Conn, error) {
		*dialled = append(*dialled, address)
		return nil, errNotDialled
	}
}

// addressClass names the class of an address from its bytes and zone, as the IANA
// special-purpose address registries define the ranges, without the guard or netip.Prefix:
// "" for a public unicast address, "loopback" for one a delivery may reach only with
// AllowLoopback, and any other name for one it never reaches.
func addressClass(ip netip.Addr) string {
	if ip.Zone() != "" {
		return "zoned"
	}
	b := ip.As16()
	zero := func(bs []byte) bool { return strings.Trim(string(bs), "\x00") == "" }
	switch {
	case zero(b[:10]) && b[10] == 0xff && b[11] == 0xff: // IPv4, or IPv4-mapped ::ffff:0:0/96
		return class4(b[12], b[13], b[14], b[15])
	case zero(b[:15]) && b[15] == 1:
		return "loopback"
	case zero(b[:12]):
		return "unspecified or IPv4-compatible" // ::/96
	case zero(b[:8]) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0:
		return "IPv4-translated" // ::ffff:0:0:0/96
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b:
		return "NAT64" // 64:ff9b::/96, 64:ff9b:1::/48
	case b[0] == 0x01 && zero(b[1:8]):
		return "discard" // 100::/64
	case b[0] == 0xff:
		return "multicast"
	case b[0]&0xfe == 0xfc:
		return "unique local"
	case b[0] == 0xfe && b[1]&0xc0 == 0x80:
		return "link-local"
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0:
		return "site-local"
	case b[0] == 0x20 && b[1] == 0x02:
		return "6to4" // bytes 2-5 are an IPv4 address
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0:
		return "Teredo" // 2001::/32
	case b[0] == 0x20 && b[1] == 0x01 && b[2] < 0x02:
		return "IETF protocol assignment" // 2001::/23
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8, b[0] == 0x3f && b[1] == 0xff && b[2] < 0x10:
		return "documentation" // 2001:db8::/32, 3fff::/20
	case b[0]&0xe0 != 0x20:
		return "not global unicast" // outside 2000::/3
	}
	return ""
}

// class4 names the class of IPv4 address a.b.c.d as addressClass does.
func class4(a, b, c, _ byte) string {
	switch {
	case a == 127:
		return "loopback"
	case a == 0:
		return "this network"
	case a == 10, a == 172 && b&0xf0 == 16, a == 192 && b == 168:
		return "private"
	case a == 100 && b&0xc0 == 64:
		return "shared"
	case a == 169 && b == 254:
		return "link-local"
	case a == 192 && b == 0 && c == 0:
		return "IETF protocol assignment"
	case a == 192 && b == 0 && c == 2, a == 198 && b == 51 && c == 100, a == 203 && b == 0 && c == 113:
		return "documentation"
	case a == 192 && b == 88 && c == 99:
		return "6to4 relay"
	case a == 198 && b&0xfe == 18:
		return "benchmarking"
	case a >= 224:
		return "multicast or reserved"
	}
	return ""
}

// mayReach is what the address classes say of ip: whether a delivery may connect to it.
func mayReach(ip netip.Addr, loopback bool) bool {
	c := addressClass(ip)
	return c == "" || c == "loopback" && loopback
}

// Every address is allowed or refused as its class says: the guard and the class table agree
// on each address here, among them every form an IPv6 address can carry a private, loopback or
// this host's address in.
func TestAllowed(t *testing.T) {
	for _, c := range []struct {
		ip              string
		strict, devFlag bool
	}{
		{"93.184.215.14", true, true},
		{"172.32.0.1", true, true},
		{"2606:4700::1111", true, true},
		{"2001:4860:4860::8888", true, true}, // 2001: outside 2001::/23
		{"2003::1", true, true},
		{"::ffff:93.184.215.14", true, true},
		{"127.0.0.1", false, true},
		{"127.8.9.10", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"::ffff:7f00:1", false, true},
		{"10.1.2.3", false, false},
		{"172.16.0.1", false, false},
		{"172.31.255.255", false, false},
		{"192.168.1.1", false, false},
		{"169.254.169.254", false, false},
		{"100.64.0.1", false, false},
		{"0.0.0.0", false, false},
		{"192.88.99.1", false, false},
		{"224.0.0.1", false, false},
		{"239.255.255.250", false, false},
		{"255.255.255.255", false, false},
		// zones: a zone names an interface of this host, whatever the address
		{"::%lo", false, false},
		{"::1%lo", false, false},
		{"fd00::2%eth0", false, false},
		{"fe80::1%eth0", false, false},
		{"ff02::1%eth0", false, false},
		{"fd00:ec2::254%eth0", false, false},
		{"2606:4700::1111%eth0", false, false},
		{"::ffff:127.0.0.1%lo", false, false},
		// IPv6 space of this host, its networks, or no one
		{"::", false, false},
		{"fc00::1", false, false},
		{"fd00::2", false, false},
		{"fd00:ec2::254", false, false},
		{"fe80::1", false, false},
		{"fec0::1", false, false},
		{"ff02::1", false, false},
		{"ff05::1:3", false, false},
		{"100::1", false, false},
		{"2001:db8::1", false, false},
		{"3fff::1", false, false},
		{"5f00::1", false, false},
		{"4000::1", false, false},
		// IPv6 forms of an IPv4 address
		{"::ffff:10.0.0.1", false, false},
		{"::ffff:169.254.169.254", false, false},
		{"::127.0.0.1", false, false},     // IPv4-compatible
		{"::10.0.0.1", false, false},      // IPv4-compatible
		{"::93.184.215.14", false, false}, // IPv4-compatible, deprecated for all
		{"::ffff:0:a00:1", false, false},  // IPv4-translated 10.0.0.1
		{"::ffff:0:7f00:1", false, false}, // IPv4-translated 127.0.0.1
		{"64:ff9b::7f00:1", false, false}, // NAT64 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false, false},
		{"64:ff9b::5db8:d70e", false, false},                   // NAT64 of a public address: still not the address checked
		{"64:ff9b:1::a00:1", false, false},                     // local-use NAT64
		{"2002:a00:1::", false, false},                         // 6to4 10.0.0.1
		{"2002:7f00:1::1", false, false},                       // 6to4 127.0.0.1
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, false}, // Teredo
		{"2001::1", false, false},
		{"2001:2::1", false, false},  // benchmarking
		{"2001:20::1", false, false}, // ORCHIDv2
	} {
		ip := netip.MustParseAddr(c.ip)
		if got := (AddressPolicy{}).Allowed(ip); got != c.strict {
			t.Errorf("Allowed(%s) = %v, want %v", c.ip, got, c.strict)
		}
		if got := (AddressPolicy{AllowLoopback: true}).Allowed(ip); got != c.devFlag {
			t.Errorf("Allowed(%s) with loopback allowed = %v, want %v", c.ip, got, c.devFlag)
		}
		if mayReach(ip, false) != c.strict || mayReach(ip, true) != c.devFlag {
			t.Errorf("the class table puts %s in %q", c.ip, addressClass(ip))
		}
	}
}

func TestCheckURL(t *testing.T) {
	for _, c := range []struct {
		url      string
		loopback bool
		want     string // "" accepts; else a part of the error
	}{
		{"https://93.184.215.14/hooks", false, ""},
		{"https://[2606:4700::1111]:8443/h?x=1", false, ""},
		{"https://[::ffff:93.184.215.14]/h", false, ""},
		{"http://93.184.215.14/hooks", false, "https"},
		{"http://93.184.215.14/hooks", true, "https"},
		{"http://127.0.0.1:9000/h", false, "https"},
		{"http://127.0.0.1:9000/h", true, ""},
		{"http://[::1]:9000/h", true, ""},
		{"https://127.0.0.1/h", false, "loopback"},
		{"http://localhost:9000/h", true, ""},
		{"https://localhost/h", false, "loopback"},
		{"https://10.0.0.5/h", true, "private"},
		{"https://169.254.169.254/latest/meta-data", true, "link-local"},
		{"https://[fd12::1]/h", true, "private"},
		{"https://[::ffff:10.0.0.1]/h", false, "private"},
		{"https://[::ffff:7f00:1]/h", false, "loopback"},
		{"https://[::127.0.0.1]/h", true, "reserved"},
		{"https://[::ffff:0:a00:1]/h", true, "reserved"},
		{"https://[64:ff9b::a9fe:a9fe]/latest", true, "reserved"},
		{"https://[64:ff9b:1::a00:1]/h", true, "reserved"},
		{"https://[2002:a9fe:a9fe::]/h", true, "reserved"},
		{"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h", true, "reserved"},
		{"https://[ff02::1]/h", true, "multicast"},
		{"https://239.255.255.250/h", true, "multicast"},
		{"https://[::%25lo]:8443/hook", false, "zone"},
		{"https://[::%25lo]:8443/hook", true, "zone"},
		{"http://[::1%25lo]:8443/hook", true, "zone"},
		{"https://[fd00::2%25eth0]/hook", false, "zone"},
		{"https://[fe80::1%25eth0]/hook", false, "zone"},
		{"https://[ff02::1%25eth0]/hook", false, "zone"},
		{"https://[fd00:ec2::254%25eth0]/latest/meta-data", false, "zone"},
		{"https://[2606:4700::1111%25eth0]/h", false, "zone"},
		{"https://2130706433/h", true, "standard form"},
		{"https://0x7f000001/h", true, "standard form"},
		{"https://0x7f.1/h", true, "standard form"},
		{"https://127.1/h", true, "standard form"},
		{"https://0177.0.0.1/h", true, "standard form"},
		{"https://10.0.0.1./h", true, "standard form"},
		{"https://user:pw@93.184.215.14/h", false, "user information"},
		{"https://93.184.215.14/h#frag", false, "fragment"},
		{"ftp://93.184.215.14/h", false, "https"},
		{"/relative", false, "absolute"},
		{"https:///nohost", false, "absolute"},
		{"https://host.invalid/h", false, "does not resolve"},
		{"https://93.184.215.14]/h", false, "does not resolve"},
		{"https://93.184.215.14/" + strings.Repeat("a", MaxURLLen), false, "longer"},
	} {
		_, err := AddressPolicy{AllowLoopback: c.loopback, Resolver: hostsOnly}.CheckURL(context.Background(), c.url)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckURL(%s, loopback %v) = %v, want accepted", c.url, c.loopback, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckURL(%s, loopback %v) = %v, want an error about %q", c.url, c.loopback, err, c.want)
		}
	}
}

// The dialer connects only to an allowed address, the one it checked, and to nothing when the
// host has none: checked without connecting, through a Dial hook that records the address.
func TestDialConnectsOnlyToCheckedAddress(t *testing.T) {
	for _, c := range []struct {
		addr     string
		loopback bool
		want     string // the address connected to; "" when refused
	}{
		{"93.184.215.14:443", false, "93.184.215.14:443"},
		{"[2606:4700::1111]:8443", false, "[2606:4700::1111]:8443"},
		{"[::ffff:93.184.215.14]:443", false, "93.184.215.14:443"},
		{"[::ffff:127.0.0.1]:8080", true, "127.0.0.1:8080"},
		{"[::ffff:127.0.0.1]:8080", false, ""},
		{"[::ffff:7f00:1]:8080", false, ""},
		{"localhost:8080", false, ""},
		{"[::%lo]:8080", false, ""},
		{"[::%lo]:8080", true, ""},
		{"[::1%lo]:8080", true, ""},
		{"[fd00::2%eth0]:443", false, ""},
		{"[fe80::1%eth0]:443", false, ""},
		{"[ff02::1%eth0]:443", false, ""},
		{"[fd00:ec2::254%eth0]:80", false, ""},
		{"[2606:4700::1111%eth0]:443", false, ""},
		{"[::127.0.0.1]:8080", true, ""},
		{"[::ffff:10.0.0.1]:443", false, ""},
		{"[64:ff9b::a9fe:a9fe]:80", false, ""},
		{"[2002:a9fe:a9fe::]:80", false, ""},
		{"[2001:0:4136:e378:8000:63bf:3fff:fdd2]:443", false, ""},
		{"2130706433:8080", true, ""},
		{"0x7f.1:8080", true, ""},
		{"127.1:8080", true, ""},
		{"169.254.169.254:80", true, ""},
	} {
		var dialled []string
		p := AddressPolicy{AllowLoopback: c.loopback, Resolver: hostsOnly, Dial: recordDial(&dialled)}
		_, err := p.DialContext(context.Background(), "tcp", c.addr)
		switch {
		case c.want == "" && (len(dialled) != 0 || !errors.Is(err, ErrAddressRefused)):
			t.Errorf("dial %s, loopback %v: connected to %q (%v), want refused", c.addr, c.loopback, dialled, err)
		case c.want != "" && (len(dialled) != 1 || dialled[0] != c.want || err != errNotDialled):
			t.Errorf("dial %s, loopback %v: connected to %q (%v), want %s", c.addr, c.loopback, dialled, err, c.want)
		}
	}
}

// The dialer checks the address it connects to, whatever a URL passed at registration: a name
// that resolves to loopback is refused at connect time unless loopback is allowed. It connects
// on loopback only.
func TestDialChecksAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, host := range []string{"127.0.0.1", "localhost"} {
		p := AddressPolicy{Resolver: hostsOnly}
		if _, err := p.DialContext(context.Background(), "tcp", net.JoinHostPort(host, port)); !errors.Is(err, ErrAddressRefused) {
			t.Errorf("dial %s without the loopback flag: %v, want ErrAddressRefused", host, err)
		}
		p.AllowLoopback = true
		c, err := p.DialContext(context.Background(), "tcp", net.JoinHostPort(host, port))
		if err != nil {
			t.Errorf("dial %s with the loopback flag: %v", host, err)
			continue
		}
		c.Close()
	}
}

// Any address, with or without a zone, is allowed exactly when its class (read from its bytes
// by addressClass, apart from the guard) is public unicast, or loopback with the flag.
func FuzzAllowed(f *testing.F) {
	for _, s := range []string{
		"93.184.215.14", "127.0.0.1", "10.0.0.1", "::1", "::", "::ffff:127.0.0.1", "::127.0.0.1", "fd00:ec2::254", "fe80::1",
		"ff02::1", "64:ff9b::a00:1", "64:ff9b:1::1", "2002:a00:1::", "2001::1", "2001:db8::1", "2606:4700::1111", "100::1",
	} {
		ip := netip.MustParseAddr(s)
		b := ip.AsSlice()
		f.Add(b, "", false)
		f.Add(b, "", true)
		if ip.Is6() {
			f.Add(b, "lo", true)
			f.Add(b, "eth0", false)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, zone string, loopback bool) {
		ip, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		ip = ip.WithZone(zone) // an IPv4 address takes no zone
		if got, want := (AddressPolicy{AllowLoopback: loopback}).Allowed(ip), mayReach(ip, loopback); got != want {
			t.Fatalf("Allowed(%s), loopback %v = %v; its class is %q", ip, loopback, got, addressClass(ip))
		}
	})
}

// A subscription URL of any shape is accepted only as an absolute https URL (http only to
// loopback where that is allowed) without user information or a fragment, whose host's
// addresses are all of classes a delivery may reach; and whatever the URL, the dialer asks to
// connect only to such an address. Names resolve from the hosts file alone, and nothing is
// dialled.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://93.184.216.34/hook", "https://[2606:2800:220:1::]/hook", "http://127.0.0.1:8080/x", "https://10.0.0.1/",
		"https://169.254.169.254/latest/meta-data", "https://[::ffff:10.0.0.1]/", "https://user:pw@93.184.216.34/", "https://93.184.216.34/#f",
		"ftp://93.184.216.34/", "//93.184.216.34/x", "https:93.184.216.34", "https://0.0.0.0/", "https://[fe80::1%25eth0]/",
		"https://127.1/", "https://0x7f000001/", "https://example.org/", "https://93.184.216.34:99999/", "HTTPS://93.184.216.34/",
		"https://[::%25lo]:8443/hook", "http://[::1%25lo]:80/", "https://[fd00:ec2::254%25eth0]/", "https://[::ffff:7f00:1]/",
		"https://[::127.0.0.1]/", "https://[64:ff9b::a9fe:a9fe]/", "https://[2002:a9fe:a9fe::]/", "https://2130706433/",
		"http://localhost:8080/", "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "https://1.0.0.0]",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, raw string, loopback bool) {
		var dialled []string
		p := AddressPolicy{AllowLoopback: loopback, Resolver: hostsOnly, Dial: recordDial(&dialled)}
		u, err := p.CheckURL(ctx, raw)
		switch {
		case err != nil:
			if u != nil || err.Error() == "" {
				t.Fatalf("%q: refused with %v, %v", raw, u, err)
			}
		case len(raw) > MaxURLLen || u.User != nil || u.Fragment != "" || u.Host == "":
			t.Fatalf("%q: accepted as %#v", raw, u)
		default:
			host := u.Hostname()
			ips, err := hostsOnly.LookupNetIP(ctx, "ip", host)
			if ip, perr := netip.ParseAddr(host); perr == nil {
				ips, err = []netip.Addr{ip}, nil
			}
			if err != nil || len(ips) == 0 {
				t.Fatalf("%q: accepted a host that does not resolve: %v", raw, err)
			}
			for _, ip := range ips {
				if !mayReach(ip, loopback) {
					t.Fatalf("%q: accepted %s, of class %q", raw, ip, addressClass(ip))
				}
				if u.Scheme != "https" && (u.Scheme != "http" || addressClass(ip) != "loopback") {
					t.Fatalf("%q: accepted scheme %q to %s", raw, u.Scheme, ip)
				}
			}
		}
		pu, err := url.Parse(raw)
		if err != nil || pu.Host == "" {
			return
		}
		_, _ = p.DialContext(ctx, "tcp", net.JoinHostPort(pu.Hostname(), "443"))
		for _, a := range dialled {
			host, _, _ := net.SplitHostPort(a)
			ip, err := netip.ParseAddr(host)
			if err != nil || !mayReach(ip, loopback) {
				t.Fatalf("%q: dialled %s", raw, a)
			}
		}
	})
}

// A registration of any events and NPIs is refused with a code and a message, or normalized to
// known events and valid NPIs, each once and sorted, with NPIs wherever an event needs them.
func FuzzRegistration(f *testing.F) {
	f.Add("source.refreshed", "")
	f.Add("provider.changed,exclusion.added,provider.changed", "1234567893,1245319599,1234567893")
	f.Add("provider.changed", "")
	f.Add("provider.changed", "1234567890")
	f.Add("nope", "1234567893")
	f.Add("", "")
	f.Add("source.refreshed", "1234567893,")
	f.Fuzz(func(t *testing.T, events, npis string) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		r := Registration{URL: "https://93.184.216.34/", Events: split(events), NPIs: split(npis)}
		ev, ns, err := r.normalize()
		if err != nil {
			var in *InputError
			if !errors.As(err, &in) || in.Code == "" || in.Message == "" {
				t.Fatalf("%+v: refused with %v", r, err)
			}
			return
		}
		if len(ev) == 0 || !slices.IsSorted(ev) || len(slices.Compact(slices.Clone(ev))) != len(ev) {
			t.Fatalf("%+v: events %q", r, ev)
		}
		for _, e := range ev {
			if !slices.Contains(Events, e) {
				t.Fatalf("%+v: accepted event %q", r, e)
			}
		}
		if ns == nil || len(ns) > MaxWatchedNPIs || !slices.IsSorted(ns) || len(slices.Compact(slices.Clone(ns))) != len(ns) {
			t.Fatalf("%+v: NPIs %q", r, ns)
		}
		for _, n := range ns {
			if ident.ValidateNPI(n) != nil {
				t.Fatalf("%+v: accepted NPI %q", r, n)
			}
		}
		if (slices.Contains(ev, EventProviderChanged) || slices.Contains(ev, EventExclusionAdded)) && len(ns) == 0 {
			t.Fatalf("%+v: watches without NPIs", r)
		}
	})
}
