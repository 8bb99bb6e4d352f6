package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/protocol/corpus"
	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/validate"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

var revisions = map[string]struct {
	schema  func() []byte
	methods func() []wire.Method
}{
	mcp20241105.Revision: {mcp20241105.Schema, mcp20241105.Methods},
	mcp20250326.Revision: {mcp20250326.Schema, mcp20250326.Methods},
	mcp20250618.Revision: {mcp20250618.Schema, mcp20250618.Methods},
	mcp20251125.Revision: {mcp20251125.Schema, mcp20251125.Methods},
	mcp20260728.Revision: {mcp20260728.Schema, mcp20260728.Methods},
}

func validator(t *testing.T, rev string) *validate.Validator {
	t.Helper()
	r, ok := revisions[rev]
	if !ok {
		t.Fatalf("no package for %s", rev)
	}
	v, err := validate.New(rev, r.schema(), validate.WithMethods(r.methods()))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func sortedRevisions() []string {
	var revs []string
	for r := range revisions {
		revs = append(revs, r)
	}
	slices.Sort(revs)
	return revs
}

func TestCorpusValid(t *testing.T) {
	for _, rev := range sortedRevisions() {
		t.Run(rev, func(t *testing.T) {
			v := validator(t, rev)
			cases, err := corpus.Valid(rev)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				if ps := v.Definition(c.Def, c.JSON); ps != nil {
					t.Errorf("%s: %s: %v", c.File, c.Name, ps)
				}
				// (A variant "anyOf/2" is a member spelled inline, with no
				// definition of its own.)
				if c.Variant != "" && !strings.HasPrefix(c.Variant, "anyOf/") {
					if ps := v.Definition(c.Variant, c.JSON); ps != nil {
						t.Errorf("%s: %s: variant %s: %v", c.File, c.Name, c.Variant, ps)
					}
				}
				// A whole message (a request or notification definition)
				// is valid as the first message of a stream too; an
				// embedded request (2026-07-28), even in a JSON-RPC
				// envelope, is never a message.
				def := c.Def
				if c.Variant != "" {
					def = c.Variant
				}
				for _, m := range revisions[rev].methods() {
					if m.Message != def {
						continue
					}
					msg := c.JSON
					if m.Embedded {
						msg = append([]byte(`{"jsonrpc":"2.0","id":"e1",`), bytes.TrimPrefix(bytes.TrimSpace(c.JSON), []byte("{"))...)
					}
					for _, r := range v.Stream().Payload(msg, 1, validate.AnySide) {
						switch {
						case m.Embedded && (len(r.Problems) != 1 || r.Problems[0].Rule != validate.RuleMethod || !strings.Contains(r.Problems[0].Reason, "embedded request")):
							t.Errorf("%s: %s: as a message: %v, want it refused as an embedded request", c.File, c.Name, r.Problems)
						case !m.Embedded && !r.Valid():
							t.Errorf("%s: %s: as a message: %v", c.File, c.Name, r.Problems)
						}
					}
					break
				}
			}
		})
	}
}

func TestCorpusInvalid(t *testing.T) {
	for _, rev := range sortedRevisions() {
		t.Run(rev, func(t *testing.T) {
			v := validator(t, rev)
			cases, err := corpus.InvalidCases(rev)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				ps := v.Definition(c.Def, []byte(c.Text))
				if ps == nil {
					t.Errorf("%s: %s: valid, want a problem at %q", c.File, c.Name, c.Pointer)
					continue
				}
				found := false
				for _, p := range ps {
					found = found || p.Pointer == c.Pointer
				}
				if !found {
					t.Errorf("%s: %s: problems %v, none at %q", c.File, c.Name, ps, c.Pointer)
				}
				if c.Kind == corpus.KindDuplicateKey && (len(ps) != 1 || ps[0].Rule != validate.RuleJSON) {
					t.Errorf("%s: %s: problems %v, want one json problem", c.File, c.Name, ps)
				}
			}
		})
	}
}

