package netpolicy_test

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/netpolicy"
)

// FuzzParseHost: any host is read or refused, never a panic; what is read
// is consistent, and no host that is some spelling of an IPv4 address is
// read as anything but that address in its canonical form.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"example.com", "localhost.", "127.0.0.1", "2130706433", "0x7f.1", "::ffff:127.0.0.1", "fe80::1%eth0", "1.2.3.4.", "0x", "", "a.b.c.0x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		addr, class, err := netpolicy.ParseHost(host)
		if err != nil {
			var re *netpolicy.RefusedError
			if !errors.As(err, &re) || !errors.Is(err, netpolicy.ErrRefused) || re.Spelling == "" || err.Error() == "" {
				t.Fatalf("ParseHost(%q): err %v is not a *RefusedError with a Spelling", host, err)
			}
			return
		}
		if addr.IsValid() {
			if class != netpolicy.Classify(addr) {
				t.Fatalf("ParseHost(%q) = %s, %v; Classify says %v", host, addr, class, netpolicy.Classify(addr))
			}
			if addr.Is4() && addr.String() != host {
				t.Fatalf("ParseHost(%q) read a non-canonical spelling of %s", host, addr)
			}
		} else if class != netpolicy.Public && class != netpolicy.Loopback {
			t.Fatalf("ParseHost(%q): a name of class %v", host, class)
		}
		if a, ok := netpolicy.LegacyIPv4(host); ok && (!addr.IsValid() || addr != a) {
			t.Fatalf("ParseHost(%q) accepted a spelling of %s as %v (%v)", host, a, addr, class)
		}
	})
}

// spell writes the IPv4 address a in the form numbered form (modulo the
// number of forms): inet_aton's, the WHATWG URL standard's, and IPv6
// forms that carry it.
func spell(a netip.Addr, form uint8) string {
	b := a.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	forms := []func() string{
		func() string { return a.String() },
		func() string { return fmt.Sprint(v) },
		func() string { return fmt.Sprintf("0x%x", v) },
		func() string { return fmt.Sprintf("0X%08X", v) },
		func() string { return fmt.Sprintf("0%o", v) },
		func() string { return fmt.Sprintf("%d.%d", b[0], v&0xffffff) },
		func() string { return fmt.Sprintf("%d.%d.%d", b[0], b[1], v&0xffff) },
		func() string { return fmt.Sprintf("0x%x.0x%x.0x%x.0x%x", b[0], b[1], b[2], b[3]) },
		func() string { return fmt.Sprintf("0%o.0%o.0%o.0%o", b[0], b[1], b[2], b[3]) },
		func() string { return fmt.Sprintf("%03d.%03d.%03d.%03d", b[0], b[1], b[2], b[3]) },
		func() string { return a.String() + "." },
		func() string { return fmt.Sprintf("0x%x.%d.0%o.%d", b[0], b[1], b[2], b[3]) },
		func() string { return "::ffff:" + a.String() },
		func() string { return fmt.Sprintf("::ffff:%x:%x", v>>16, v&0xffff) },
		func() string { return fmt.Sprintf("0:0:0:0:0:FFFF:%X:%X", v>>16, v&0xffff) },
		func() string { return "::ffff:" + a.String() + "%eth0" },
		func() string { return "::" + a.String() },
		func() string { return "::ffff:0:" + a.String() },
		func() string { return "64:ff9b::" + a.String() },
		func() string { return fmt.Sprintf("64:ff9b:1:%x:%x:%x00::", v>>16, b[2], b[3]) },
		func() string { return fmt.Sprintf("2002:%x:%x::1", v>>16, v&0xffff) },
		func() string { return fmt.Sprintf("2001:0:4136:e378:8000:63bf:%x:%x", ^v>>16, ^v&0xffff) },
	}
	return forms[int(form)%len(forms)]()
}

// FuzzSpellings: however an address of a class is spelled, the host is
// refused or classed (at least) as that class; so no spelling of a
// loopback, private or link-local address passes for a public one.
func FuzzSpellings(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "10.0.0.5", "169.254.169.254", "100.64.0.1", "0.0.0.0", "8.8.8.8", "192.168.1.1"} {
		for form := range 22 {
			b := netip.MustParseAddr(s).As4()
			f.Add(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]), uint8(form))
		}
	}
	f.Fuzz(func(t *testing.T, v uint32, form uint8) {
		a := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
		want := netpolicy.Classify(a)
		host := spell(a, form)
		addr, class, err := netpolicy.ParseHost(host)
		if host == a.String() {
			if err != nil || addr != a || class != want {
				t.Fatalf("ParseHost(%q) = %v, %v, %v; want %s, %v", host, addr, class, err, a, want)
			}
			return
		}
		if err != nil {
			return
		}
		if addr == netip.IPv6Unspecified() || addr == netip.IPv6Loopback() {
			return // ::0.0.0.0 and ::0.0.0.1 are not IPv4-compatible addresses but :: and ::1
		}
		if class&want != want {
			t.Fatalf("ParseHost(%q) (a spelling of %s, %v) = %v, %v", host, a, want, addr, class)
		}
		if strings.Contains(host, ":") {
			if e, _, ok := netpolicy.Embedded(addr); !ok || e != a {
				t.Fatalf("Embedded(%s) = %s, %v; want %s", addr, e, ok, a)
			}
		}
	})
}
