package oauthmeta

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// MaxChallengeHeader is the length in bytes above which ParseChallenges
// refuses a header value.
const MaxChallengeHeader = 8 << 10

// Param is one auth-param of a challenge: a name (case-insensitive) and its
// value, unquoted.
type Param struct {
	Name, Value string
}

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110 section
// 11.6.1): an auth scheme and its parameters, in the order they came. A
// challenge in the token68 form keeps the token in Token68.
type Challenge struct {
	// Scheme is the auth scheme, such as "Bearer"; compare it with
	// strings.EqualFold.
	Scheme string
	// Params are the auth-params in order.
	Params []Param
	// Token68 is the token68 form's value, when the challenge has one
	// instead of Params.
	Token68 string
}

// Get returns the value of the first parameter named name, compared
// case-insensitively, and whether there was one.
func (c Challenge) Get(name string) (string, bool) {
	for _, p := range c.Params {
		if strings.EqualFold(p.Name, name) {
			return p.Value, true
		}
	}
	return "", false
}

// Bearer returns a Bearer challenge with the given parameters in order,
// leaving out those whose value is "". Typical names are realm, error,
// error_description, scope and resource_metadata.
func Bearer(params ...Param) Challenge {
	c := Challenge{Scheme: "Bearer"}
	for _, p := range params {
		if p.Value != "" {
			c.Params = append(c.Params, p)
		}
	}
	return c
}