func TestDefinition(t *testing.T) {
	v := validator(t, "2025-11-25")
	tests := []struct {
		name, def, text string
		want            []validate.Problem // nil: valid
	}{
		{"valid", "TextContent", `{"type":"text","text":"hi"}`, nil},
		{"wrong type", "TextContent", `{"type":"text","text":1}`, []validate.Problem{{Pointer: "/text", Reason: "expected string, but got number", Rule: validate.RuleSchema}}},
		{"format asserted under 2020-12", "Resource", `{"name":"x","uri":"not a uri"}`, []validate.Problem{{Pointer: "/uri", Reason: "'not a uri' is not valid 'uri'", Rule: validate.RuleSchema}}},
		{"duplicate key", "TextContent", `{"type":"text","text":"a","text":"b"}`, []validate.Problem{{Pointer: "/text", Reason: "duplicate member name", Rule: validate.RuleJSON}}},
		{"invalid UTF-8", "TextContent", "{\"type\":\"text\",\"text\":\"\xff\"}", []validate.Problem{{Pointer: "/text", Reason: "invalid UTF-8", Rule: validate.RuleJSON}}},
		{"unknown definition", "Nope", `{}`, []validate.Problem{{Pointer: "", Reason: `revision 2025-11-25 has no definition "Nope"`, Rule: validate.RuleSchema}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := v.Definition(tt.def, []byte(tt.text))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Definition(%s, %s) = %#v, want %#v", tt.def, tt.text, got, tt.want)
			}
		})
	}
	// Format assertion holds under draft-07 too.
	if ps := validator(t, "2025-06-18").Definition("Resource", []byte(`{"name":"x","uri":"not a uri"}`)); len(ps) != 1 || ps[0].Pointer != "/uri" {
		t.Errorf("2025-06-18: %v, want a problem at /uri", ps)
	}
}

func TestCompiledOnce(t *testing.T) {
	a := validator(t, "2025-11-25")
	b := validator(t, "2025-11-25")
	if a == b {
		t.Fatal("New returned the same validator")
	}
	// Both share the compiled schema: validating concurrently is safe.
	done := make(chan bool)
	for _, v := range []*validate.Validator{a, b, a, b} {
		go func() {
			done <- v.Definition("CallToolResult", []byte(`{"content":[]}`)) == nil
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("CallToolResult invalid")
		}
	}
	if _, err := validate.New("2025-11-25", []byte(`{"$schema":`)); err == nil {
		t.Error("New accepted a truncated schema")
	}
	if _, err := validate.New("2025-11-25", []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`)); err == nil {
		t.Error("New accepted a schema without definitions")
	}
}

func TestDerivedMethods(t *testing.T) {
	v, err := validate.New("2025-11-25", mcp20251125.Schema())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		dir    wire.Direction
		notif  bool
		result string
	}{
		{"tools/call", wire.ClientToServer, false, "CallToolResult"},
		{"ping", wire.Both, false, "Result"},
		{"sampling/createMessage", wire.ServerToClient, false, "CreateMessageResult"},
		{"notifications/progress", wire.Both, true, ""},
	} {
		m, ok := v.Method(tt.name)
		if !ok || m.Direction != tt.dir || m.Notification != tt.notif || (tt.result != "" && m.Results[0] != tt.result) {
			t.Errorf("Method(%s) = %+v, %v", tt.name, m, ok)
		}
	}
	if v.Batching() {
		t.Error("2025-11-25 has batches")
	}
	if !validator(t, "2025-03-26").Batching() {
		t.Error("2025-03-26 has no batches")
	}
	if validator(t, "2024-11-05").Batching() {
		t.Error("2024-11-05 has batches")
	}
}

// TestDerivedMethodsModern checks that the method table read from
// 2026-07-28's schema alone (no ServerRequest, a ClientNotification that
// is one definition, embedded requests in InputRequest, a response
// definition per method) agrees with the generated one.
func TestDerivedMethodsModern(t *testing.T) {
	derived, err := validate.New(mcp20260728.Revision, mcp20260728.Schema())
	if err != nil {
		t.Fatal(err)
	}
	generated := mcp20260728.Methods()
	if len(generated) == 0 {
		t.Fatal("no methods")
	}
	for _, g := range generated {
		d, ok := derived.Method(g.Name)
		if !ok {
			t.Errorf("%s: not derived", g.Name)
			continue
		}
		want := validate.Method{Name: g.Name, Notification: g.Notification, Direction: g.Direction, Message: g.Message,
			Results: slices.Sorted(slices.Values(g.Results)), Embedded: g.Embedded, Response: g.Response}
		d.Results = slices.Sorted(slices.Values(d.Results))
		if !reflect.DeepEqual(d, want) {
			t.Errorf("%s: derived %+v, generated %+v", g.Name, d, want)
		}
	}
	for _, tt := range []struct {
		name     string
		embedded bool
		dir      wire.Direction
		response string
		normal   string
	}{
		{"tools/call", false, wire.ClientToServer, "CallToolResultResponse", "CallToolResult"},
		{"server/discover", false, wire.ClientToServer, "DiscoverResultResponse", "DiscoverResult"},
		{"elicitation/create", true, wire.ServerToClient, "", "ElicitResult"},
		{"roots/list", true, wire.ServerToClient, "", "ListRootsResult"},
		{"notifications/cancelled", false, wire.Both, "", ""},
	} {
		m, _ := derived.Method(tt.name)
		if m.Embedded != tt.embedded || m.Direction != tt.dir || m.Response != tt.response || (tt.normal != "" && (len(m.Results) == 0 || m.Results[0] != tt.normal)) {
			t.Errorf("Method(%s) = %+v", tt.name, m)
		}
	}
	for _, gone := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "tasks/get"} {
		if _, ok := derived.Method(gone); ok {
			t.Errorf("2026-07-28 has %s", gone)
		}
	}
}

// problem is what a stream test expects of one message.
type problem struct {
	index   int
	pointer string
	rule    string
	reason  string // substring
}

// A 2026-07-28 request's _meta, and a request and response or two.
const (
	modernMeta   = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	modernList   = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` + modernMeta + `}}}`
	modernListed = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"private"}}`
	modernCall   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{` + modernMeta + `},"name":"t"}}`
)

