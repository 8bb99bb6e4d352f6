package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// revisions are the revisions the corpus must cover.
var revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// extensions are the extensions the corpus must cover, each with the core
// revision it is bound to. An extension's corpus holds values of its own
// definitions only: those it repeats from the core revision are the core
// corpus's.
var extensions = map[string]string{
	"ext-tasks": "2026-07-28",
}

// corpora are the revisions and the extensions, each a corpus directory.
func corpora() []string {
	return append(slices.Clone(revisions), sortedKeys(extensions)...)
}

// emptyResultRequests answer with EmptyResult instead of <X>Result.
var emptyResultRequests = map[string]bool{
	"PingRequest":        true,
	"SubscribeRequest":   true,
	"UnsubscribeRequest": true,
	"SetLevelRequest":    true,
}

// ---------------------------------------------------------------------------
// Schema access.

// revSchema is one revision's official schema.json, or one extension's
// schema, parsed and compiled.
type revSchema struct {
	rev     string
	path    string
	url     string
	doc     map[string]any
	defsKey string // "definitions" or "$defs"
	defs    map[string]any

	// own, for an extension, are the definitions the core revision does not
	// define; nil for a revision.
	own map[string]bool
	// unions maps each named union definition to its members' definition
	// names, in schema order. For an extension, a definition whose anyOf is
	// an allOf branch (GetTaskResult: allOf [Result, anyOf [...], ...]) is a
	// union too, listed in nested.
	unions map[string][]string
	nested map[string]bool
	// requests and notifications map a member definition of
	// ClientRequest/ServerRequest (ClientNotification/ServerNotification) to
	// its method.
	requests      map[string]string
	notifications map[string]string
	// embedded maps a member definition of InputRequest (2026-07-28) to its
	// method: a request that is never a JSON-RPC message but travels, bare
	// ({"method", "params"}), inside InputRequiredResult.inputRequests.
	embedded map[string]string

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*revSchema{}
)

// repoRoot walks up from the package directory to the directory holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the repository root (no go.mod above the package directory)")
		}
		dir = parent
	}
}

// schemaPath locates the official schema.json of rev: the repository's
// materialized copy, or $MCPGEN_SCHEMA_MIRROR's (see schematest).
func schemaPath(t *testing.T, rev string) string {
	t.Helper()
	return schematest.File(t, rev)
}

