package skills

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// maxDepth bounds the nesting of a frontmatter's collections.
const maxDepth = 32

// FrontmatterError is the error of ParseSkillMD: what is wrong with a
// SKILL.md's frontmatter, and on which line of the file, when known.
type FrontmatterError struct {
	// Line is the line of SKILL.md (from 1) the problem is on; 0 when it
	// is not on one line.
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error says what is wrong, and on which line of SKILL.md when known.
func (e *FrontmatterError) Error() string {
	if e.Line == 0 {
		return "SKILL.md frontmatter: " + e.Msg
	}
	return "SKILL.md frontmatter: line " + strconv.Itoa(e.Line) + ": " + e.Msg
}

// closing matches the line that ends the frontmatter.
var closing = regexp.MustCompile(`(?m)^---[\t ]*$`)

// SplitSkillMD splits the text of a SKILL.md into its YAML frontmatter and
// its Markdown body. The file must begin with a "---" line (after an
// optional byte order mark); the frontmatter ends at the next line that is
// "---" (trailing blanks allowed). CRLF line ends are read as LF.
func SplitSkillMD(text string) (yamlText, body string, err error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.TrimPrefix(text, "\uFEFF")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", "", &FrontmatterError{Line: 1, Msg: `SKILL.md must begin with a "---" line`}
	}
	loc := closing.FindStringIndex(rest)
	if loc == nil {
		return "", "", &FrontmatterError{Msg: `the frontmatter has no closing "---" line`}
	}
	body = rest[loc[1]:]
	body = strings.TrimPrefix(body, "\n")
	return rest[:loc[0]], body, nil
}

// ParseSkillMD reads a SKILL.md: its YAML frontmatter, as a JSON object that
// must have the string fields name and description, and its Markdown body.
// data must be UTF-8.
//
// The YAML is typed by the YAML 1.2 core schema, as the TypeScript SDK
// reads it, so that both sides render the same frontmatter as the same
// JSON: null, ~ and an empty value are null; true and false (also True,
// TRUE...) are booleans; decimal, 0o octal and 0x hexadecimal numbers are
// numbers; everything else, yes, no, on, off and dates included, is a
// string. A number that JSON cannot hold (.inf, .nan, 1e999) is an error,
// and so are anchors, aliases and tags, keys that are not strings,
// duplicate keys, and nesting deeper than 32 levels.
func ParseSkillMD(data []byte) (fm Frontmatter, body string, err error) {
	if !utf8.Valid(data) {
		return Frontmatter{}, "", &FrontmatterError{Msg: "SKILL.md is not valid UTF-8"}
	}
	y, body, err := SplitSkillMD(string(data))
	if err != nil {
		return Frontmatter{}, "", err
	}
	obj, err := parseFrontmatterYAML(y, 2)
	if err != nil {
		return Frontmatter{}, "", err
	}
	if err := wire.Unmarshal(obj, &fm); err != nil {
		return Frontmatter{}, "", &FrontmatterError{Msg: `must have the string fields "name" and "description": ` + err.Error()}
	}
	return fm, body, nil
}

// parseFrontmatterYAML renders the YAML text y, whose first line is line
// first of the file, as a JSON object.
func parseFrontmatterYAML(y string, first int) (jsontext.Value, error) {
	if strings.TrimSpace(y) == "" {
		return jsontext.Value(`{}`), nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(y), &doc); err != nil {
		return nil, &FrontmatterError{Msg: lineOffset(err.Error(), first-1)}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) != 1 {
			return jsontext.Value(`{}`), nil
		}
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &FrontmatterError{Line: root.Line + first - 1, Msg: "the frontmatter must be a mapping of keys to values"}
	}
	c := converter{first: first - 1, enc: wire.NewEncoder(nil)}
	if err := c.value(root, 0); err != nil {
		return nil, err
	}
	return c.enc.Bytes()
}