func TestStreamRules(t *testing.T) {
	const (
		initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
		ping1   = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		list1   = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		empty1  = `{"jsonrpc":"2.0","id":1,"result":{}}`
	)
	tests := []struct {
		name     string
		rev      string
		from     validate.Side
		payloads []string
		want     []problem // every problem of the stream
	}{
		{"unknown method", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/run"}`}, []problem{{0, "/method", validate.RuleMethod, `no request "tools/run"`}}},
		{"unknown notification", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":"2.0","method":"notifications/nope"}`}, []problem{{0, "/method", validate.RuleMethod, "no notification"}}},
		{"method not in revision", "2025-06-18", validate.AnySide, []string{`{"jsonrpc":"2.0","id":1,"method":"tasks/list"}`}, []problem{{0, "/method", validate.RuleMethod, "2025-06-18"}}},
		{"notification with id", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`}, []problem{{0, "/id", validate.RuleMethod, "is a notification"}}},
		{"request without id", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":"2.0","method":"ping"}`}, []problem{{0, "", validate.RuleMethod, "is a request"}}},
		{"wrong direction", "2025-11-25", validate.Client, []string{`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`}, []problem{{0, "/method", validate.RuleDirection, "by the server, not by the client"}}},
		{"wrong direction notification", "2025-11-25", validate.Server, []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`}, []problem{{0, "/method", validate.RuleDirection, "not by the server"}}},
		{"both directions", "2025-11-25", validate.Server, []string{ping1}, nil},
		{"batch in 2025-06-18", "2025-06-18", validate.AnySide, []string{"[" + ping1 + "]"}, []problem{{0, "", validate.RuleBatch, "has no batches"}}},
		{"batch in 2025-03-26", "2025-03-26", validate.Client, []string{"[" + ping1 + `,{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`}, nil},
		{"initialize in a batch", "2025-03-26", validate.Client, []string{"[" + strings.Replace(initReq, "2025-06-18", "2025-03-26", 1) + "]"}, []problem{{0, "", validate.RuleBatch, "initialize"}}},
		{"empty batch", "2025-03-26", validate.Client, []string{"[]"}, []problem{{0, "", validate.RuleBatch, "empty"}}},
		{"duplicate id", "2025-11-25", validate.Client, []string{ping1, list1}, []problem{{1, "/id", validate.RuleID, "already used"}}},
		{"duplicate id inferred sender", "2025-11-25", validate.AnySide, []string{list1, `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`}, []problem{{1, "/id", validate.RuleID, "from the client"}}},
		{"same id other direction", "2025-11-25", validate.AnySide, []string{list1, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`}, nil},
		{"string and integer ids differ", "2025-11-25", validate.Client, []string{ping1, `{"jsonrpc":"2.0","id":"1","method":"ping"}`}, nil},
		{"response with no request", "2025-11-25", validate.AnySide, []string{empty1}, []problem{{0, "/id", validate.RuleResponse, "no earlier request has id 1"}}},
		{"response answered twice", "2025-11-25", validate.AnySide, []string{ping1, empty1, empty1}, []problem{{2, "/id", validate.RuleResponse, "already answered"}}},
		{"response from the requester", "2025-11-25", validate.Client, []string{ping1, empty1}, []problem{{1, "/id", validate.RuleResponse, "from the server"}}},
		{"result of the request's method", "2025-11-25", validate.AnySide, []string{list1, `{"jsonrpc":"2.0","id":1,"result":{}}`}, []problem{{1, "/result", validate.RuleSchema, "tools"}}},
		{"task-augmented result", "2025-11-25", validate.AnySide, []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null}}}`,
		}, nil},
		{"error response without id", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`}, nil},
		{"error response", "2025-11-25", validate.AnySide, []string{ping1, `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`}, []problem{{1, "/error/code", validate.RuleSchema, "expected integer"}}},
		{"duplicate key", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`}, []problem{{0, "/method", validate.RuleJSON, "duplicate"}}},
		{"invalid UTF-8", "2025-11-25", validate.AnySide, []string{"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"method\":\"ping\"}"}, []problem{{0, "/id", validate.RuleJSON, "UTF-8"}}},
		{"not JSON", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":`}, []problem{{0, "/jsonrpc", validate.RuleJSON, "truncated"}}},
		{"not an object", "2025-11-25", validate.AnySide, []string{`"ping"`}, []problem{{0, "", validate.RuleSchema, "got string"}}},
		{"no kind", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":"2.0","id":1}`}, []problem{{0, "", validate.RuleSchema, "neither"}}},
		{"bad envelope", "2025-11-25", validate.AnySide, []string{`{"jsonrpc":"1.0","id":1,"method":"ping"}`}, []problem{{0, "/jsonrpc", validate.RuleSchema, ""}}},
		{"params", "2025-06-18", validate.AnySide, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}}`}, []problem{{0, "/params/name", validate.RuleSchema, "expected string"}}},

		// 2026-07-28: requests carry their version and capabilities, results
		// their resultType, and the server asks inside results.
		{"modern: valid tools/list", "2026-07-28", validate.AnySide, []string{modernList, modernListed}, nil},
		{"modern: request without _meta", "2026-07-28", validate.Client, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`}, []problem{{0, "/params", validate.RuleSchema, "_meta"}}},
		{"modern: list request without params", "2026-07-28", validate.Client, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, []problem{{0, "", validate.RuleSchema, "params"}}},
		{"modern: _meta without protocolVersion", "2026-07-28", validate.Client, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`}, []problem{{0, "/params/_meta", validate.RuleSchema, "protocolVersion"}}},
		{"modern: _meta without clientCapabilities", "2026-07-28", validate.Client, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`}, []problem{{0, "/params/_meta", validate.RuleSchema, "clientCapabilities"}}},
		{"modern: bad log level", "2026-07-28", validate.Client, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` + modernMeta + `,"io.modelcontextprotocol/logLevel":"verbose"}}}`}, []problem{{0, "/params/_meta/io.modelcontextprotocol~1logLevel", validate.RuleSchema, "value must be one of"}}},
		{"modern: an embedded request as a JSON-RPC request", "2026-07-28", validate.AnySide, []string{`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`}, []problem{{0, "/method", validate.RuleMethod, `"elicitation/create" is an embedded request in revision 2026-07-28, never a JSON-RPC message`}}},
		{"modern: an embedded request as a notification", "2026-07-28", validate.AnySide, []string{`{"jsonrpc":"2.0","method":"roots/list"}`}, []problem{{0, "/method", validate.RuleMethod, "inputRequests"}}},
		{"modern: removed method", "2026-07-28", validate.Client, []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`}, []problem{{0, "/method", validate.RuleMethod, `revision 2026-07-28 has no request "ping"`}}},
		{"modern: input required", "2026-07-28", validate.AnySide, []string{modernCall, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"requestState":"s"}}`}, nil},
		{"modern: resultType bogus", "2026-07-28", validate.AnySide, []string{modernCall, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"bogus","content":[]}}`}, []problem{{1, "/result/resultType", validate.RuleResult, `unknown resultType "bogus"`}}},
		{"modern: input required from a list", "2026-07-28", validate.AnySide, []string{modernList, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`}, []problem{{1, "/result", validate.RuleSchema, "missing properties"}, {1, "/result/resultType", validate.RuleResult, `tools/list may not answer "input_required"`}}},
		{"modern: complete without the caching hints", "2026-07-28", validate.AnySide, []string{modernList, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`}, []problem{{1, "/result", validate.RuleSchema, "cacheScope"}}},
		{"modern: cacheScope shared", "2026-07-28", validate.AnySide, []string{modernList, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":1,"cacheScope":"shared"}}`}, []problem{{1, "/result/cacheScope", validate.RuleSchema, "value must be one of"}}},
		{"modern: negative ttlMs", "2026-07-28", validate.AnySide, []string{modernList, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":-1,"cacheScope":"public"}}`}, []problem{{1, "/result/ttlMs", validate.RuleSchema, "must be >= 0"}}},
		{"modern: named error without its data", "2026-07-28", validate.AnySide, []string{modernList, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version"}}`}, []problem{{1, "/error", validate.RuleSchema, "data"}}},
		{"modern: named error, bad data", "2026-07-28", validate.AnySide, []string{modernList, `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"m","data":{"requiredCapabilities":[]}}}`}, []problem{{1, "/error/data/requiredCapabilities", validate.RuleSchema, "expected object"}}},
		{"modern: legacy error code", "2026-07-28", validate.AnySide, []string{modernList, `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found"}}`}, nil},
		{"modern: server sends a request", "2026-07-28", validate.Server, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` + modernMeta + `}}}`}, []problem{{0, "/method", validate.RuleDirection, "by the client, not by the server"}}},
		{"modern: client answers nothing", "2026-07-28", validate.Client, []string{`{"jsonrpc":"2.0","id":"s1","result":{"resultType":"complete"}}`}, []problem{{0, "/id", validate.RuleResponse, "no earlier request from the server"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validator(t, tt.rev).Stream()
			var got []problem
			for _, p := range tt.payloads {
				for _, r := range s.Payload([]byte(p), 0, tt.from) {
					for _, pr := range r.Problems {
						got = append(got, problem{r.Index, pr.Pointer, pr.Rule, pr.Reason})
					}
				}
			}
			ok := len(got) == len(tt.want)
			for i := 0; ok && i < len(got); i++ {
				w, g := tt.want[i], got[i]
				ok = w.index == g.index && w.pointer == g.pointer && w.rule == g.rule && strings.Contains(g.reason, w.reason)
			}
			if !ok {
				t.Errorf("problems %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSplitAndLines(t *testing.T) {
	// The captured sessions: every message valid, one a line.
	for _, tt := range []struct {
		rev      string
		messages int
	}{
		{"2025-11-25", 13},
		{"2026-07-28", 15},
	} {
		t.Run(tt.rev, func(t *testing.T) {
			data, err := os.ReadFile("testdata/session-" + tt.rev + ".jsonl")
			if err != nil {
				t.Fatal(err)
			}
			inputs := validate.Split(data)
			if len(inputs) != tt.messages {
				t.Fatalf("%d payloads, want %d", len(inputs), tt.messages)
			}
			s := validator(t, tt.rev).Stream()
			for i, in := range inputs {
				if in.Line != i+1 {
					t.Errorf("payload %d on line %d", i, in.Line)
				}
				for _, r := range s.Payload(in.Data, in.Line, validate.AnySide) {
					if !r.Valid() || r.Line != i+1 || r.Index != i {
						t.Errorf("line %d: %+v", i+1, r)
					}
				}
			}
		})
	}

	// One pretty-printed document, and a broken line among good ones.
	pretty := "\n\n{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/initialized\"\n}\n"
	if in := validate.Split([]byte(pretty)); len(in) != 1 || in[0].Line != 3 {
		t.Errorf("Split(pretty) = %+v", in)
	}
	broken := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\n\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"
	in := validate.Split([]byte(broken))
	if len(in) != 3 || in[0].Line != 1 || in[1].Line != 2 || in[2].Line != 4 {
		t.Fatalf("Split(broken) = %+v", in)
	}
	// Batch elements get their own lines.
	batch := "[\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + ",\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n]"
	rs := validator(t, "2025-03-26").Stream().Payload([]byte(batch), 1, validate.Client)
	if len(rs) != 2 || rs[0].Line != 2 || rs[1].Line != 3 || *rs[1].Element != 1 || rs[1].Valid() {
		t.Errorf("batch reports %+v", rs)
	}
}

func TestTransport(t *testing.T) {
	v := validator(t, "2025-11-25")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	peer, local := transport.Pipe()
	w := validate.Transport(local, v, validate.TransportOptions{Side: validate.Server, Debug: true, Logger: logger})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	send := func(s string) {
		t.Helper()
		if err := peer.Write(ctx, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	// An invalid request is answered by the wrapper and not passed on; the
	// next message is.
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":1}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/nope"}`)
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x"}}`)
	got, err := w.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"id":8`) {
		t.Errorf("passed on %s, want the unknown method (the session answers -32601)", got)
	}
	got, err = w.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"id":9`) {
		t.Errorf("passed on %s, want the valid request", got)
	}
	answer, err := peer.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Problems []validate.Problem `json:"problems"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		t.Fatalf("%s: %v", answer, err)
	}
	if resp.ID != 7 || resp.Error.Code != -32602 || !strings.Contains(resp.Error.Message, "/params/name") ||
		len(resp.Error.Data.Problems) != 1 || resp.Error.Data.Problems[0].Pointer != "/params/name" {
		t.Errorf("answer %s", answer)
	}
	if !strings.Contains(logs.String(), "notification invalid, dropped") {
		t.Errorf("logs:\n%s", logs.String())
	}

	// Outbound: a request is paired with its inbound response; in debug mode
	// an invalid outbound message is logged and sent anyway.
	if err := w.Write(ctx, []byte(`{"jsonrpc":"2.0","id":"r1","method":"roots/list"}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":"x"}}`)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := peer.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(logs.String(), "outbound message invalid") || !strings.Contains(logs.String(), "/result/content") {
		t.Errorf("logs:\n%s", logs.String())
	}
	send(`{"jsonrpc":"2.0","id":"r1","result":{"roots":"x"}}`)
	if got, err := w.Read(ctx); err != nil || !strings.Contains(string(got), `"r1"`) {
		t.Errorf("Read = %s, %v; want the response passed on", got, err)
	}
	if !strings.Contains(logs.String(), "/result/roots") {
		t.Errorf("the invalid response was not logged against ListRootsResult:\n%s", logs.String())
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Read(ctx); err == nil {
		t.Error("Read after Close succeeded")
	} else if err != io.EOF && !strings.Contains(err.Error(), "closed") {
		t.Logf("Read after Close: %v", err)
	}
}

func TestTransportBatch(t *testing.T) {
	v := validator(t, "2025-03-26")
	peer, local := transport.Pipe()
	w := validate.Transport(local, v, validate.TransportOptions{Side: validate.Server, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`
	if err := peer.Write(ctx, []byte(batch)); err != nil {
		t.Fatal(err)
	}
	got, err := w.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`; string(got) != want {
		t.Errorf("passed on %s, want %s", got, want)
	}
	answer, err := peer.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(answer), `[{"jsonrpc":"2.0","id":1,"error":{"code":-32602`) {
		t.Errorf("answer %s", answer)
	}
}
