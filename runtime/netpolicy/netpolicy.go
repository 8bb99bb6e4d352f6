// Package netpolicy classifies IP addresses and URL hosts by the network
// they reach: the local machine (loopback), a private network (RFC 1918,
// unique local, shared CGNAT space), the link (link-local), a cloud
// metadata service, or the internet. A client that follows URLs a
// remote party gave it (runtime/oauth reads them from a server's OAuth
// metadata) uses the classes to refuse those that point inward.
//
// Classify names the class of an address, with the IPv6 forms that carry an
// IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo) classed by the address
// they carry as well. ParseHost reads a URL host the way a careful client
// must: an IP address only in its canonical spelling (2130706433, 0x7f.1,
// 0177.0.0.1 and 127.1 all reach 127.0.0.1 through some resolvers, and are
// refused), localhost names as loopback (RFC 6761), anything else as a
// name whose addresses are known only when it is dialled.
//
// Nothing here does network I/O.
package netpolicy

import (
	"net/netip"
	"strings"
)

// Class is a set of address classes: each named class is one bit, and an
// address may belong to several (::ffff:0:10.0.0.1, an IPv4-translated
// address for 10.0.0.1, is Private and Reserved). Public, the zero Class,
// is a globally routable unicast address.
type Class uint16

// The classes. The prefixes are those of the IANA special-purpose address
// registries (RFC 6890 and its updates).
const (
	// Public is a globally routable unicast address: no class bit.
	Public Class = 0
	// Loopback is 127.0.0.0/8 and ::1, and the names localhost and
	// *.localhost (RFC 6761): the local machine.
	Loopback Class = 1 << iota
	// Private is 10.0.0.0/8, 172.16.0.0/12 and 192.168.0.0/16 (RFC 1918).
	Private
	// ULA is fc00::/7, IPv6 unique local addresses (RFC 4193); a cloud
	// metadata service answers at fd00:ec2::254.
	ULA
	// CGNAT is 100.64.0.0/10, the shared address space of carrier-grade
	// NAT (RFC 6598), also used by overlay networks.
	CGNAT
	// LinkLocal is 169.254.0.0/16 (RFC 3927) and fe80::/10 (RFC 4291);
	// cloud metadata services answer at 169.254.169.254.
	LinkLocal
	// Unspecified is 0.0.0.0/8 ("this network", RFC 791) and ::. A
	// connection to 0.0.0.0 reaches the local machine on most systems.
	Unspecified
	// Multicast is 224.0.0.0/4 and ff00::/8.
	Multicast
	// Broadcast is 255.255.255.255.
	Broadcast
	// Documentation is 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24
	// (RFC 5737), 2001:db8::/32 (RFC 3849) and 3fff::/20 (RFC 9637).
	Documentation
	// Reserved is the rest of what is not globally routable: 240.0.0.0/4,
	// 192.0.0.0/24, 192.88.99.0/24, 198.18.0.0/15, 100::/64, 2001::/23
	// (but Teredo), the deprecated IPv4-compatible ::/96 and IPv4-translated
	// ::ffff:0:0:0/96, and IPv6 outside 2000::/3 but the ranges above.
	Reserved
	// Metadata is the addresses of the cloud metadata services, which
	// hand out the machine's credentials to whoever asks from it:
	// 169.254.169.254 (AWS, Azure, Google Cloud, Oracle Cloud and others),
	// fd00:ec2::254 (AWS over IPv6), 169.254.170.2 (AWS ECS task
	// credentials), 169.254.170.23 and fd00:ec2::23 (Amazon EKS Pod
	// Identity), 100.100.100.200 (Alibaba Cloud) and 168.63.129.16
	// (Azure's WireServer). An address of this set has this bit besides
	// the class of its range: 169.254.169.254 is LinkLocal|Metadata,
	// 168.63.129.16 Metadata alone.
	Metadata
)

