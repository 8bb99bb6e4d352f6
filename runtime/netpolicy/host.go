package netpolicy

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ErrRefused is what every RefusedError matches with errors.Is.
var ErrRefused = errors.New("address refused")

// RefusedError is a host or address a client refuses to reach: one of a
// class it does not allow, or a host written in a way that hides what it
// reaches.
type RefusedError struct {
	// Host is the host as it was given: a URL's host, or the name that
	// was dialled.
	Host string
	// Addr is the address Host names or resolved to; the zero Addr when it
	// is not known (a localhost name, an unreadable host).
	Addr netip.Addr
	// Class is the class of the host: Addr's, or Loopback for a localhost
	// name.
	Class Class
	// Resolved says that Addr is what the name Host resolved to when it
	// was dialled. A localhost name (see IsLocalhost) that resolved to an
	// address whose Class is not Loopback is refused whatever the
	// classes allowed.
	Resolved bool
	// Spelling, when not empty, is why Host is refused whatever its class:
	// it is not written as a canonical IP address or an ASCII name, or
	// (as a client that checks its connections reports it) the address it
	// was dialled or connected at is not an IP address and port.
	Spelling string
}

// Error says what Host is: "10.0.0.5 is a private address (RFC 1918)",
// "rebind.example resolved to 127.0.0.1, a loopback address", "app.localhost
// resolved to 192.0.2.1, a documentation address, not a loopback one (RFC
// 6761)", or why its spelling is refused.
func (e *RefusedError) Error() string {
	switch {
	case e.Spelling != "":
		return fmt.Sprintf("host %q %s", e.Host, e.Spelling)
	case e.Resolved && IsLocalhost(e.Host) && e.Class&Loopback == 0:
		return fmt.Sprintf("%s resolved to %s, %s, not a loopback one (RFC 6761)", e.Host, e.addr(), e.Class.describe())
	case e.Resolved:
		return fmt.Sprintf("%s resolved to %s, %s", e.Host, e.addr(), e.Class.describe())
	case !e.Addr.IsValid():
		return fmt.Sprintf("%s is a loopback name (RFC 6761)", e.Host)
	}
	return fmt.Sprintf("%s is %s", e.addr(), e.Class.describe())
}

// addr writes Addr, and the IPv4 address it carries if any (that of an
// IPv4-mapped address shows in its form already).
func (e *RefusedError) addr() string {
	if v4, how, ok := Embedded(e.Addr); ok && how != kindMapped {
		return fmt.Sprintf("%s (%s, for %s)", e.Addr, how, v4)
	}
	return e.Addr.String()
}

// Is reports whether target is ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// ParseHost reads a URL host (as url.URL.Hostname returns it: no port, no
// brackets) and returns the address it names and its class:
//
//   - an IP address in its canonical spelling: the address, and its class;
//   - localhost, or a name under .localhost (RFC 6761), with or without a
//     final dot: no address, and Loopback;
//   - any other name: no address, and Public (what it reaches is known
//     only when it is dialled).
//
// It refuses, with a *RefusedError whose Spelling says why, an empty host,
// a host with bytes that are not ASCII (an internationalized name is
// written in its A-label form, xn--), and a host whose last label is a
// number but that is not a canonical dotted-quad IPv4 address: 2130706433,
// 0x7f.1, 0177.0.0.1, 127.1 and 127.0.0.1. are spellings of 127.0.0.1 that
// some resolvers accept (inet_aton, the WHATWG URL standard) and others
// look up as names. An IPv6 address may be written in any form net/netip
// reads, with a zone.
func ParseHost(host string) (netip.Addr, Class, error) {
	if host == "" {
		return netip.Addr{}, 0, &RefusedError{Host: host, Spelling: "is empty"}
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; c >= 0x80 || c <= ' ' || c == 0x7f {
			return netip.Addr{}, 0, &RefusedError{Host: host, Spelling: "has a byte that is not printable ASCII (write an internationalized name in its xn-- form)"}
		}
	}
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return netip.Addr{}, 0, &RefusedError{Host: host, Spelling: "is neither an IPv6 address nor a host name"}
		}
		return a, Classify(a), nil
	}
	if IsLocalhost(host) {
		return netip.Addr{}, Loopback, nil
	}
	if !endsInNumber(host) {
		return netip.Addr{}, Public, nil
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() && a.String() == host {
		return a, Classify(a), nil
	}
	if a, ok := LegacyIPv4(host); ok {
		return netip.Addr{}, 0, &RefusedError{Host: host, Addr: a, Class: Classify(a), Spelling: "is a non-canonical spelling of the IPv4 address " + a.String()}
	}
	return netip.Addr{}, 0, &RefusedError{Host: host, Spelling: "ends in a number but is not an IPv4 address"}
}

// IsLocalhost reports whether host is localhost or a name under
// .localhost, in any case, with or without a final dot: a name that RFC
// 6761 (section 6.3) reserves for the loopback addresses, and that a
// careful client resolves to 127.0.0.1 or ::1 itself rather than asking
// DNS, which may answer anything.
func IsLocalhost(host string) bool {
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

// endsInNumber reports whether host's last label (after a final dot, if
// any) is a number: decimal digits, or 0x and hexadecimal digits (the
// WHATWG URL standard's "ends in a number"). No DNS name does.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X") {
		return strings.Trim(last[2:], "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// LegacyIPv4 reads host as the IPv4 forms of inet_aton and the WHATWG URL
// standard: one to four dot-separated numbers (an optional final dot),
// each decimal, octal (a leading 0) or hexadecimal (0x), the last filling
// the bytes that remain: 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 are all
// 127.0.0.1. ok is false for a host that is not such a form. It is how a
// client learns what a non-canonical host would reach; ParseHost refuses
// them.
func LegacyIPv4(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(host, ".")
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var out uint64
	for i, p := range parts {
		n, ok := legacyNumber(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			out |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(4-i)) {
			return netip.Addr{}, false
		}
		out |= n
	}
	return netip.AddrFrom4([4]byte{byte(out >> 24), byte(out >> 16), byte(out >> 8), byte(out)}), true
}

// legacyNumber reads one part of a legacy IPv4 form; values above 2^32
// are reported as 2^32 (too large for any part).
func legacyNumber(p string) (uint64, bool) {
	base := uint64(10)
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true // "0x" is 0 in the WHATWG standard
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	case p == "":
		return 0, false
	}
	var n uint64
	for i := 0; i < len(p); i++ {
		var d uint64
		switch c := p[i]; {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		if n = n*base + d; n > 1<<32 {
			n = 1 << 32
		}
	}
	return n, true
}
