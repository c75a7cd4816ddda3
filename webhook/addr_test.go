package webhook

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"providerdir/ident"
)

func TestAllowed(t *testing.T) {
	for _, c := range []struct {
		ip              string
		strict, devFlag bool
	}{
		{"93.184.215.14", true, true},
		{"2606:4700::1111", true, true},
		{"127.0.0.1", false, true},
		{"127.8.9.10", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"10.1.2.3", false, false},
		{"172.16.0.1", false, false},
		{"172.31.255.255", false, false},
		{"192.168.1.1", false, false},
		{"169.254.169.254", false, false},
		{"::ffff:169.254.169.254", false, false},
		{"100.64.0.1", false, false},
		{"0.0.0.0", false, false},
		{"224.0.0.1", false, false},
		{"255.255.255.255", false, false},
		{"fc00::1", false, false},
		{"fd00:ec2::254", false, false},
		{"fe80::1", false, false},
		{"::", false, false},
		{"64:ff9b::a00:1", false, false},
		{"2002:a00:1::", false, false},
		{"ff02::1", false, false},
		{"172.32.0.1", true, true},
	} {
		ip := netip.MustParseAddr(c.ip)
		if got := (AddressPolicy{}).Allowed(ip); got != c.strict {
			t.Errorf("Allowed(%s) = %v, want %v", c.ip, got, c.strict)
		}
		if got := (AddressPolicy{AllowLoopback: true}).Allowed(ip); got != c.devFlag {
			t.Errorf("Allowed(%s) with loopback allowed = %v, want %v", c.ip, got, c.devFlag)
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
		{"http://93.184.215.14/hooks", false, "https"},
		{"http://93.184.215.14/hooks", true, "https"},
		{"http://127.0.0.1:9000/h", false, "https"},
		{"http://127.0.0.1:9000/h", true, ""},
		{"https://127.0.0.1/h", false, "loopback"},
		{"http://localhost:9000/h", true, ""},
		{"https://localhost/h", false, "loopback"},
		{"https://10.0.0.5/h", true, "private"},
		{"https://169.254.169.254/latest/meta-data", true, "link-local"},
		{"https://[fd12::1]/h", true, "private"},
		{"https://[::ffff:10.0.0.1]/h", false, "private"},
		{"https://user:pw@93.184.215.14/h", false, "user information"},
		{"https://93.184.215.14/h#frag", false, "fragment"},
		{"ftp://93.184.215.14/h", false, "https"},
		{"/relative", false, "absolute"},
		{"https:///nohost", false, "absolute"},
		{"https://host.invalid/h", false, "does not resolve"},
		{"https://93.184.215.14/" + strings.Repeat("a", MaxURLLen), false, "longer"},
	} {
		_, err := AddressPolicy{AllowLoopback: c.loopback}.CheckURL(context.Background(), c.url)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckURL(%s, loopback %v) = %v, want accepted", c.url, c.loopback, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckURL(%s, loopback %v) = %v, want an error about %q", c.url, c.loopback, err, c.want)
		}
	}
}

// The dialer checks the address it connects to, whatever a URL passed at registration: a name
// that resolves to loopback is refused at connect time unless loopback is allowed.
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
		if _, err := (AddressPolicy{}).DialContext(context.Background(), "tcp", net.JoinHostPort(host, port)); !errors.Is(err, ErrAddressRefused) {
			t.Errorf("dial %s without the loopback flag: %v, want ErrAddressRefused", host, err)
		}
		c, err := AddressPolicy{AllowLoopback: true}.DialContext(context.Background(), "tcp", net.JoinHostPort(host, port))
		if err != nil {
			t.Errorf("dial %s with the loopback flag: %v", host, err)
			continue
		}
		c.Close()
	}
}

// A subscription URL of any shape is accepted only as an absolute https URL (http only to
// loopback where that is allowed) without user information or a fragment, whose host is an
// address deliveries may connect to. Name look-ups fail here, so only addresses are accepted.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://93.184.216.34/hook", "https://[2606:2800:220:1::]/hook", "http://127.0.0.1:8080/x", "https://10.0.0.1/",
		"https://169.254.169.254/latest/meta-data", "https://[::ffff:10.0.0.1]/", "https://user:pw@93.184.216.34/", "https://93.184.216.34/#f",
		"ftp://93.184.216.34/", "//93.184.216.34/x", "https:93.184.216.34", "https://0.0.0.0/", "https://[fe80::1%25eth0]/",
		"https://127.1/", "https://0x7f000001/", "https://example.org/", "https://93.184.216.34:99999/", "HTTPS://93.184.216.34/",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	noNames := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no name service in this test")
	}}
	f.Fuzz(func(t *testing.T, raw string, loopback bool) {
		p := AddressPolicy{AllowLoopback: loopback, Resolver: noNames}
		u, err := p.CheckURL(context.Background(), raw)
		if err != nil {
			if u != nil || err.Error() == "" {
				t.Fatalf("%q: refused with %v, %v", raw, u, err)
			}
			return
		}
		if len(raw) > MaxURLLen || u.User != nil || u.Fragment != "" || u.Host == "" {
			t.Fatalf("%q: accepted as %#v", raw, u)
		}
		ips, err := p.resolve(context.Background(), u.Hostname())
		if err != nil || len(ips) == 0 {
			t.Fatalf("%q: accepted a host that does not resolve: %v", raw, err)
		}
		for _, ip := range ips {
			if !p.Allowed(ip) {
				t.Fatalf("%q: accepted %s", raw, ip)
			}
			if u.Scheme != "https" && !(u.Scheme == "http" && loopback && ip.Unmap().IsLoopback()) {
				t.Fatalf("%q: accepted scheme %q to %s", raw, u.Scheme, ip)
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