// Groups of classes.
const (
	// PrivateNetworks are the addresses of private networks: Private, ULA
	// and CGNAT.
	PrivateNetworks = Private | ULA | CGNAT
	// All is every class.
	All = Loopback | Private | ULA | CGNAT | LinkLocal | Unspecified | Multicast | Broadcast | Documentation | Reserved | Metadata
)

// classInfo names a class and says what it is.
var classInfo = []struct {
	c     Class
	name  string
	about string
}{
	{Loopback, "loopback", "a loopback address"},
	{Private, "private", "a private address (RFC 1918)"},
	{ULA, "ULA", "a unique local address (RFC 4193)"},
	{CGNAT, "CGNAT", "a shared address of carrier-grade NAT (RFC 6598)"},
	{LinkLocal, "link-local", "a link-local address"},
	{Unspecified, "unspecified", "an unspecified address, which reaches the local machine"},
	{Multicast, "multicast", "a multicast address"},
	{Broadcast, "broadcast", "the broadcast address"},
	{Documentation, "documentation", "a documentation address"},
	{Reserved, "reserved", "a reserved address, not globally routable"},
	{Metadata, "metadata", "the address of a cloud metadata service"},
}

// String names the classes of c, joined by "|": "private", "loopback|ULA";
// "public" for Public.
func (c Class) String() string {
	if c == Public {
		return "public"
	}
	var names []string
	for _, i := range classInfo {
		if c&i.c != 0 {
			names = append(names, i.name)
			c &^= i.c
		}
	}
	if c != 0 {
		names = append(names, "unknown")
	}
	return strings.Join(names, "|")
}

// describe says what an address of class c is, for error messages: "a
// private address (RFC 1918)"; the descriptions of several classes are
// joined by " and ".
func (c Class) describe() string {
	if c == Public {
		return "a public address"
	}
	var out []string
	for _, i := range classInfo {
		if c&i.c != 0 {
			out = append(out, i.about)
		}
	}
	return strings.Join(out, " and ")
}

// prefix is a special-purpose range and its class.
type prefix struct {
	p netip.Prefix
	c Class
}

// v4 are the IPv4 special-purpose ranges; the first that contains an
// address gives its class, and an address in none is Public.
var v4 = []prefix{
	{netip.MustParsePrefix("0.0.0.0/8"), Unspecified},
	{netip.MustParsePrefix("10.0.0.0/8"), Private},
	{netip.MustParsePrefix("100.64.0.0/10"), CGNAT},
	{netip.MustParsePrefix("127.0.0.0/8"), Loopback},
	{netip.MustParsePrefix("169.254.0.0/16"), LinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), Private},
	{netip.MustParsePrefix("192.0.0.0/24"), Reserved},
	{netip.MustParsePrefix("192.0.2.0/24"), Documentation},
	{netip.MustParsePrefix("192.88.99.0/24"), Reserved},
	{netip.MustParsePrefix("192.168.0.0/16"), Private},
	{netip.MustParsePrefix("198.18.0.0/15"), Reserved},
	{netip.MustParsePrefix("198.51.100.0/24"), Documentation},
	{netip.MustParsePrefix("203.0.113.0/24"), Documentation},
	{netip.MustParsePrefix("224.0.0.0/4"), Multicast},
	{netip.MustParsePrefix("255.255.255.255/32"), Broadcast},
	{netip.MustParsePrefix("240.0.0.0/4"), Reserved},
}

// v6 are the IPv6 special-purpose ranges that carry no IPv4 address, in
// the same way; an address in none of them nor in 2000::/3 is Reserved.
var v6 = []prefix{
	{netip.MustParsePrefix("::/128"), Unspecified},
	{netip.MustParsePrefix("::1/128"), Loopback},
	{netip.MustParsePrefix("100::/64"), Reserved},
	{netip.MustParsePrefix("2001:db8::/32"), Documentation},
	{netip.MustParsePrefix("2001::/23"), Reserved},
	{netip.MustParsePrefix("3fff::/20"), Documentation},
	{netip.MustParsePrefix("fc00::/7"), ULA},
	{netip.MustParsePrefix("fe80::/10"), LinkLocal},
	{netip.MustParsePrefix("ff00::/8"), Multicast},
}