// yamlLine matches the line numbers in the YAML library's messages.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// lineOffset adds off to the line numbers of the YAML library's message
// msg, so that they count the lines of SKILL.md.
func lineOffset(msg string, off int) string {
	msg = strings.TrimPrefix(msg, "yaml: ")
	return yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(m[len("line "):])
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+off)
	})
}

// converter writes a YAML node tree as JSON.
type converter struct {
	first int // added to the nodes' lines
	enc   wire.Encoder
}

func (c *converter) fail(n *yaml.Node, format string, args ...any) error {
	return &FrontmatterError{Line: n.Line + c.first, Msg: fmt.Sprintf(format, args...)}
}

func (c *converter) value(n *yaml.Node, depth int) error {
	if depth > maxDepth {
		return c.fail(n, "nesting deeper than %d levels is not supported", maxDepth)
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return c.fail(n, "anchors and aliases are not supported")
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return c.fail(n, "tags (%s) are not supported", n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		c.enc.BeginObject()
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key, err := c.key(k)
			if err != nil {
				return err
			}
			if seen[key] {
				return c.fail(k, "duplicate key %q", key)
			}
			seen[key] = true
			c.enc.Key(key)
			if err := c.value(v, depth+1); err != nil {
				return err
			}
		}
		c.enc.EndObject()
	case yaml.SequenceNode:
		c.enc.BeginArray()
		for _, v := range n.Content {
			if err := c.value(v, depth+1); err != nil {
				return err
			}
		}
		c.enc.EndArray()
	case yaml.ScalarNode:
		if !plain(n) {
			c.enc.String(n.Value)
			return nil
		}
		v, err := resolvePlain(n.Value)
		if err != nil {
			return c.fail(n, "%v", err)
		}
		switch v := v.(type) {
		case nil:
			c.enc.Null()
		case bool:
			c.enc.Bool(v)
		case float64:
			c.enc.Float(v)
		case string:
			c.enc.String(v)
		}
	default:
		return c.fail(n, "unsupported YAML node")
	}
	if err := c.enc.Err(); err != nil {
		return c.fail(n, "%v", err)
	}
	return nil
}

// key returns the string a mapping key names.
func (c *converter) key(k *yaml.Node) (string, error) {
	if k.Kind == yaml.AliasNode || k.Anchor != "" {
		return "", c.fail(k, "anchors and aliases are not supported")
	}
	if k.Kind != yaml.ScalarNode {
		return "", c.fail(k, "complex keys are not supported")
	}
	if k.Style&yaml.TaggedStyle != 0 {
		return "", c.fail(k, "tags (%s) are not supported", k.Tag)
	}
	if plain(k) {
		v, err := resolvePlain(k.Value)
		if _, ok := v.(string); err != nil || !ok {
			return "", c.fail(k, "key %q must be a string; quote it", k.Value)
		}
	}
	return k.Value, nil
}

// plain reports whether the scalar n is plain (not quoted, not a block
// scalar).
func plain(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
}

