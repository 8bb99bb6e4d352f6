package emit

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ---- JSDoc links in schema descriptions.
//
// The schema's descriptions come from TypeScript JSDoc and keep its inline
// links: {@link X}, {@link X | text} and {@link X text}. The tool that
// wrote the schema drops the " | " of some, which glues the target to the
// text: {@link CallToolRequesttools/call}, {@link MetaObject`_meta` key
// naming rules}. A doc comment shows the text of a link, or its target.

// jsdocLink matches an inline link: {@link …}, {@linkcode …} or
// {@linkplain …}; group 1 is what follows the tag.
var jsdocLink = regexp.MustCompile(`\{@link(?:code|plain)?(?:\s+([^{}]*))?\}`)

// gluedMethod splits a request or notification type glued to its method
// name, such as CallToolRequesttools/call: a type name is CamelCase, so the
// first Request or Notification followed by a lowercase path is the joint.
var gluedMethod = regexp.MustCompile(`^([A-Z][A-Za-z0-9]*?(?:Request|Notification))([a-z][a-z_]*/\S*)$`)

// links rewrites the JSDoc inline links of text: a link with a text
// becomes its text; one without becomes its target, as a Go doc link
// [Name] when goName resolves the target to a Go type of the package (and
// the link stands as a word of its own), else as it is. goName may be nil.
func links(text string, goName func(schemaName string) (string, bool)) string {
	ms := jsdocLink.FindAllStringSubmatchIndex(text, -1)
	if ms == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(text[last:m[0]])
		last = m[1]
		body := ""
		if m[2] >= 0 {
			body = text[m[2]:m[3]]
		}
		target, shown := splitLink(body)
		if shown != "" {
			b.WriteString(shown)
			continue
		}
		if goName != nil && standsAlone(text, m[0], m[1]) {
			if n, ok := goName(target); ok {
				b.WriteString("[" + n + "]")
				continue
			}
		}
		b.WriteString(target)
	}
	b.WriteString(text[last:])
	return b.String()
}

// splitLink returns the target of a link's body and the text it shows, ""
// for none.
func splitLink(body string) (target, text string) {
	body = strings.TrimSpace(body)
	if i := strings.IndexByte(body, '|'); i >= 0 {
		target, text = strings.TrimSpace(body[:i]), strings.TrimSpace(body[i+1:])
	} else if i := strings.IndexFunc(body, unicode.IsSpace); i >= 0 {
		target, text = body[:i], strings.TrimSpace(body[i:])
	} else {
		target = body
	}
	// The text glued to the target: a method name, or what starts with a
	// character no name has (MetaObject`_meta`).
	glued := ""
	if m := gluedMethod.FindStringSubmatch(target); m != nil {
		target, glued = m[1], m[2]
	} else if i := strings.IndexFunc(target, func(r rune) bool { return !isNameRune(r) }); i > 0 {
		target, glued = target[:i], target[i:]
	}
	switch {
	case glued == "":
	case text == "":
		text = glued
	default:
		text = glued + " " + text
	}
	if target == "" {
		// {@link | text} or {@link}: nothing to link to.
		return text, ""
	}
	return target, text
}

// isNameRune reports whether r may be part of a link target: a name, or a
// dotted path into one (ClientCapabilities.sampling.context).
func isNameRune(r rune) bool {
	return r == '_' || r == '.' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// standsAlone reports whether text[i:j] is neither preceded nor followed by
// a letter or digit, as a Go doc link must be.
func standsAlone(text string, i, j int) bool {
	if r, _ := utf8.DecodeLastRuneInString(text[:i]); i > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(text[j:]); j < len(text) && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return false
	}
	return true
}

// goTypeName resolves a schema definition name to the Go type the package
// declares for it.
func (g *gen) goTypeName(schemaName string) (string, bool) {
	d := g.p.Rev.Lookup(schemaName)
	if d == nil || d.Anonymous {
		return "", false
	}
	n, ok := g.p.Names[d]
	return n, ok && n != ""
}

// desc is a schema description made ready for a doc comment.
func (g *gen) desc(text string) string { return links(text, g.goTypeName) }