var globalUnicast = netip.MustParsePrefix("2000::/3")

// metadata are the addresses of class Metadata.
var metadata = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true,
	netip.MustParseAddr("169.254.170.2"):   true,
	netip.MustParseAddr("169.254.170.23"):  true,
	netip.MustParseAddr("100.100.100.200"): true,
	netip.MustParseAddr("168.63.129.16"):   true,
	netip.MustParseAddr("fd00:ec2::254"):   true,
	netip.MustParseAddr("fd00:ec2::23"):    true,
}

// Classify returns the class of a. An IPv6 address that carries an IPv4
// address (see Embedded) is classed by that address too, so that no
// spelling of 127.0.0.1, 10.0.0.1 or 169.254.169.254 is Public; a zone is
// ignored. The invalid Addr is Reserved.
func Classify(a netip.Addr) Class {
	if !a.IsValid() {
		return Reserved
	}
	a = a.WithZone("")
	c := classify(a)
	if metadata[a] {
		c |= Metadata
	}
	return c
}

// classify is Classify without the Metadata bit of a itself (an embedded
// IPv4 address's is there).
func classify(a netip.Addr) Class {
	if a.Is4() {
		for _, p := range v4 {
			if p.p.Contains(a) {
				return p.c
			}
		}
		return Public
	}
	if e, kind := embedded(a); kind != "" {
		c := Classify(e)
		switch kind {
		case kindCompatible, kindTranslated:
			c |= Reserved
		case kindNAT64Local:
			c |= Private
		}
		return c
	}
	for _, p := range v6 {
		if p.p.Contains(a) {
			return p.c
		}
	}
	if !globalUnicast.Contains(a) {
		return Reserved
	}
	return Public
}

// How an IPv6 address carries an IPv4 one.
const (
	kindMapped     = "IPv4-mapped"
	kindCompatible = "IPv4-compatible"
	kindTranslated = "IPv4-translated"
	kindNAT64      = "NAT64"
	kindNAT64Local = "local-use NAT64"
	kind6to4       = "6to4"
	kindTeredo     = "Teredo"
)

var (
	mapped     = netip.MustParsePrefix("::ffff:0:0/96")
	compatible = netip.MustParsePrefix("::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	teredo     = netip.MustParsePrefix("2001::/32")
)

// Embedded returns the IPv4 address an IPv6 address carries, and how:
// "IPv4-mapped" (::ffff:a.b.c.d), "IPv4-compatible" (::a.b.c.d,
// deprecated), "IPv4-translated" (::ffff:0:a.b.c.d), "NAT64"
// (64:ff9b::/96, RFC 6052), "local-use NAT64" (64:ff9b:1::/48, RFC 8215),
// "6to4" (2002::/16, RFC 3056) or "Teredo" (2001::/32, RFC 4380: the
// client's address). ok is false for an address that carries none.
func Embedded(a netip.Addr) (v4 netip.Addr, how string, ok bool) {
	e, kind := embedded(a.WithZone(""))
	return e, kind, kind != ""
}

func embedded(a netip.Addr) (netip.Addr, string) {
	if !a.Is6() {
		return netip.Addr{}, ""
	}
	b := a.As16()
	last4 := func() netip.Addr { return netip.AddrFrom4([4]byte(b[12:16])) }
	switch {
	case mapped.Contains(a):
		return last4(), kindMapped
	case a == netip.IPv6Unspecified() || a == netip.IPv6Loopback():
		return netip.Addr{}, ""
	case compatible.Contains(a):
		return last4(), kindCompatible
	case translated.Contains(a):
		return last4(), kindTranslated
	case nat64.Contains(a):
		return last4(), kindNAT64
	case nat64Local.Contains(a):
		// RFC 6052 section 2.2, a /48 prefix: the IPv4 address is in
		// bits 48-63 and 72-87, around the u octet.
		return netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]}), kindNAT64Local
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), kind6to4
	case teredo.Contains(a):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), kindTeredo
	}
	return netip.Addr{}, ""
}