// checkPin compares the schema file with schema/<rev>/pin.json, where present.
func checkPin(t *testing.T, rev, path string, data []byte) {
	t.Helper()
	pinData, err := os.ReadFile(filepath.Join(repoRoot(t), "schema", rev, "pin.json"))
	if err != nil {
		return
	}
	var pin struct {
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal(pinData, &pin); err != nil || pin.SHA256 == "" {
		return
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != pin.SHA256 {
		t.Fatalf("%s: sha256 %s does not match schema/%s/pin.json (%s); run `go run ./cmd/mcpgen schema`", path, got, rev, pin.SHA256)
	}
}

// loadSchema returns the schema of the revision or extension rev.
func loadSchema(t *testing.T, rev string) *revSchema {
	t.Helper()
	var core *revSchema
	if c, ok := extensions[rev]; ok {
		core = loadSchema(t, c)
	}
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[rev]; ok {
		return s
	}
	var path string
	if core != nil {
		path = schematest.Extension(t, rev)
	} else {
		path = schemaPath(t, rev)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if core == nil {
		checkPin(t, rev, path, data)
	}
	doc, err := parseJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &revSchema{
		rev:           rev,
		path:          abs,
		url:           "file://" + filepath.ToSlash(abs),
		doc:           doc.(map[string]any),
		unions:        map[string][]string{},
		nested:        map[string]bool{},
		requests:      map[string]string{},
		notifications: map[string]string{},
		embedded:      map[string]string{},
		compiled:      map[string]*jsonschema.Schema{},
	}
	for _, k := range []string{"$defs", "definitions"} {
		if d, ok := s.doc[k].(map[string]any); ok {
			s.defsKey, s.defs = k, d
			break
		}
	}
	if s.defs == nil {
		t.Fatalf("%s: no definitions", path)
	}
	s.compiler = jsonschema.NewCompiler()
	s.compiler.AssertFormat = true
	if err := s.compiler.AddResource(s.url, bytes.NewReader(data)); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if core != nil {
		s.extension(t, core)
		schemaCache[rev] = s
		return s
	}

	for _, name := range sortedKeys(s.defs) {
		def := s.defs[name].(map[string]any)
		members, ok := def["anyOf"].([]any)
		if !ok {
			continue
		}
		for i, m := range members {
			mn := s.memberName(m)
			if mn == "" {
				// An inline member with no definition of its own (2026-07-28's
				// JSONValue: {"type": ["string", "integer", "boolean"]}) is
				// named by its place.
				mn = fmt.Sprintf("anyOf/%d", i)
			}
			s.unions[name] = append(s.unions[name], mn)
		}
	}
	// The message unions. 2026-07-28 has no ServerRequest (the server sends
	// no requests: its questions are embedded in results), and its
	// ClientNotification is no union but the one notification a client
	// sends, notifications/cancelled, spelled out.
	for _, u := range []struct {
		union    string
		into     map[string]string
		optional bool
	}{
		{"ClientRequest", s.requests, false},
		{"ServerRequest", s.requests, rev >= "2026-07-28"},
		{"ClientNotification", s.notifications, false},
		{"ServerNotification", s.notifications, false},
		{"InputRequest", s.embedded, rev < "2026-07-28"},
	} {
		members, ok := s.unions[u.union]
		if !ok {
			if _, single := s.methodConst(u.union); single {
				members, ok = []string{u.union}, true
			}
		}
		switch {
		case !ok && u.optional:
			continue
		case !ok:
			t.Fatalf("%s: no %s union", rev, u.union)
		}
		for _, m := range members {
			method, ok := s.methodConst(m)
			if !ok {
				t.Fatalf("%s: %s member %s has no properties.method.const", rev, u.union, m)
			}
			u.into[m] = method
		}
	}
	schemaCache[rev] = s
	return s
}

// extension fills the unions and messages of an extension's schema, bound
// to the core revision core: its own definitions' unions (a top-level anyOf,
// or an anyOf as an allOf branch), its requests (allOf a JSONRPCRequest and
// an object with a method const) and its notifications (likewise, of a
// JSONRPCNotification). Its members are named as the core's are: by the
// definition an inline member copies, else by their place.
func (s *revSchema) extension(t *testing.T, core *revSchema) {
	t.Helper()
	s.own = map[string]bool{}
	for _, name := range sortedKeys(s.defs) {
		if _, ok := core.defs[name]; !ok {
			s.own[name] = true
		}
	}
	if len(s.own) == 0 {
		t.Fatalf("%s: the extension defines nothing %s does not", s.rev, core.rev)
	}
	for _, name := range sortedKeys(s.own) {
		def := s.defs[name].(map[string]any)
		members, nested := s.unionMembers(def)
		for i, m := range members {
			mn := s.memberName(m)
			if mn == "" {
				mn = fmt.Sprintf("anyOf/%d", i)
			}
			s.unions[name] = append(s.unions[name], mn)
			s.nested[name] = nested
		}
		method, ok := s.methodConst(name)
		if !ok {
			continue
		}
		subs, _ := def["allOf"].([]any)
		for _, sub := range subs {
			switch s.ref(sub) {
			case "JSONRPCRequest":
				s.requests[name] = method
			case "JSONRPCNotification":
				s.notifications[name] = method
			}
		}
		if s.requests[name] == "" && s.notifications[name] == "" {
			t.Fatalf("%s: %s has a method const but is neither a JSONRPCRequest nor a JSONRPCNotification", s.rev, name)
		}
	}
}

// unionMembers returns the members of the union a definition is: those of
// its anyOf, or, for an extension, of the anyOf that is one of its allOf
// branches (nested), if any.
func (s *revSchema) unionMembers(def map[string]any) (members []any, nested bool) {
	if members, ok := def["anyOf"].([]any); ok {
		return members, false
	}
	if s.own == nil {
		return nil, false
	}
	subs, _ := def["allOf"].([]any)
	for _, sub := range subs {
		m, _ := sub.(map[string]any)
		if members, ok := m["anyOf"].([]any); ok {
			return members, true
		}
	}
	return nil, false
}

// ref returns the definition name a "$ref" points at, or "".
func (s *revSchema) ref(node any) string {
	m, ok := node.(map[string]any)
	if !ok {
		return ""
	}
	r, ok := m["$ref"].(string)
	if !ok {
		return ""
	}
	return strings.TrimPrefix(r, "#/"+s.defsKey+"/")
}

// memberName names a union member: the target of its $ref, or else the one
// named definition that is structurally equal to it (ignoring descriptions,
// and the $schema an extension's definitions repeat).
func (s *revSchema) memberName(m any) string {
	if r := s.ref(m); r != "" {
		return r
	}
	want := stripDescriptions(m)
	for _, name := range sortedKeys(s.defs) {
		if cmp.Equal(want, stripDescriptions(s.defs[name])) {
			return name
		}
	}
	return ""
}

func stripDescriptions(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if _, isText := x.(string); (k == "description" || k == "$schema") && isText {
				continue
			}
			out[k] = stripDescriptions(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = stripDescriptions(x)
		}
		return out
	}
	return v
}

// methodConst returns properties.method.const of a definition, or of one
// of its allOf branches (an extension's messages are allOf a JSON-RPC
// message and an object with the method).
func (s *revSchema) methodConst(def string) (string, bool) {
	d, _ := s.defs[def].(map[string]any)
	nodes := []any{d}
	if subs, ok := d["allOf"].([]any); ok {
		nodes = append(nodes, subs...)
	}
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		method, _ := props["method"].(map[string]any)
		if c, ok := method["const"].(string); ok {
			return c, true
		}
	}
	return "", false
}

// resolve follows $ref and returns the schema node and its pointer.
func (s *revSchema) resolve(node any, loc string) (map[string]any, string) {
	for i := 0; i < 32; i++ {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, loc
		}
		r := s.ref(m)
		if r == "" {
			return m, loc
		}
		node, loc = s.defs[r], "/"+s.defsKey+"/"+r
	}
	return nil, loc
}

// defPtr is the schema pointer of a definition.
func (s *revSchema) defPtr(def string) string { return "/" + s.defsKey + "/" + def }

// schemaAt compiles the subschema at the JSON pointer loc of schema.json.
func (s *revSchema) schemaAt(t *testing.T, loc string) *jsonschema.Schema {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[loc]; ok {
		return sch
	}
	sch, err := s.compiler.Compile(s.url + "#" + loc)
	if err != nil {
		t.Fatalf("%s: compile #%s: %v", s.rev, loc, err)
	}
	s.compiled[loc] = sch
	return sch
}

// validate validates v against the definition def.
func (s *revSchema) validate(t *testing.T, def string, v any) error {
	t.Helper()
	return s.schemaAt(t, s.defPtr(def)).Validate(v)
}

