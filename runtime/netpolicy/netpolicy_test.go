package netpolicy_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/netpolicy"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want netpolicy.Class
	}{
		{"8.8.8.8", netpolicy.Public},
		{"1.1.1.1", netpolicy.Public},
		{"127.0.0.1", netpolicy.Loopback},
		{"127.255.255.254", netpolicy.Loopback},
		{"10.0.0.5", netpolicy.Private},
		{"172.16.0.1", netpolicy.Private},
		{"172.31.255.255", netpolicy.Private},
		{"172.32.0.1", netpolicy.Public},
		{"192.168.1.1", netpolicy.Private},
		{"100.64.0.1", netpolicy.CGNAT},
		{"100.127.255.255", netpolicy.CGNAT},
		{"100.128.0.1", netpolicy.Public},
		{"169.254.169.254", netpolicy.LinkLocal | netpolicy.Metadata},
		{"169.254.169.253", netpolicy.LinkLocal},
		{"169.254.170.2", netpolicy.LinkLocal | netpolicy.Metadata},
		{"100.100.100.200", netpolicy.CGNAT | netpolicy.Metadata},
		{"100.100.100.100", netpolicy.CGNAT},
		{"168.63.129.16", netpolicy.Metadata},
		{"168.63.129.17", netpolicy.Public},
		{"0.0.0.0", netpolicy.Unspecified},
		{"0.1.2.3", netpolicy.Unspecified},
		{"224.0.0.1", netpolicy.Multicast},
		{"239.255.255.250", netpolicy.Multicast},
		{"255.255.255.255", netpolicy.Broadcast},
		{"240.0.0.1", netpolicy.Reserved},
		{"192.0.2.1", netpolicy.Documentation},
		{"198.51.100.7", netpolicy.Documentation},
		{"203.0.113.9", netpolicy.Documentation},
		{"198.18.0.1", netpolicy.Reserved},
		{"192.0.0.8", netpolicy.Reserved},
		{"2606:4700::1111", netpolicy.Public},
		{"::1", netpolicy.Loopback},
		{"::", netpolicy.Unspecified},
		{"fd00::1", netpolicy.ULA},
		{"fc00::1", netpolicy.ULA},
		{"fd00:ec2::254", netpolicy.ULA | netpolicy.Metadata},
		{"fd00:ec2::23", netpolicy.ULA | netpolicy.Metadata},
		{"fd00:ec2::255", netpolicy.ULA},
		{"fe80::1", netpolicy.LinkLocal},
		{"fe80::1%eth0", netpolicy.LinkLocal},
		{"ff02::1", netpolicy.Multicast},
		{"2001:db8::1", netpolicy.Documentation},
		{"3fff::1", netpolicy.Documentation},
		{"100::1", netpolicy.Reserved},
		{"fec0::1", netpolicy.Reserved},
		{"4000::1", netpolicy.Reserved},
		// IPv6 forms that carry an IPv4 address are classed by it.
		{"::ffff:127.0.0.1", netpolicy.Loopback},
		{"::ffff:7f00:1", netpolicy.Loopback},
		{"::ffff:169.254.169.254", netpolicy.LinkLocal | netpolicy.Metadata},
		{"64:ff9b::169.254.169.254", netpolicy.LinkLocal | netpolicy.Metadata},
		{"64:ff9b::168.63.129.16", netpolicy.Metadata},
		{"::ffff:8.8.8.8", netpolicy.Public},
		{"::127.0.0.1", netpolicy.Loopback | netpolicy.Reserved},
		{"::ffff:0:10.0.0.1", netpolicy.Private | netpolicy.Reserved},
		{"64:ff9b::10.0.0.1", netpolicy.Private},
		{"64:ff9b::127.0.0.1", netpolicy.Loopback},
		{"64:ff9b::8.8.8.8", netpolicy.Public},
		{"64:ff9b:1:7f00:0:100::", netpolicy.Loopback | netpolicy.Private},
		{"2002:a9fe:a9fe::1", netpolicy.LinkLocal | netpolicy.Metadata},
		{"2002:808:808::1", netpolicy.Public},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", netpolicy.Loopback}, // Teredo, client ^0x80fffffe = 127.0.0.1
	} {
		a := netip.MustParseAddr(tc.addr)
		if got := netpolicy.Classify(a); got != tc.want {
			t.Errorf("Classify(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
	if got := netpolicy.Classify(netip.Addr{}); got != netpolicy.Reserved {
		t.Errorf("Classify(invalid) = %v, want reserved", got)
	}
}

func TestClassString(t *testing.T) {
	for c, want := range map[netpolicy.Class]string{
		netpolicy.Public:                            "public",
		netpolicy.Private:                           "private",
		netpolicy.PrivateNetworks:                   "private|ULA|CGNAT",
		netpolicy.Loopback | netpolicy.LinkLocal:    "loopback|link-local",
		netpolicy.LinkLocal | netpolicy.Metadata:    "link-local|metadata",
		netpolicy.Reserved | netpolicy.Class(1<<15): "reserved|unknown",
	} {
		if got := c.String(); got != want {
			t.Errorf("%#x: String() = %q, want %q", uint16(c), got, want)
		}
	}
}

func TestParseHost(t *testing.T) {
	for _, tc := range []struct {
		host  string
		addr  string // "" for none
		class netpolicy.Class
		err   string // in the error; "" for none
	}{
		{host: "as.example.com", class: netpolicy.Public},
		{host: "AS.Example.COM.", class: netpolicy.Public},
		{host: "localhost", class: netpolicy.Loopback},
		{host: "LOCALHOST.", class: netpolicy.Loopback},
		{host: "app.localhost", class: netpolicy.Loopback},
		{host: "localhost.example.com", class: netpolicy.Public},
		{host: "1password.com", class: netpolicy.Public},
		{host: "a.0x", class: netpolicy.Public, err: "not an IPv4"}, // "0x" is the number 0 and a.0x is no IPv4 form
		{host: "127.0.0.1", addr: "127.0.0.1", class: netpolicy.Loopback},
		{host: "93.184.215.14", addr: "93.184.215.14", class: netpolicy.Public},
		{host: "::1", addr: "::1", class: netpolicy.Loopback},
		{host: "0:0:0:0:0:0:0:1", addr: "::1", class: netpolicy.Loopback},
		{host: "::FFFF:7F00:1", addr: "::ffff:127.0.0.1", class: netpolicy.Loopback},
		{host: "fe80::1%eth0", addr: "fe80::1%eth0", class: netpolicy.LinkLocal},
		{host: "2130706433", err: "non-canonical spelling of the IPv4 address 127.0.0.1"},
		{host: "0x7f.1", err: "127.0.0.1"},
		{host: "0X7F.0.0.1", err: "127.0.0.1"},
		{host: "0177.0.0.1", err: "127.0.0.1"},
		{host: "127.1", err: "127.0.0.1"},
		{host: "127.0.1", err: "127.0.0.1"},
		{host: "127.0.0.1.", err: "127.0.0.1"},
		{host: "127.000.000.001", err: "127.0.0.1"},
		{host: "0xa9fea9fe", err: "169.254.169.254"},
		{host: "0x08080808", err: "8.8.8.8"},
		{host: "0", err: "0.0.0.0"},
		{host: "1.2.3.4.5", err: "not an IPv4"},
		{host: "256.0.0.1", err: "not an IPv4"},
		{host: "example.09", err: "not an IPv4"},
		{host: "", err: "empty"},
		{host: "１２７.０.０.１", err: "ASCII"},
		{host: "bücher.example", err: "xn--"},
		{host: "a b", err: "ASCII"},
		{host: "::1::", err: "neither"},
		{host: "1.2.3.4:80", err: "neither"},
	} {
		addr, class, err := netpolicy.ParseHost(tc.host)
		if tc.err != "" {
			var re *netpolicy.RefusedError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &re) || !errors.Is(err, netpolicy.ErrRefused) {
				t.Errorf("ParseHost(%q): err = %v, want a *RefusedError containing %q", tc.host, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseHost(%q): %v", tc.host, err)
			continue
		}
		if got := ""; addr.IsValid() {
			got = addr.String()
			if got != tc.addr {
				t.Errorf("ParseHost(%q) addr = %s, want %s", tc.host, got, tc.addr)
			}
		} else if tc.addr != "" {
			t.Errorf("ParseHost(%q): no addr, want %s", tc.host, tc.addr)
		}
		if class != tc.class {
			t.Errorf("ParseHost(%q) class = %v, want %v", tc.host, class, tc.class)
		}
	}
}

func TestRefusedErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *netpolicy.RefusedError
		want string
	}{
		{&netpolicy.RefusedError{Host: "10.0.0.5", Addr: netip.MustParseAddr("10.0.0.5"), Class: netpolicy.Private}, "10.0.0.5 is a private address (RFC 1918)"},
		{&netpolicy.RefusedError{Host: "rebind.example", Addr: netip.MustParseAddr("127.0.0.1"), Class: netpolicy.Loopback, Resolved: true}, "rebind.example resolved to 127.0.0.1, a loopback address"},
		{&netpolicy.RefusedError{Host: "localhost", Class: netpolicy.Loopback}, "localhost is a loopback name (RFC 6761)"},
		{&netpolicy.RefusedError{Host: "as.localhost", Addr: netip.MustParseAddr("192.0.2.1"), Class: netpolicy.Documentation, Resolved: true}, "as.localhost resolved to 192.0.2.1, a documentation address, not a loopback one (RFC 6761)"},
		{&netpolicy.RefusedError{Host: "169.254.169.254", Addr: netip.MustParseAddr("169.254.169.254"), Class: netpolicy.LinkLocal | netpolicy.Metadata}, "169.254.169.254 is a link-local address and the address of a cloud metadata service"},
		{&netpolicy.RefusedError{Host: "64:ff9b::a00:5", Addr: netip.MustParseAddr("64:ff9b::a00:5"), Class: netpolicy.Private}, "64:ff9b::a00:5 (NAT64, for 10.0.0.5) is a private address (RFC 1918)"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestIsLocalhost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost":             true,
		"LocalHost.":            true,
		"as.localhost":          true,
		"a.b.LOCALHOST":         true,
		"localhost.example.com": false,
		"notlocalhost":          false,
		"localhost.localdomain": false,
		"127.0.0.1":             false,
		"":                      false,
	} {
		if got := netpolicy.IsLocalhost(host); got != want {
			t.Errorf("IsLocalhost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestLegacyIPv4(t *testing.T) {
	for host, want := range map[string]string{
		"2130706433":        "127.0.0.1",
		"0x7f000001":        "127.0.0.1",
		"017700000001":      "127.0.0.1",
		"0x7f.1":            "127.0.0.1",
		"127.1":             "127.0.0.1",
		"10.1.258":          "10.1.1.2",
		"0x":                "0.0.0.0",
		"4294967295":        "255.255.255.255",
		"1.2.3.4.":          "1.2.3.4",
		"4294967296":        "",
		"1.2.3.4.5":         "",
		"1.256.1":           "",
		"08.1.1.1":          "", // 8 is not an octal digit
		"0x1g":              "",
		"1..2":              "",
		"99999999999999999": "",
	} {
		a, ok := netpolicy.LegacyIPv4(host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != want {
			t.Errorf("LegacyIPv4(%q) = %q, want %q", host, got, want)
		}
	}
}