// The plain scalars of the YAML 1.2 core schema, as the TypeScript SDK
// resolves them.
var (
	yamlNull     = regexp.MustCompile(`^(?:~|null|Null|NULL)$`)
	yamlTrue     = regexp.MustCompile(`^(?:true|True|TRUE)$`)
	yamlFalse    = regexp.MustCompile(`^(?:false|False|FALSE)$`)
	yamlInt      = regexp.MustCompile(`^[+-]?[0-9]+$`)
	yamlOctal    = regexp.MustCompile(`^0o[0-7]+$`)
	yamlHex      = regexp.MustCompile(`^0x[0-9A-Fa-f]+$`)
	yamlFloat    = regexp.MustCompile(`^[+-]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[Ee][+-]?[0-9]+)?$`)
	yamlSpecials = regexp.MustCompile(`^(?:[+-]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// resolvePlain types the text of a plain scalar: nil, a bool, a float64 (a
// number; never -0) or a string.
func resolvePlain(text string) (any, error) {
	switch {
	case text == "" || yamlNull.MatchString(text):
		return nil, nil
	case yamlTrue.MatchString(text):
		return true, nil
	case yamlFalse.MatchString(text):
		return false, nil
	case yamlSpecials.MatchString(text):
		return nil, fmt.Errorf("%q cannot be represented in JSON; quote it", text)
	}
	var f float64
	switch {
	case yamlInt.MatchString(text) || yamlFloat.MatchString(text):
		var err error
		if f, err = strconv.ParseFloat(text, 64); err != nil {
			return nil, fmt.Errorf("%q cannot be represented in JSON; quote it", text)
		}
	case yamlOctal.MatchString(text) || yamlHex.MatchString(text):
		base := 8
		if text[1] == 'x' {
			base = 16
		}
		n, ok := new(big.Int).SetString(text[2:], base)
		if !ok {
			return text, nil
		}
		f, _ = new(big.Float).SetInt(n).Float64()
	default:
		return text, nil
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("%q cannot be represented in JSON; quote it", text)
	}
	if f == 0 {
		f = 0 // JSON has no -0: JavaScript writes it 0
	}
	return f, nil
}

// jsonDifferences reports the differences between two JSON values a and b, at
// path: objects compare member by member in any order, arrays item by
// item, numbers by value, everything else exactly.
func jsonDifferences(a, b jsontext.Value, path string) []string {
	label := path
	if label == "" {
		label = "(frontmatter)"
	}
	show := func(v jsontext.Value) string {
		if len(v) == 0 {
			return "nothing"
		}
		c := v.Clone()
		if err := c.Compact(); err != nil {
			return string(v)
		}
		return string(c)
	}
	ka, kb := kind(a), kind(b)
	switch {
	case ka == '{' && kb == '{':
		ma, mb := map[string]jsontext.Value{}, map[string]jsontext.Value{}
		var keys []string
		for k, v := range members(a) {
			ma[k] = v
			keys = append(keys, k)
		}
		for k, v := range members(b) {
			if _, ok := ma[k]; !ok {
				keys = append(keys, k)
			}
			mb[k] = v
		}
		slices.Sort(keys)
		var diffs []string
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			diffs = append(diffs, jsonDifferences(ma[k], mb[k], p)...)
		}
		return diffs
	case ka == '[' && kb == '[':
		ia, ib := items(a), items(b)
		if len(ia) != len(ib) {
			return []string{fmt.Sprintf("%s: the entry has %d items, SKILL.md has %d", label, len(ia), len(ib))}
		}
		var diffs []string
		for i := range ia {
			diffs = append(diffs, jsonDifferences(ia[i], ib[i], path+"["+strconv.Itoa(i)+"]")...)
		}
		return diffs
	case ka == '0' && kb == '0':
		fa, errA := strconv.ParseFloat(string(a), 64)
		fb, errB := strconv.ParseFloat(string(b), 64)
		if errA == nil && errB == nil && fa == fb {
			return nil
		}
	case ka == '"' && kb == '"':
		sa, errA := jsontext.AppendUnquote(nil, a)
		sb, errB := jsontext.AppendUnquote(nil, b)
		if errA == nil && errB == nil && bytes.Equal(sa, sb) {
			return nil
		}
	case ka != 0 && ka == kb && ka != '{' && ka != '[':
		if bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) {
			return nil
		}
	}
	return []string{fmt.Sprintf("%s: the entry has %s, SKILL.md has %s", label, show(a), show(b))}
}

// kind is v's kind, with 't' for both booleans and 0 for none.
func kind(v jsontext.Value) jsontext.Kind {
	if len(v) == 0 {
		return 0
	}
	k := v.Kind()
	if k == 'f' {
		k = 't'
	}
	return k
}

// items returns the items of the valid JSON array arr.
func items(arr jsontext.Value) []jsontext.Value {
	d := jsontext.NewDecoder(bytes.NewReader(arr))
	if _, err := d.ReadToken(); err != nil {
		return nil
	}
	var out []jsontext.Value
	for d.PeekKind() != ']' && d.PeekKind() != 0 {
		v, err := d.ReadValue()
		if err != nil {
			return out
		}
		out = append(out, v.Clone())
	}
	return out
}