// String writes the challenge as a WWW-Authenticate value: every parameter
// value as a quoted-string, with '"' and '\' escaped. What a header cannot
// carry is left out rather than sent: parameters whose name is not a token,
// and control characters (CR, LF and the rest but tab) in values. So a value
// that came from a request can never split or forge a header.
func (c Challenge) String() string {
	var b strings.Builder
	b.WriteString(c.Scheme)
	if c.Token68 != "" && len(c.Params) == 0 && isToken68(c.Token68) {
		b.WriteByte(' ')
		b.WriteString(c.Token68)
		return b.String()
	}
	first := true
	for _, p := range c.Params {
		if !isToken(p.Name) {
			continue
		}
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		b.WriteString(`="`)
		for i := 0; i < len(p.Value); i++ {
			ch := p.Value[i]
			switch {
			case ch == '"' || ch == '\\':
				b.WriteByte('\\')
				b.WriteByte(ch)
			case ch == '\t' || (ch >= 0x20 && ch != 0x7f):
				b.WriteByte(ch)
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}

// BearerChallenge returns the first Bearer challenge in the WWW-Authenticate
// headers of h, and whether there was one. Headers that do not parse are
// skipped.
func BearerChallenge(h http.Header) (Challenge, bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		cs, err := ParseChallenges(v)
		if err != nil {
			continue
		}
		for _, c := range cs {
			if strings.EqualFold(c.Scheme, "Bearer") {
				return c, true
			}
		}
	}
	return Challenge{}, false
}

// ParseChallenges parses one WWW-Authenticate header value, which may hold
// several challenges separated by commas (RFC 9110 section 11.6.1):
//
//	challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//	auth-param = token BWS "=" BWS ( token / quoted-string )
//
// Quoted values are unescaped. An error names the byte offset of what did
// not parse.
func ParseChallenges(header string) ([]Challenge, error) {
	if len(header) > MaxChallengeHeader {
		return nil, fmt.Errorf("WWW-Authenticate: value of %d bytes is longer than %d", len(header), MaxChallengeHeader)
	}
	p := &challengeParser{s: header}
	var out []Challenge
	for {
		p.skipListSeparators()
		if p.i >= len(p.s) {
			break
		}
		scheme := p.token()
		if scheme == "" {
			return nil, p.errorf("expected an auth scheme")
		}
		c := Challenge{Scheme: scheme}
		if sp := p.spaces(); sp > 0 && p.i < len(p.s) && p.s[p.i] != ',' {
			if err := p.body(&c); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
		if p.boundary {
			// params stopped at the next challenge's scheme.
			p.boundary = false
			continue
		}
		p.ows()
		if p.i < len(p.s) && p.s[p.i] != ',' {
			return nil, p.errorf("expected ',' after a challenge")
		}
	}
	if len(out) == 0 {
		return nil, errors.New("WWW-Authenticate: no challenge")
	}
	return out, nil
}

type challengeParser struct {
	s string
	i int
	// boundary is set when params stopped at the scheme of the next
	// challenge, past the comma that separated them.
	boundary bool
}

func (p *challengeParser) errorf(format string, args ...any) error {
	return fmt.Errorf("WWW-Authenticate: at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *challengeParser) skipListSeparators() {
	for p.i < len(p.s) && (p.s[p.i] == ',' || p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *challengeParser) spaces() int {
	n := 0
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
		n++
	}
	return n
}

func (p *challengeParser) ows() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *challengeParser) token() string {
	start := p.i
	for p.i < len(p.s) && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// body parses what follows a scheme: a token68, or auth-params up to the
// start of the next challenge.
func (p *challengeParser) body(c *Challenge) error {
	// token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
	// Tell it from an auth-param by what follows the leading token.
	start := p.i
	p.token()
	save := p.i
	p.ows()
	if p.i < len(p.s) && p.s[p.i] == '=' {
		// Either an auth-param or a token68 ending in '='.
		j := p.i
		for j < len(p.s) && p.s[j] == '=' {
			j++
		}
		k := j
		for k < len(p.s) && (p.s[k] == ' ' || p.s[k] == '\t') {
			k++
		}
		if j-p.i > 1 || k == len(p.s) || p.s[k] == ',' {
			if isToken68(p.s[start:j]) && save == p.i {
				c.Token68 = p.s[start:j]
				p.i = j
				return nil
			}
		}
		p.i = start
		return p.params(c)
	}
	p.i = start
	for p.i < len(p.s) && isToken68Char(p.s[p.i]) {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] == '=' {
		p.i++
	}
	if p.i == start {
		return p.errorf("expected a token68 or an auth-param")
	}
	c.Token68 = p.s[start:p.i]
	return nil
}

// params parses auth-params separated by commas, stopping before a list
// element that is not an auth-param (the next challenge's scheme).
func (p *challengeParser) params(c *Challenge) error {
	for {
		p.ows()
		start := p.i
		name := p.token()
		if name == "" {
			return p.errorf("expected a parameter name")
		}
		p.ows()
		if p.i >= len(p.s) || p.s[p.i] != '=' {
			p.i = start
			return p.errorf("expected '=' after parameter name %q", name)
		}
		p.i++
		p.ows()
		var val string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			v, err := p.quoted()
			if err != nil {
				return err
			}
			val = v
		} else {
			val = p.token()
			if val == "" {
				return p.errorf("expected a value for parameter %q", name)
			}
		}
		c.Params = append(c.Params, Param{Name: name, Value: val})
		p.ows()
		if p.i >= len(p.s) {
			return nil
		}
		if p.s[p.i] != ',' {
			return p.errorf("expected ',' after parameter %q", name)
		}
		// Skip the separator(s) and see whether a parameter follows.
		for p.i < len(p.s) && (p.s[p.i] == ',' || p.s[p.i] == ' ' || p.s[p.i] == '\t') {
			p.i++
		}
		if p.i >= len(p.s) {
			return nil
		}
		mark := p.i
		if p.token() == "" {
			p.i = mark
			return p.errorf("expected a parameter or a challenge")
		}
		p.ows()
		isParam := p.i < len(p.s) && p.s[p.i] == '='
		p.i = mark
		if !isParam {
			p.boundary = true
			return nil
		}
	}
}

func (p *challengeParser) quoted() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		switch {
		case ch == '"':
			p.i++
			return b.String(), nil
		case ch == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errorf("quoted-string ends inside an escape")
			}
			esc := p.s[p.i+1]
			if esc < 0x20 && esc != '\t' || esc == 0x7f {
				return "", p.errorf("control character in a quoted-string")
			}
			b.WriteByte(esc)
			p.i += 2
		case ch < 0x20 && ch != '\t' || ch == 0x7f:
			return "", p.errorf("control character in a quoted-string")
		default:
			b.WriteByte(ch)
			p.i++
		}
	}
	return "", p.errorf("quoted-string is not closed")
}

func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return true
}

func isToken68(s string) bool {
	i := 0
	for i < len(s) {
		c := s[i]
		if !isToken68Char(c) {
			break
		}
		i++
	}
	if i == 0 {
		return false
	}
	for i < len(s) && s[i] == '=' {
		i++
	}
	return i == len(s)
}

func isToken68Char(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0
}