// variantNode returns the schema node of the member variant of the union
// def, as the union spells it (a $ref, or inline), and its pointer.
func (s *revSchema) variantNode(def, variant string) (any, string) {
	d, _ := s.defs[def].(map[string]any)
	members, _ := d["anyOf"].([]any)
	loc := s.defPtr(def)
	if s.nested[def] {
		subs, _ := d["allOf"].([]any)
		for i, sub := range subs {
			m, _ := sub.(map[string]any)
			if ms, ok := m["anyOf"].([]any); ok {
				members, loc = ms, fmt.Sprintf("%s/allOf/%d", loc, i)
				break
			}
		}
	}
	for i, name := range s.unions[def] {
		if name == variant && i < len(members) {
			return members[i], fmt.Sprintf("%s/anyOf/%d", loc, i)
		}
	}
	return nil, s.defPtr(def)
}

// validateVariant validates v against the member variant of the union def:
// a definition, or an inline member named by its place ("anyOf/2").
func (s *revSchema) validateVariant(t *testing.T, def, variant string, v any) error {
	t.Helper()
	if strings.HasPrefix(variant, "anyOf/") {
		return s.schemaAt(t, s.defPtr(def)+"/"+variant).Validate(v)
	}
	return s.validate(t, variant, v)
}

// ---------------------------------------------------------------------------
// JSON helpers.

// parseJSON decodes exactly one JSON value, keeping numbers as json.Number.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// jsonType is the JSON Schema type of v ("integer" for integral numbers).
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		f, ok := new(big.Float).SetString(v.String())
		if ok && f.IsInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// lookup resolves an RFC 6901 pointer in v.
func lookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := v.(type) {
		case map[string]any:
			x, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != tok {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func escapeToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// firstDuplicateKey walks the tokens of text and returns the pointer of the
// first object member whose key already occurred in the same object.
func firstDuplicateKey(text string) (ptr string, found bool, err error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	ptr, found, err = dupWalk(dec, "")
	if err != nil || found {
		return ptr, found, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false, errors.New("trailing data after the JSON value")
	}
	return "", false, nil
}

// dupWalk reads one value whose pointer is path.
func dupWalk(dec *json.Decoder, path string) (string, bool, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", false, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return "", false, nil
	}
	switch d {
	case '{':
		keys := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return "", false, err
			}
			key := tok.(string)
			member := path + "/" + escapeToken(key)
			if keys[key] {
				return member, true, nil
			}
			keys[key] = true
			if p, found, err := dupWalk(dec, member); err != nil || found {
				return p, found, err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if p, found, err := dupWalk(dec, path+"/"+strconv.Itoa(i)); err != nil || found {
				return p, found, err
			}
		}
	default:
		return "", false, fmt.Errorf("unexpected %v", d)
	}
	_, err = dec.Token() // the closing delimiter
	return "", false, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// leafLocations returns the instance locations of the innermost errors.
func leafLocations(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, e.InstanceLocation)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// ---------------------------------------------------------------------------
// Tests.

func TestDir(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "../corpus", "1999-01-01"} {
		if dir, err := Dir(bad); err == nil {
			t.Errorf("Dir(%q) = %q, want an error", bad, dir)
		}
	}
	revs, err := Revisions()
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range revisions {
		dir, err := Dir(rev)
		if err != nil {
			t.Fatalf("Dir(%q): %v", rev, err)
		}
		if filepath.Base(dir) != rev {
			t.Errorf("Dir(%q) = %q", rev, dir)
		}
		found := false
		for _, r := range revs {
			found = found || r == rev
		}
		if !found {
			t.Errorf("Revisions() = %v, missing %s", revs, rev)
		}
	}
	// An extension has a directory of its own, which is no revision.
	for ext := range extensions {
		if dir, err := Dir(ext); err != nil || filepath.Base(dir) != ext {
			t.Errorf("Dir(%q) = %q, %v", ext, dir, err)
		}
		if slices.Contains(revs, ext) {
			t.Errorf("Revisions() = %v lists the extension %s", revs, ext)
		}
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadValid(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b.json":     `[{"name":"b1","def":"PingRequest","json":{"jsonrpc":"2.0","id":1,"method":"ping"}}]`,
		"a.json":     `[{"name":"a1","def":"ContentBlock","variant":"TextContent","json":{"type":"text","text":"hi"}},{"name":"a2","def":"Result","json":{}}]`,
		"notes.txt":  `not a corpus file`,
		"empty.json": `[]`,
	})
	got, err := readValid(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Case{
		{Name: "a1", Def: "ContentBlock", Variant: "TextContent", JSON: json.RawMessage(`{"type":"text","text":"hi"}`), File: "a.json"},
		{Name: "a2", Def: "Result", JSON: json.RawMessage(`{}`), File: "a.json"},
		{Name: "b1", Def: "PingRequest", JSON: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), File: "b.json"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("readValid (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{"malformed", map[string]string{"x.json": `[{"name":"a","def":"D","json":1},`}, []string{"x.json"}},
		{"not an array", map[string]string{"x.json": `{"name":"a"}`}, []string{"x.json"}},
		{"null", map[string]string{"x.json": `null`}, []string{"x.json", "not a JSON array"}},
		{"trailing data", map[string]string{"x.json": `[] []`}, []string{"x.json", "trailing"}},
		{"missing def", map[string]string{"x.json": `[{"name":"a","def":"D","json":1},{"name":"b","json":1}]`}, []string{"x.json", "case 1", `"def"`}},
		{"missing json", map[string]string{"x.json": `[{"name":"a","def":"D"}]`}, []string{"x.json", "case 0", `"json"`}},
		{"unknown member", map[string]string{"x.json": `[{"name":"a","def":"D","json":1,"varient":"V"}]`}, []string{"x.json", "case 0", "varient"}},
		{"duplicate name", map[string]string{
			"x.json": `[{"name":"a","def":"D","json":1}]`,
			"y.json": `[{"name":"b","def":"D","json":1},{"name":"a","def":"E","json":2}]`,
		}, []string{"y.json", "case 1", "duplicate", "x.json"}},
		{"no files", map[string]string{"x.txt": `[]`}, []string{"no *.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readValid(writeFiles(t, tc.files))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestReadInvalid(t *testing.T) {
	good := `{"name":"a","def":"CallToolRequest","kind":"wrong-type","text":"{}","pointer":"/params","contains":"want object"}`
	beyond := `{"name":"b","def":"CallToolResultResponse","kind":"wrong-discriminator","text":"{}","pointer":"/result/resultType","contains":"unknown","beyondSchema":"why"}`
	got, err := readInvalid(writeFiles(t, map[string]string{"x.json": "[" + good + "," + beyond + "]"}))
	if err != nil {
		t.Fatal(err)
	}
	want := []Invalid{
		{Name: "a", Def: "CallToolRequest", Kind: KindWrongType, Text: "{}", Pointer: "/params", Contains: "want object", File: "x.json"},
		{Name: "b", Def: "CallToolResultResponse", Kind: KindWrongDiscriminator, Text: "{}", Pointer: "/result/resultType", Contains: "unknown", BeyondSchema: "why", File: "x.json"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("readInvalid (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"unknown kind", `[` + strings.Replace(good, "wrong-type", "wrong-shape", 1) + `]`, []string{"x.json", "case 0", "wrong-shape"}},
		{"bad pointer", `[` + strings.Replace(good, `"/params"`, `"params"`, 1) + `]`, []string{"x.json", "case 0", "pointer"}},
		{"missing text", `[` + strings.Replace(good, `"text":"{}",`, "", 1) + `]`, []string{"x.json", "case 0", `"text"`}},
		{"duplicate name", `[` + good + `,` + good + `]`, []string{"x.json", "case 1", "duplicate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readInvalid(writeFiles(t, map[string]string{"x.json": tc.text}))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestFirstDuplicateKey(t *testing.T) {
	for _, tc := range []struct {
		text  string
		ptr   string
		found bool
	}{
		{`{"a":1,"b":2}`, "", false},
		{`{"a":1,"a":2}`, "/a", true},
		{`{"a":{"b":1},"c":[{"d":1},{"d":2,"e":3,"d":4}]}`, "/c/1/d", true},
		{`[{"x/y":1,"x/y":2}]`, "/0/x~1y", true},
		{`{"a":{"k":1},"b":{"k":1}}`, "", false},
		{`"str"`, "", false},
	} {
		ptr, found, err := firstDuplicateKey(tc.text)
		if err != nil || ptr != tc.ptr || found != tc.found {
			t.Errorf("firstDuplicateKey(%s) = %q, %v, %v; want %q, %v", tc.text, ptr, found, err, tc.ptr, tc.found)
		}
	}
}

// messageKind reports whether def is a request or a notification definition
// (a member of a request or notification union).
func (s *revSchema) messageKind(def string) (request, notification bool) {
	_, request = s.requests[def]
	_, notification = s.notifications[def]
	return
}

// checkEnvelope checks that v is a complete JSON-RPC request (or
// notification) message of definition def, or, for an embedded request, a
// bare one: its method and params, no envelope.
func (s *revSchema) checkEnvelope(def string, v any) error {
	if method, ok := s.embedded[def]; ok {
		obj, ok := v.(map[string]any)
		if !ok {
			return errors.New("an embedded request must be an object")
		}
		for _, k := range []string{"jsonrpc", "id"} {
			if _, has := obj[k]; has {
				return fmt.Errorf("%s is an embedded request, never a JSON-RPC message: it has no %q", def, k)
			}
		}
		if obj["method"] != method {
			return fmt.Errorf(`"method" = %v, want %q`, obj["method"], method)
		}
		return nil
	}
	request, notification := s.messageKind(def)
	if !request && !notification {
		if _, ok := s.methodConst(def); ok {
			return fmt.Errorf("%s has a method const but is in no request or notification union", def)
		}
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return errors.New("a message must be an object")
	}
	if obj["jsonrpc"] != "2.0" {
		return fmt.Errorf(`"jsonrpc" = %v, want "2.0"`, obj["jsonrpc"])
	}
	id, hasID := obj["id"]
	switch {
	case request && !hasID:
		return errors.New(`a request message needs an "id"`)
	case request && jsonType(id) != "string" && jsonType(id) != "integer":
		return fmt.Errorf(`"id" = %v, want a string or an integer`, id)
	case notification && hasID:
		return errors.New(`a notification message has no "id"`)
	}
	want, _ := s.methodConst(def)
	if obj["method"] != want {
		return fmt.Errorf(`"method" = %v, want %q`, obj["method"], want)
	}
	return nil
}

func TestValidCases(t *testing.T) {
	for _, rev := range corpora() {
		t.Run(rev, func(t *testing.T) {
			s := loadSchema(t, rev)
			cases, err := Valid(rev)
			if err != nil {
				t.Fatal(err)
			}
			if len(cases) == 0 {
				t.Fatal("no valid cases")
			}
			for _, c := range cases {
				where := fmt.Sprintf("%s: %s", c.File, c.Name)
				if _, ok := s.defs[c.Def]; !ok {
					t.Errorf("%s: no definition %q in %s", where, c.Def, rev)
					continue
				}
				if s.own != nil && !s.own[c.Def] {
					t.Errorf("%s: %s is a definition of the core revision %s: its cases are the core corpus's", where, c.Def, extensions[rev])
					continue
				}
				if p, dup, err := firstDuplicateKey(string(c.JSON)); err != nil || dup {
					t.Errorf("%s: duplicate key at %q (%v)", where, p, err)
				}
				v, err := parseJSON(c.JSON)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if err := s.validate(t, c.Def, v); err != nil {
					t.Errorf("%s: not valid against %s: %#v", where, c.Def, err)
				}
				members, isUnion := s.unions[c.Def]
				msgDef := c.Def
				switch {
				case isUnion && c.Variant == "":
					t.Errorf("%s: %s is a union: set variant to one of %v", where, c.Def, members)
				case isUnion:
					found := false
					for _, m := range members {
						found = found || m == c.Variant
					}
					if !found {
						t.Errorf("%s: variant %s is not a member of %s %v", where, c.Variant, c.Def, members)
						continue
					}
					if err := s.validateVariant(t, c.Def, c.Variant, v); err != nil {
						t.Errorf("%s: not valid against variant %s: %#v", where, c.Variant, err)
					}
					msgDef = c.Variant
				case c.Variant != "":
					t.Errorf("%s: variant %q set but %s is not a union", where, c.Variant, c.Def)
				}
				if err := s.checkEnvelope(msgDef, v); err != nil {
					t.Errorf("%s: %v", where, err)
				}
			}
		})
	}
}

var (
	missingRE   = regexp.MustCompile(`^missing required field "([^"]+)"$`)
	wrongTypeRE = regexp.MustCompile(`^want (string|integer|number|boolean|object|array)$`)
	assertionRE = regexp.MustCompile(`^\((minLength|maxLength|pattern|minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf|minItems|maxItems|uniqueItems|minProperties|maxProperties)\)$`)
)

func TestInvalidCases(t *testing.T) {
	for _, rev := range corpora() {
		t.Run(rev, func(t *testing.T) {
			s := loadSchema(t, rev)
			cases, err := InvalidCases(rev)
			if err != nil {
				t.Fatal(err)
			}
			type spread struct{ total, message, result, union int }
			perKind := map[string]*spread{}
			for _, k := range Kinds {
				perKind[k] = &spread{}
			}
			for _, c := range cases {
				where := fmt.Sprintf("%s: %s", c.File, c.Name)
				if _, ok := s.defs[c.Def]; !ok {
					t.Errorf("%s: no definition %q in %s", where, c.Def, rev)
					continue
				}
				if s.own != nil && !s.own[c.Def] {
					t.Errorf("%s: %s is a definition of the core revision %s: its cases are the core corpus's", where, c.Def, extensions[rev])
					continue
				}
				sp := perKind[c.Kind]
				sp.total++
				_, isUnion := s.unions[c.Def]
				req, notif := s.messageKind(c.Def)
				switch {
				case isUnion:
					sp.union++
				case req || notif:
					sp.message++
				case strings.HasSuffix(c.Def, "Result"):
					sp.result++
				}
				if c.Pointer == "/jsonrpc" || c.Pointer == "/id" {
					t.Errorf("%s: pointer %q is an envelope field", where, c.Pointer)
				}

				dupPtr, dup, err := firstDuplicateKey(c.Text)
				if err != nil {
					t.Errorf("%s: text is not JSON: %v", where, err)
					continue
				}
				v, err := parseJSON([]byte(c.Text))
				if err != nil {
					t.Errorf("%s: text is not JSON: %v", where, err)
					continue
				}
				if req || notif {
					if err := s.checkEnvelope(c.Def, v); err != nil {
						t.Errorf("%s: envelope: %v", where, err)
					}
				}
				if c.Kind == KindDuplicateKey {
					if c.Contains != "duplicate" {
						t.Errorf("%s: contains = %q, want %q", where, c.Contains, "duplicate")
					}
					if !dup {
						t.Errorf("%s: text has no duplicate key", where)
						continue
					}
					if dupPtr != c.Pointer {
						t.Errorf("%s: second occurrence of the duplicate key is at %q, pointer says %q", where, dupPtr, c.Pointer)
					}
					// The duplicate must be the only defect.
					if err := s.validate(t, c.Def, v); err != nil {
						t.Errorf("%s: apart from the duplicate key, text is not valid against %s: %#v", where, c.Def, err)
					}
					continue
				}
				if dup {
					t.Errorf("%s: unexpected duplicate key at %q", where, dupPtr)
				}
				verr := s.validate(t, c.Def, v)
				switch {
				case c.BeyondSchema != "" && verr != nil:
					t.Errorf("%s: says the schema accepts it (%s), but it does not: %#v", where, c.BeyondSchema, verr)
				case c.BeyondSchema != "":
				case verr == nil:
					t.Errorf("%s: text is valid against %s, want it rejected", where, c.Def)
					continue
				default:
					leaves := leafLocations(verr)
					found := false
					for _, l := range leaves {
						found = found || l == c.Pointer
					}
					if !found {
						t.Errorf("%s: schema errors are at %q, none at pointer %q: %#v", where, leaves, c.Pointer, verr)
					}
				}
				at, ok := lookup(v, c.Pointer)
				if !ok {
					t.Errorf("%s: pointer %q does not exist in the text", where, c.Pointer)
					continue
				}
				switch c.Kind {
				case KindMissingRequired, KindWrongCaseKey:
					m := missingRE.FindStringSubmatch(c.Contains)
					if m == nil {
						t.Errorf("%s: contains = %q, want `missing required field \"<name>\"`", where, c.Contains)
						continue
					}
					obj, ok := at.(map[string]any)
					if !ok {
						t.Errorf("%s: %q is not an object", where, c.Pointer)
						continue
					}
					if _, present := obj[m[1]]; present {
						t.Errorf("%s: %q has %q", where, c.Pointer, m[1])
					}
					if c.Kind == KindWrongCaseKey {
						wrong := false
						for k := range obj {
							wrong = wrong || (k != m[1] && strings.EqualFold(k, m[1]))
						}
						if !wrong {
							t.Errorf("%s: %q has no key spelled like %q in another case", where, c.Pointer, m[1])
						}
					}
				case KindWrongDiscriminator:
					if c.Contains != "unknown" {
						t.Errorf("%s: contains = %q, want %q", where, c.Contains, "unknown")
					}
					if _, ok := at.(string); !ok {
						t.Errorf("%s: discriminator %q is not a string", where, c.Pointer)
					}
				case KindWrongType:
					m := wrongTypeRE.FindStringSubmatch(c.Contains)
					if m == nil {
						t.Errorf("%s: contains = %q, want \"want <type>\"", where, c.Contains)
						continue
					}
					got := jsonType(at)
					if got == m[1] || (m[1] == "number" && got == "integer") {
						t.Errorf("%s: value at %q is a %s, which is the wanted type", where, c.Pointer, got)
					}
				case KindBadEnum:
					if c.Contains != "want one of" {
						t.Errorf("%s: contains = %q, want %q", where, c.Contains, "want one of")
					}
					if _, ok := at.(string); !ok {
						t.Errorf("%s: value at %q is not a string", where, c.Pointer)
					}
				case KindBadConst:
					if _, err := parseJSON([]byte(c.Contains)); err != nil {
						t.Errorf("%s: contains = %q, want the expected constant as JSON text", where, c.Contains)
					}
				case KindAssertion:
					m := assertionRE.FindStringSubmatch(c.Contains)
					if m == nil {
						t.Errorf("%s: contains = %q, want an assertion keyword in parentheses, such as \"(maxItems)\"", where, c.Contains)
						continue
					}
					if !s.hasKeyword(m[1]) {
						t.Errorf("%s: the %s schema has no keyword %s", where, rev, m[1])
					}
				case KindUnknownMember:
					if c.Contains != "unknown member" {
						t.Errorf("%s: contains = %q, want %q", where, c.Contains, "unknown member")
					}
					parent, _ := lookup(v, c.Pointer[:strings.LastIndex(c.Pointer, "/")])
					if _, ok := parent.(map[string]any); !ok || c.Pointer == "" {
						t.Errorf("%s: %q is not a member of an object", where, c.Pointer)
					}
				}
			}
			for _, k := range Kinds {
				sp := perKind[k]
				if s.own != nil {
					// An extension's schema is small: one case of each
					// kind, anywhere.
					if sp.total == 0 {
						t.Errorf("kind %s: no case", k)
					}
					continue
				}
				// Consts, assertions and closed objects are few in the
				// schemas: not every revision has five of each.
				if k == KindBadConst || k == KindAssertion || k == KindUnknownMember {
					continue
				}
				if sp.total < 5 {
					t.Errorf("kind %s: %d cases, want at least 5", k, sp.total)
				}
				if sp.message == 0 || sp.result == 0 || sp.union == 0 {
					t.Errorf("kind %s: %d on messages, %d on results, %d on unions; want some of each", k, sp.message, sp.result, sp.union)
				}
			}
		})
	}
}

func TestCoverage(t *testing.T) {
	for _, rev := range corpora() {
		t.Run(rev, func(t *testing.T) {
			s := loadSchema(t, rev)
			cases, err := Valid(rev)
			if err != nil {
				t.Fatal(err)
			}
			byDef := map[string][]Case{}
			variants := map[string]bool{} // "Union|Member"
			for _, c := range cases {
				byDef[c.Def] = append(byDef[c.Def], c)
				if c.Variant != "" {
					byDef[c.Variant] = append(byDef[c.Variant], c)
					variants[c.Def+"|"+c.Variant] = true
				}
			}

			var missing []string
			for _, def := range sortedKeys(s.embedded) {
				if len(byDef[def]) == 0 {
					missing = append(missing, fmt.Sprintf("embedded request %s (%s)", s.embedded[def], def))
				}
				result := strings.TrimSuffix(def, "Request") + "Result"
				if _, ok := s.defs[result]; !ok {
					t.Errorf("%s: no result definition %s for %s", rev, result, def)
				} else if len(byDef[result]) == 0 {
					missing = append(missing, fmt.Sprintf("result %s of %s", result, s.embedded[def]))
				}
			}
			// 2026-07-28 spells each method's response (its result, or the
			// union of results it may be, in the envelope) and each named
			// error as a definition of its own.
			for _, def := range sortedKeys(s.defs) {
				if s.own != nil && !s.own[def] {
					continue
				}
				if s.responseDef(def) && len(byDef[def]) == 0 {
					missing = append(missing, "response "+def)
				}
				if s.errorCode(def) != "" && len(byDef[def]) == 0 {
					missing = append(missing, fmt.Sprintf("error %s (%s)", def, s.errorCode(def)))
				}
			}
			for _, def := range sortedKeys(s.notifications) {
				if len(byDef[def]) == 0 {
					missing = append(missing, fmt.Sprintf("notification %s (%s)", s.notifications[def], def))
				}
			}
			for _, def := range sortedKeys(s.requests) {
				method := s.requests[def]
				if len(byDef[def]) == 0 {
					missing = append(missing, fmt.Sprintf("request %s (%s)", method, def))
				}
				result := strings.TrimSuffix(def, "Request") + "Result"
				if emptyResultRequests[def] {
					result = "EmptyResult"
				}
				if _, ok := s.defs[result]; !ok {
					t.Errorf("%s: no result definition %s for %s", rev, result, def)
				} else if len(byDef[result]) == 0 {
					missing = append(missing, fmt.Sprintf("result %s of %s", result, method))
				}
				if s.taskAugmentable(def) {
					found := false
					for _, c := range byDef["CreateTaskResult"] {
						found = found || strings.Contains(c.Name, method)
					}
					if !found {
						missing = append(missing, fmt.Sprintf("CreateTaskResult case naming %s", method))
					}
				}
			}
			for _, u := range sortedKeys(s.unions) {
				for _, m := range s.unions[u] {
					if !variants[u+"|"+m] {
						missing = append(missing, fmt.Sprintf("union %s member %s", u, m))
					}
				}
			}
			// Every definition of an extension's own has a case.
			for _, def := range sortedKeys(s.own) {
				if len(byDef[def]) == 0 {
					missing = append(missing, "definition "+def)
				}
			}

			// Every branch of every anonymous (inline) union and every type of
			// every type array must be exercised by some valid case.
			want := s.branchTargets()
			w := &walker{t: t, s: s, hits: map[string]bool{}}
			for _, c := range cases {
				v, err := parseJSON(c.JSON)
				if err != nil {
					continue // reported by TestValidCases
				}
				if _, ok := s.defs[c.Def]; !ok {
					continue // reported by TestValidCases
				}
				msgDef := c.Def
				if c.Variant != "" {
					msgDef = c.Variant
				}
				req, notif := s.messageKind(msgDef)
				before := len(w.undeclared)
				// A union's case is walked along its variant: another member
				// the value also matches (2026-07-28's open Result matches
				// every result) does not decide what it holds.
				// (An extension's nested union is walked whole: its variant
				// is one allOf branch of it.)
				node, loc := s.defs[c.Def], s.defPtr(c.Def)
				if c.Variant != "" && !s.nested[c.Def] {
					node, loc = s.variantNode(c.Def, c.Variant)
				}
				w.walk(node, loc, v, "", true, req || notif || s.embedded[msgDef] != "")
				// A strict decoder skips undeclared members, so a case using
				// them could not survive decode → re-encode unchanged.
				for _, u := range w.undeclared[before:] {
					t.Errorf("%s: %s: member %s is not declared by the schema", c.File, c.Name, u)
				}
			}
			for _, target := range want {
				if !w.hits[target] {
					missing = append(missing, "branch #"+target)
				}
			}
			if len(missing) > 0 {
				t.Errorf("%s: missing coverage:\n\t%s", rev, strings.Join(missing, "\n\t"))
			}
		})
	}
}

// hasKeyword reports whether some schema node of the revision's
// definitions uses the keyword (as a keyword: the names of properties are
// not looked at).
func (s *revSchema) hasKeyword(keyword string) bool {
	var walk func(node any) bool
	walk = func(node any) bool {
		switch n := node.(type) {
		case map[string]any:
			if _, ok := n[keyword]; ok {
				return true
			}
			for k, v := range n {
				if k == "properties" {
					props, _ := v.(map[string]any)
					for _, p := range props {
						if walk(p) {
							return true
						}
					}
					continue
				}
				if walk(v) {
					return true
				}
			}
		case []any:
			for _, x := range n {
				if walk(x) {
					return true
				}
			}
		}
		return false
	}
	for _, def := range s.defs {
		if walk(def) {
			return true
		}
	}
	return false
}

// responseDef reports whether def is a method's response definition, a
// JSON-RPC response named <Result>Response (2026-07-28's
// CallToolResultResponse).
func (s *revSchema) responseDef(def string) bool {
	if !strings.HasSuffix(def, "ResultResponse") {
		return false
	}
	d, _ := s.defs[def].(map[string]any)
	props, _ := d["properties"].(map[string]any)
	_, hasResult := props["result"]
	_, hasID := props["id"]
	return hasResult && hasID
}

// errorCode returns the code const of a named error definition, as JSON
// text: one whose "code", or whose "error" member's "code" (directly or in
// an allOf branch), is a const; "" for any other definition.
func (s *revSchema) errorCode(def string) string {
	var code func(node any, depth int) string
	code = func(node any, depth int) string {
		m, _ := s.resolve(node, "")
		if m == nil || depth > 4 {
			return ""
		}
		props, _ := m["properties"].(map[string]any)
		c, _ := props["code"].(map[string]any)
		if v, ok := c["const"].(json.Number); ok {
			return v.String()
		}
		subs, _ := m["allOf"].([]any)
		for _, sub := range subs {
			if got := code(sub, depth+1); got != "" {
				return got
			}
		}
		return ""
	}
	if got := code(s.defs[def], 0); got != "" {
		return got
	}
	d, _ := s.defs[def].(map[string]any)
	props, _ := d["properties"].(map[string]any)
	if e, ok := props["error"]; ok {
		return code(e, 0)
	}
	return ""
}

// taskAugmentable reports whether the params of request def (or any union
// member or allOf branch of them) have a "task" member.
func (s *revSchema) taskAugmentable(def string) bool {
	d, _ := s.defs[def].(map[string]any)
	props, _ := d["properties"].(map[string]any)
	return s.hasProperty(props["params"], "task", 0)
}

func (s *revSchema) hasProperty(node any, name string, depth int) bool {
	m, _ := s.resolve(node, "")
	if m == nil || depth > 8 {
		return false
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props[name]; ok {
			return true
		}
	}
	for _, k := range []string{"allOf", "anyOf"} {
		subs, _ := m[k].([]any)
		for _, sub := range subs {
			if s.hasProperty(sub, name, depth+1) {
				return true
			}
		}
	}
	return false
}

// branchTargets lists, as "<schema pointer>|<branch>", every member of every
// inline anyOf ("|0", "|1", ...) and every type of every type array
// ("|type:string", ...) in the schema (an extension's: in its own
// definitions). Top-level named unions are covered by variant cases instead.
func (s *revSchema) branchTargets() []string {
	var out []string
	var walk func(node any, loc string, top bool)
	walk = func(node any, loc string, top bool) {
		switch n := node.(type) {
		case map[string]any:
			if members, ok := n["anyOf"].([]any); ok && !top {
				for i := range members {
					out = append(out, fmt.Sprintf("%s|%d", loc, i))
				}
			}
			if types, ok := n["type"].([]any); ok && len(types) > 1 {
				for _, ty := range types {
					out = append(out, fmt.Sprintf("%s|type:%v", loc, ty))
				}
			}
			for _, k := range sortedKeys(n) {
				switch k {
				case "const", "enum", "default", "examples", "required", "type":
				case "properties":
					props, _ := n[k].(map[string]any)
					for _, p := range sortedKeys(props) {
						walk(props[p], loc+"/properties/"+escapeToken(p), false)
					}
				default:
					walk(n[k], loc+"/"+escapeToken(k), false)
				}
			}
		case []any:
			for i, x := range n {
				walk(x, loc+"/"+strconv.Itoa(i), false)
			}
		}
	}
	for _, name := range sortedKeys(s.defs) {
		if s.own != nil && !s.own[name] {
			continue // an extension's repetitions of the core's
		}
		walk(s.defs[name], s.defPtr(name), true)
	}
	return out
}

// walker collects what the valid cases exercise: the inline anyOf branches
// they match, the types they take in type arrays, and the object members they
// use that the schema does not declare.
type walker struct {
	t          *testing.T
	s          *revSchema
	hits       map[string]bool
	undeclared []string
}

// walk descends the value v (at instance pointer vptr) along the schema node
// at loc. checkKeys says whether the members of v are to be checked against
// the members the node declares (false inside allOf/anyOf branches, whose
// enclosing node checks them as a whole). envelope allows the undeclared
// JSON-RPC members "jsonrpc" and "id" at the top of a message.
func (w *walker) walk(node any, loc string, v any, vptr string, checkKeys, envelope bool) {
	m, loc := w.s.resolve(node, loc)
	if m == nil {
		return
	}
	if types, ok := m["type"].([]any); ok && len(types) > 1 {
		w.hits[loc+"|type:"+jsonType(v)] = true
	}
	if subs, ok := m["allOf"].([]any); ok {
		for i, sub := range subs {
			w.walk(sub, fmt.Sprintf("%s/allOf/%d", loc, i), v, vptr, false, false)
		}
	}
	if subs, ok := m["anyOf"].([]any); ok {
		for i, sub := range subs {
			bloc := fmt.Sprintf("%s/anyOf/%d", loc, i)
			if w.s.schemaAt(w.t, bloc).Validate(v) == nil {
				w.hits[fmt.Sprintf("%s|%d", loc, i)] = true
				w.walk(sub, bloc, v, vptr, false, false)
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if checkKeys && w.s.objectShaped(m) {
			for _, k := range sortedKeys(v) {
				if envelope && vptr == "" && (k == "jsonrpc" || k == "id") {
					continue
				}
				if !w.s.declares(w.t, m, loc, v, k) {
					w.undeclared = append(w.undeclared, fmt.Sprintf("%s/%s (schema #%s)", vptr, escapeToken(k), loc))
				}
			}
		}
		props, _ := m["properties"].(map[string]any)
		for _, k := range sortedKeys(v) {
			child := vptr + "/" + escapeToken(k)
			if p, ok := props[k]; ok {
				w.walk(p, loc+"/properties/"+escapeToken(k), v[k], child, true, false)
			} else if ap, ok := m["additionalProperties"].(map[string]any); ok {
				w.walk(ap, loc+"/additionalProperties", v[k], child, true, false)
			}
		}
	case []any:
		if items, ok := m["items"].(map[string]any); ok {
			for i, x := range v {
				w.walk(items, loc+"/items", x, fmt.Sprintf("%s/%d", vptr, i), true, false)
			}
		}
	}
}

// objectShaped reports whether a (resolved) schema node constrains the
// members of an object: it has properties, additionalProperties, or
// allOf/anyOf branches. Other nodes ({} or a bare {"type":"object"}) take any
// object, whose members a decoder keeps as they are.
func (s *revSchema) objectShaped(m map[string]any) bool {
	for _, k := range []string{"properties", "additionalProperties", "allOf", "anyOf"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// declares reports whether the schema node m (at loc) declares the member key
// of the object v: as one of its properties, through additionalProperties, or
// through an allOf branch or an anyOf branch that v matches.
func (s *revSchema) declares(t *testing.T, m map[string]any, loc string, v any, key string) bool {
	m, loc = s.resolve(m, loc)
	if m == nil {
		return false
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props[key]; ok {
			return true
		}
	}
	switch ap := m["additionalProperties"].(type) {
	case bool:
		if ap {
			return true
		}
	case map[string]any:
		return true
	}
	if !s.objectShaped(m) {
		return true
	}
	if subs, ok := m["allOf"].([]any); ok {
		for i, sub := range subs {
			if s.declares(t, sub.(map[string]any), fmt.Sprintf("%s/allOf/%d", loc, i), v, key) {
				return true
			}
		}
	}
	if subs, ok := m["anyOf"].([]any); ok {
		for i, sub := range subs {
			bloc := fmt.Sprintf("%s/anyOf/%d", loc, i)
			if s.schemaAt(t, bloc).Validate(v) == nil && s.declares(t, sub.(map[string]any), bloc, v, key) {
				return true
			}
		}
	}
	return false
}
