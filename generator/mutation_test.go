package generator_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/schema"
)

// The mutation corpus: issue 11 asks that a revision's new method, union
// variant, capability or notification come through the generator with
// nothing added by hand. Each mutation below changes an official schema the
// way a future revision might (a new content variant, a new method with its
// result, a new notification, a new capability, new keywords, a renamed or
// removed definition), and says what the generator must do with it: either
// generate a package that builds and round-trips samples of the new members
// through its strict decoders and encoders, or fail with an error naming the
// construct it cannot map.
//
// Every mutant that builds is written as one package of a single throwaway
// module, with a generated test, and one "go test ./..." compiles and runs
// them all, so that the build cost is shared.

// mutationBases are the official revisions every mutation is applied to
// (unless it names its own): a draft-07 one and a 2020-12 one. A new base
// revision is one more line here.
var mutationBases = []string{
	"2025-06-18", // draft-07, "definitions"
	"2025-11-25", // 2020-12, "$defs"
	"2026-07-28", // 2020-12, stateless: no ServerRequest, embedded requests, resultType
}

// tasksBase is the extension base of the mutations that change an
// extension's schema the way its next draft might: the Tasks extension,
// bound to its core revision (its pin's), generated as an extension's
// package with its method table and New.
const tasksBase = "ext-tasks"

// mutantTimeout bounds the one "go test" run over every mutant package.
const mutantTimeout = 5 * time.Minute

// mutation is one change to an official schema and what the generator must
// do with it.
type mutation struct {
	name string
	// revs are the base revisions it applies to; nil means mutationBases.
	revs []string
	// mutate changes the decoded schema; it fails the test through s when the
	// base lacks what it changes.
	mutate func(s *mutSchema)

	// fails, when not nil, says the generator must refuse the schema with an
	// error containing every one of these strings, in which "{defs}" stands
	// for the definitions keyword of the base ("definitions" or "$defs").
	fails []string

	// The expectations on a mutant that builds.
	samples   []mutSample
	methods   []mutMethod
	noDefs    []string // definitions New must not know
	noMethods []string // methods LookupMethod must not know
	// uses are Go expressions compiled into the mutant's test (as "var _ =
	// <use>"): they prove that a generated API exists with this shape.
	// context and iter are imported.
	uses []string
}

// mutSample is a JSON value of a definition. The mutant decodes it with
// New(def) and wire.Unmarshal, encodes it again, and compares the two as
// JSON values.
type mutSample struct {
	def  string
	json string
	// variant, for a union definition, is the definition the decoded
	// union's Value must be (its type is that of New(variant)).
	variant string
	// reject, when set, says decoding must fail with an error containing it.
	reject string
	// revs, when set, are the only base revisions the sample applies to;
	// skipIn are revisions it does not (their shape of def differs).
	revs, skipIn []string
}

// modern is 2026-07-28 and later: results carry resultType, requests _meta.
var modern = []string{"2026-07-28"}

// applies reports whether the sample is checked in revision rev.
func (s mutSample) applies(rev string) bool {
	return (len(s.revs) == 0 || slices.Contains(s.revs, rev)) && !slices.Contains(s.skipIn, rev)
}

// mutMethod is what LookupMethod must return for one method.
type mutMethod struct {
	name         string
	notification bool
	direction    string // wire.Direction.String(): "client→server", "server→client", "both"
	message      string
	results      []string
	gate         string
	gateSide     string
}

// obj and arr shorten the JSON the mutations write.
type (
	obj = map[string]any
	arr = []any
)

var mutations = []mutation{
	{
		name: "content-variant",
		mutate: func(s *mutSchema) {
			s.add("VideoContent", obj{
				"description": "A video provided to or from an LLM.",
				"type":        "object",
				"properties": obj{
					"type":     obj{"type": "string", "const": "video"},
					"data":     obj{"type": "string", "description": "The base64-encoded video data."},
					"mimeType": obj{"type": "string", "description": "The MIME type of the video."},
					"_meta":    obj{"type": "object", "additionalProperties": obj{}},
				},
				"required": arr{"type", "data", "mimeType"},
			})
			s.addVariant("ContentBlock", "VideoContent")
		},
		samples: []mutSample{
			{def: "ContentBlock", json: `{"type":"video","data":"AAAA","mimeType":"video/mp4"}`, variant: "VideoContent"},
			{def: "ContentBlock", json: `{"type":"text","text":"still here"}`, variant: "TextContent"},
			{def: "VideoContent", json: `{"type":"video","data":"AAAA","mimeType":"video/mp4","_meta":{"k":[1,2]}}`},
			{def: "CallToolResult", json: `{"content":[{"type":"video","data":"AAAA","mimeType":"video/webm"},{"type":"text","text":"hi"}]}`, skipIn: modern},
			{def: "CallToolResult", json: `{"resultType":"complete","content":[{"type":"video","data":"AAAA","mimeType":"video/webm"},{"type":"text","text":"hi"}]}`, revs: modern},
			{def: "VideoContent", json: `{"type":"video","mimeType":"video/mp4"}`, reject: "data"},
			{def: "ContentBlock", json: `{"type":"hologram","data":"AAAA","mimeType":"x/y"}`, reject: "hologram"},
		},
		uses: []string{"ContentBlockValue((*VideoContent)(nil))"},
	},
	{
		name:   "method",
		mutate: addWidgetsList,
		samples: []mutSample{
			{def: "ListWidgetsRequest", json: `{"method":"widgets/list","params":{"cursor":"c1"}}`, skipIn: modern},
			{def: "ClientRequest", json: `{"method":"widgets/list"}`, variant: "ListWidgetsRequest", skipIn: modern},
			{def: "ListWidgetsRequest", json: `{"method":"widgets/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"cursor":"c1"}}`, revs: modern},
			{def: "ClientRequest", json: `{"method":"widgets/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, variant: "ListWidgetsRequest", revs: modern},
			{def: "ListWidgetsRequest", json: `{"method":"widgets/list","params":{"cursor":"c1"}}`, reject: "_meta", revs: modern},
			{def: "ListWidgetsResult", json: `{"widgets":[{"name":"w1","title":"One"},{"name":"w2"}],"nextCursor":"c2"}`},
			{def: "ListWidgetsResult", json: `{"nextCursor":"c2"}`, reject: "widgets"},
		},
		methods: []mutMethod{
			// No capability declares widgets, so nothing gates the method.
			{name: "widgets/list", direction: "client→server", message: "ListWidgetsRequest", results: []string{"ListWidgetsResult"}},
		},
		uses: []string{
			"func(s *ClientSession, ctx context.Context) (*ListWidgetsResult, error) { return s.ListWidgets(ctx, nil) }",
			"func(srv Server, ctx context.Context) (*ListWidgetsResult, error) { return srv.ListWidgets(ctx, nil) }",
			"func(s *ClientSession, ctx context.Context) iter.Seq2[Widget, error] { return s.AllWidgets(ctx) }",
		},
	},
	{
		name: "notification",
		mutate: func(s *mutSchema) {
			s.clone("ToolListChangedNotification", "WidgetsChangedNotification")
			s.setConst("WidgetsChangedNotification", "method", "notifications/widgets/changed")
			s.addVariant("ServerNotification", "WidgetsChangedNotification")
		},
		samples: []mutSample{
			{def: "WidgetsChangedNotification", json: `{"method":"notifications/widgets/changed","params":{"_meta":{"k":"v"}}}`},
			{def: "ServerNotification", json: `{"method":"notifications/widgets/changed"}`, variant: "WidgetsChangedNotification"},
			{def: "WidgetsChangedNotification", json: `{"method":"notifications/tools/list_changed"}`, reject: "notifications/widgets/changed"},
		},
		methods: []mutMethod{
			{name: "notifications/widgets/changed", notification: true, direction: "server→client", message: "WidgetsChangedNotification"},
		},
		uses: []string{
			"func(s *ServerSession, ctx context.Context) error { return s.NotifyWidgetsChanged(ctx, nil) }",
			"func(c Client, ctx context.Context) { c.WidgetsChanged(ctx, nil) }",
		},
	},
	{
		// The gates are inferred from the capability's name: nothing in the
		// generator's hand tables knows widgets.
		name: "capability",
		mutate: func(s *mutSchema) {
			addWidgetsList(s)
			s.setProp("ServerCapabilities", "widgets", obj{
				"description": "Present if the server offers any widgets.",
				"type":        "object",
				"properties": obj{
					"listChanged": obj{"type": "boolean", "description": "Whether this server supports notifications for changes to the widget list."},
				},
			})
			s.clone("ToolListChangedNotification", "WidgetListChangedNotification")
			s.setConst("WidgetListChangedNotification", "method", "notifications/widgets/list_changed")
			s.addVariant("ServerNotification", "WidgetListChangedNotification")
		},
		samples: []mutSample{
			{def: "ServerCapabilities", json: `{"tools":{},"widgets":{"listChanged":true}}`},
			{def: "WidgetListChangedNotification", json: `{"method":"notifications/widgets/list_changed"}`},
		},
		methods: []mutMethod{
			{name: "widgets/list", direction: "client→server", message: "ListWidgetsRequest", results: []string{"ListWidgetsResult"}, gate: "widgets", gateSide: "server"},
			{name: "notifications/widgets/list_changed", notification: true, direction: "server→client", message: "WidgetListChangedNotification", gate: "widgets.listChanged", gateSide: "server"},
		},
		uses: []string{"ServerCapabilities{}.Widgets"},
	},
	{
		// Assertions and annotations on existing members and definitions
		// change no Go type. The decoders enforce the cheap assertions
		// (load.Keywords, Decoder: true).
		name: "keywords",
		mutate: func(s *mutSchema) {
			text := s.prop("TextContent", "text")
			text["maxLength"] = 16
			text["pattern"] = `^[^\u0000]*$`
			text["x-mcp-header"] = "Text"
			mime := s.prop("ImageContent", "mimeType")
			mime["deprecated"] = true
			mime["default"] = "image/png"
			mime["examples"] = arr{"image/png", "image/jpeg"}
			data := s.prop("ImageContent", "data")
			data["contentEncoding"] = "base64"
			data["$comment"] = "base64 of the image bytes"
			name := s.prop("Implementation", "name")
			name["minLength"] = 1
			name["format"] = "hostname"
			name["readOnly"] = true
			s.def("ImageContent")["x-mcp-since"] = obj{"revision": "2099-01-01", "experimental": true}
			s.def("AudioContent")["deprecated"] = true
			s.def("AudioContent")["title"] = "Audio"
		},
		samples: []mutSample{
			{def: "TextContent", json: `{"type":"text","text":"hello"}`},
			{def: "ImageContent", json: `{"type":"image","data":"AAAA","mimeType":"image/png"}`},
			{def: "AudioContent", json: `{"type":"audio","data":"AAAA","mimeType":"audio/wav"}`},
			{def: "Implementation", json: `{"name":"example.org","version":"1.0.0"}`},
			{def: "TextContent", json: `{"type":"text","text":"seventeen letters"}`, reject: "maxLength"},
			{def: "Implementation", json: `{"name":"","version":"1.0.0"}`, reject: "minLength"},
		},
	},
	{
		name: "keyword-not",
		mutate: func(s *mutSchema) {
			s.prop("TextContent", "text")["not"] = obj{"const": ""}
		},
		fails: []string{`keyword "not"`, "#/{defs}/TextContent/properties/text/not"},
	},
	{
		name: "keyword-if",
		mutate: func(s *mutSchema) {
			mime := s.prop("ImageContent", "mimeType")
			mime["if"] = obj{"const": "image/png"}
			mime["then"] = obj{"maxLength": 9}
		},
		fails: []string{`keyword "if"`, "#/{defs}/ImageContent/properties/mimeType/if"},
	},
	{
		name: "keyword-patternProperties",
		mutate: func(s *mutSchema) {
			s.prop("ServerCapabilities", "experimental")["patternProperties"] = obj{"^x-": obj{"type": "object"}}
		},
		fails: []string{`keyword "patternProperties"`, "#/{defs}/ServerCapabilities/properties/experimental/patternProperties"},
	},
	{
		name: "keyword-unknown",
		mutate: func(s *mutSchema) {
			s.prop("TextContent", "text")["widgetness"] = 3
		},
		fails: []string{`keyword "widgetness"`, "#/{defs}/TextContent/properties/text/widgetness"},
	},
	{
		name: "rename",
		mutate: func(s *mutSchema) {
			s.rename("TextContent", "PlainTextContent")
		},
		samples: []mutSample{
			{def: "ContentBlock", json: `{"type":"text","text":"hi"}`, variant: "PlainTextContent"},
			{def: "PlainTextContent", json: `{"type":"text","text":"hi","annotations":{"audience":["user"]}}`},
			{def: "CallToolResult", json: `{"content":[{"type":"text","text":"hi"}],"isError":true}`, skipIn: modern},
			{def: "CallToolResult", json: `{"content":[{"type":"text","text":"hi"}],"isError":true,"resultType":"complete"}`, revs: modern},
		},
		noDefs: []string{"TextContent"},
		uses:   []string{"ContentBlockValue((*PlainTextContent)(nil))"},
	},
	{
		// A union whose variant is another union: its variants join.
		name: "union-of-unions",
		// A generator feature, not a revision's: one or two bases are enough.
		revs: []string{"2026-07-28"},
		mutate: func(s *mutSchema) {
			s.add("MediaContent", obj{"anyOf": arr{s.ref("ImageContent"), s.ref("AudioContent")}})
			u := s.def("ContentBlock")
			var kept arr
			for _, v := range u["anyOf"].([]any) {
				if name, _ := s.refName(v.(map[string]any)["$ref"]); name != "ImageContent" && name != "AudioContent" {
					kept = append(kept, v)
				}
			}
			u["anyOf"] = append(kept, s.ref("MediaContent"))
		},
		samples: []mutSample{
			{def: "ContentBlock", json: `{"type":"image","data":"AAAA","mimeType":"image/png"}`, variant: "ImageContent"},
			{def: "MediaContent", json: `{"type":"audio","data":"AAAA","mimeType":"audio/wav"}`, variant: "AudioContent"},
			{def: "ContentBlock", json: `{"type":"text","text":"hi"}`, variant: "TextContent"},
		},
	},
	{
		// An optional nullable member (TypeScript's "x?: T | null"): absent,
		// null and a value are three states, each kept.
		name: "optional-nullable",
		// A generator feature, not a revision's: one or two bases are enough.
		revs: []string{"2026-07-28"},
		mutate: func(s *mutSchema) {
			s.setProp("Implementation", "website", obj{"type": arr{"string", "null"}, "description": "A web page, or null for none."})
		},
		samples: []mutSample{
			{def: "Implementation", json: `{"name":"n","version":"1"}`},
			{def: "Implementation", json: `{"name":"n","version":"1","website":null}`},
			{def: "Implementation", json: `{"name":"n","version":"1","website":"https://example.com"}`},
			{def: "Implementation", json: `{"name":"n","version":"1","website":7}`, reject: "website"},
		},
		uses: []string{"Implementation{Website: nil, WebsiteNull: true}"},
	},
	{
		// Enums that are not string enums: integers, and a mix with null.
		name: "enum-values",
		// A generator feature, not a revision's: one or two bases are enough.
		revs: []string{"2025-06-18"},
		mutate: func(s *mutSchema) {
			s.setProp("Implementation", "tier", obj{"type": "integer", "enum": arr{1, 2, 3}})
			s.setProp("Implementation", "channel", obj{"enum": arr{"stable", 7, nil}})
		},
		samples: []mutSample{
			{def: "Implementation", json: `{"name":"n","version":"1","tier":2,"channel":"stable"}`},
			{def: "Implementation", json: `{"name":"n","version":"1","channel":null}`},
			{def: "Implementation", json: `{"name":"n","version":"1","channel":7}`},
			{def: "Implementation", json: `{"name":"n","version":"1","tier":5}`, reject: "(enum)"},
			{def: "Implementation", json: `{"name":"n","version":"1","channel":"beta"}`, reject: "(enum)"},
		},
	},
	{
		// TypeScript's "X | null" as anyOf [X, {"type": "null"}]: X, nullable,
		// for a definition, a union of two, required and optional.
		name: "nullable-anyof",
		// A generator feature, not a revision's: one or two bases are enough.
		revs: []string{"2026-07-28"},
		mutate: func(s *mutSchema) {
			s.setProp("Implementation", "parent", obj{"anyOf": arr{s.ref("Implementation"), obj{"type": "null"}}})
			s.setProp("Implementation", "tag", obj{"anyOf": arr{obj{"type": "string"}, obj{"type": "integer"}, obj{"type": "null"}}})
			impl := s.def("Implementation")
			impl["required"] = append(impl["required"].([]any), "parent")
		},
		samples: []mutSample{
			{def: "Implementation", json: `{"name":"n","version":"1","parent":null}`},
			{def: "Implementation", json: `{"name":"n","version":"1","parent":{"name":"p","version":"2","parent":null},"tag":7}`},
			{def: "Implementation", json: `{"name":"n","version":"1","parent":null,"tag":null}`},
			{def: "Implementation", json: `{"name":"n","version":"1","parent":null,"tag":"x"}`},
			{def: "Implementation", json: `{"name":"n","version":"1"}`, reject: "parent"},
			{def: "Implementation", json: `{"name":"n","version":"1","parent":null,"tag":true}`, reject: "tag"},
		},
	},
	{
		// additionalProperties with a schema next to properties: the
		// members the object does not name are typed.
		name: "typed-extra",
		// A generator feature, not a revision's: one or two bases are enough.
		revs: []string{"2025-06-18"},
		mutate: func(s *mutSchema) {
			s.def("Implementation")["additionalProperties"] = obj{"type": "integer", "minimum": 0}
		},
		samples: []mutSample{
			{def: "Implementation", json: `{"name":"n","version":"1","build":42,"patch":0}`},
			{def: "Implementation", json: `{"name":"n","version":"1","build":"42"}`, reject: "build"},
			{def: "Implementation", json: `{"name":"n","version":"1","build":-1}`, reject: "(minimum)"},
		},
		uses: []string{"Implementation{Extra: map[string]int64{\"build\": 1}}"},
	},
	{
		// Constants factored into definitions: "jsonrpc" and a request's
		// "method" refer to {"const": …} definitions instead of inlining them.
		name: "const-refs",
		// A generator feature, not a revision's: one or two bases are enough.
		revs: []string{"2025-06-18", "2026-07-28"},
		mutate: func(s *mutSchema) {
			s.add("JSONRPCVersion", obj{"type": "string", "const": "2.0"})
			s.add("ToolsCallMethod", obj{"type": "string", "const": "tools/call"})
			walkJSON(s.doc, func(m map[string]any) {
				if c, ok := m["const"]; ok && c == "2.0" && m["type"] == "string" {
					delete(m, "const")
					delete(m, "type")
					m["$ref"] = s.ref("JSONRPCVersion")["$ref"]
				}
			})
			s.defs()["JSONRPCVersion"] = obj{"type": "string", "const": "2.0"} // the walk made it refer to itself
			s.props("CallToolRequest")["method"] = s.ref("ToolsCallMethod")
		},
		samples: []mutSample{
			{def: "CallToolRequest", json: `{"method":"tools/call","params":{"name":"echo"}}`, skipIn: modern},
			{def: "ClientRequest", json: `{"method":"tools/call","params":{"name":"echo"}}`, variant: "CallToolRequest", skipIn: modern},
			{def: "CallToolRequest", json: `{"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo"}}`, revs: modern},
			{def: "CallToolRequest", json: `{"method":"tools/list","params":{"name":"echo"}}`, reject: "method"},
		},
		// The method table comes from ClientRequest, whose members must be
		// messages: generating at all shows the $ref'd method is seen.
		uses: []string{"MethodToolsCall"},
	},
	{
		// A result union without the open Result: decoded alone, the first
		// variant that decodes (responses go through the method table).
		name: "result-union-closed",
		revs: []string{"2026-07-28"},
		mutate: func(s *mutSchema) {
			u := s.def("ServerResult")
			var kept arr
			for _, v := range u["anyOf"].([]any) {
				if name, _ := s.refName(v.(map[string]any)["$ref"]); name != "Result" {
					kept = append(kept, v)
				}
			}
			u["anyOf"] = kept
		},
		samples: []mutSample{
			{def: "ServerResult", json: `{"resultType":"input_required","requestState":"s"}`, variant: "InputRequiredResult"},
			{def: "ServerResult", json: `[]`, reject: "ServerResult"},
		},
	},
	{
		// allOf with a part that only narrows: {"required": [...]}.
		name: "allof-narrowing",
		// A generator feature, not a revision's: one or two bases are enough.
		revs: []string{"2025-11-25"},
		mutate: func(s *mutSchema) {
			s.add("TitledTool", obj{"allOf": arr{s.ref("Tool"), obj{"required": arr{"title"}}}})
		},
		samples: []mutSample{
			{def: "TitledTool", json: `{"name":"t","title":"T","inputSchema":{"type":"object"}}`},
			{def: "TitledTool", json: `{"name":"t","inputSchema":{"type":"object"}}`, reject: "title"},
		},
	},
	{
		// The ready-made server names Prompt; without it the package still
		// builds, without StandardServer.
		name: "rename-template-name",
		// A generator feature, not a revision's: one or two bases are enough.
		revs: []string{"2025-11-25"},
		mutate: func(s *mutSchema) {
			s.rename("Prompt", "PromptDefinition")
		},
		samples: []mutSample{
			{def: "PromptDefinition", json: `{"name":"p","arguments":[{"name":"a","required":true}]}`},
		},
		noDefs: []string{"Prompt"},
		uses:   []string{"func(s *ClientSession, ctx context.Context) iter.Seq2[PromptDefinition, error] { return s.AllPrompts(ctx) }"},
	},
	{
		// The result of FetchWidgetsRequest would be FetchWidgetsResult, which
		// does not exist, and no hand table pairs it with WidgetsPayload.
		name: "result-unpaired",
		mutate: func(s *mutSchema) {
			s.clone("ListToolsRequest", "FetchWidgetsRequest")
			s.setConst("FetchWidgetsRequest", "method", "widgets/fetch")
			s.addVariant("ClientRequest", "FetchWidgetsRequest")
			s.clone("ListToolsResult", "WidgetsPayload")
			s.addVariant("ServerResult", "WidgetsPayload")
		},
		fails: []string{`method "widgets/fetch"`, "FetchWidgetsResult", "#/{defs}/FetchWidgetsRequest"},
	},
	{
		// The 2026-07-28 shape: the server sends no requests, so the schema has
		// no ServerRequest; the requests only it listed go too.
		name: "no-server-request",
		revs: []string{"2025-11-25"},
		mutate: func(s *mutSchema) {
			s.remove("ServerRequest")
			for _, r := range []string{"CreateMessageRequest", "ListRootsRequest", "ElicitRequest"} {
				s.remove(r)
			}
		},
		samples: []mutSample{
			{def: "ClientRequest", json: `{"method":"ping"}`, variant: "PingRequest"},
			{def: "ListRootsResult", json: `{"roots":[{"uri":"file:///tmp"}]}`},
		},
		methods: []mutMethod{
			{name: "ping", direction: "client→server", message: "PingRequest", results: []string{"EmptyResult"}},
			{name: "tasks/get", direction: "client→server", message: "GetTaskRequest", results: []string{"GetTaskResult"}, gate: "tasks", gateSide: "receiver"},
		},
		noDefs:    []string{"ServerRequest", "CreateMessageRequest"},
		noMethods: []string{"roots/list", "sampling/createMessage", "elicitation/create"},
	},
}

// The mutations of the Tasks extension's schema (tasksBase): what its next
// draft might do. Zod spells a union of statuses, and each status variant,
// again wherever it is used; the mutations change every copy, as a new
// draft would.
var extensionMutations = []mutation{
	{
		// A sixth status, with its variant wherever the variants are
		// spelled: the enum, the hoisted copies and the status unions gain
		// it with nothing added by hand.
		name: "ext-status",
		revs: []string{tasksBase},
		mutate: func(s *mutSchema) {
			statuses, variants := 0, 0
			walkJSON(s.doc, func(m map[string]any) {
				list, ok := m["anyOf"].([]any)
				if !ok || len(list) == 0 {
					return
				}
				first, _ := list[0].(map[string]any)
				switch {
				case first["const"] == "working" && len(list) == 5:
					m["anyOf"] = append(list, obj{"type": "string", "const": "paused"})
					statuses++
				case statusConst(first) == "working":
					paused := deepCopy(first).(map[string]any)
					paused["properties"].(map[string]any)["status"] = obj{"type": "string", "const": "paused"}
					m["anyOf"] = append(list, paused)
					variants++
				}
			})
			paused := s.clone("WorkingTask", "PausedTask")
			paused["properties"].(map[string]any)["status"] = obj{"type": "string", "const": "paused"}
			if statuses < 3 || variants < 4 {
				s.t.Fatalf("%s: %d status enums and %d status unions changed; the schema is not what the mutation expects", s.rev, statuses, variants)
			}
		},
		samples: []mutSample{
			{def: "TaskStatus", json: `"paused"`},
			{def: "Task", json: `{"taskId":"t","status":"paused","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`},
			{def: "CreateTaskResult", json: `{"resultType":"task","taskId":"t","status":"paused","createdAt":"a","lastUpdatedAt":"b","ttlMs":5}`},
			{def: "DetailedTask", json: `{"taskId":"t","status":"paused","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`, variant: "PausedTask"},
			{def: "DetailedTask", json: `{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":1}`, variant: "WorkingTask"},
			{def: "GetTaskResult", json: `{"resultType":"complete","taskId":"t","status":"paused","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`},
			{def: "TaskStatusNotificationParams", json: `{"taskId":"t","status":"paused","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`},
			{def: "DetailedTask", json: `{"taskId":"t","status":"stopped","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`, reject: "stopped"},
			{def: "Task", json: `{"taskId":"t","status":"stopped","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`, reject: "stopped"},
		},
		uses: []string{"TaskStatusPaused", "DetailedTaskValue((*PausedTask)(nil))", "GetTaskResultValue((*GetTaskResultPausedTask)(nil))"},
	},
	{
		// A new request, answered by its result (paired by name), with a
		// typed call through any Caller.
		name: "ext-method",
		revs: []string{tasksBase},
		mutate: func(s *mutSchema) {
			s.clone("CancelTaskRequest", "PurgeTaskRequest")
			s.setBranchConst("PurgeTaskRequest", "method", "tasks/purge")
			s.clone("CancelTaskResult", "PurgeTaskResult")
		},
		samples: []mutSample{
			{def: "PurgeTaskRequest", json: `{"method":"tasks/purge","params":{"taskId":"t"}}`},
			{def: "PurgeTaskResult", json: `{"resultType":"complete"}`},
			{def: "PurgeTaskRequest", json: `{"method":"tasks/cancel","params":{"taskId":"t"}}`, reject: "tasks/purge"},
			{def: "PurgeTaskRequest", json: `{"method":"tasks/purge","params":{}}`, reject: "taskId"},
		},
		methods: []mutMethod{
			{name: "tasks/purge", direction: "client→server", message: "PurgeTaskRequest", results: []string{"PurgeTaskResult"}},
			{name: "tasks/cancel", direction: "client→server", message: "CancelTaskRequest", results: []string{"CancelTaskResult"}},
		},
		uses: []string{
			"MethodTasksPurge",
			`func(ctx context.Context, c Caller) (*PurgeTaskResult, error) { return PurgeTask(ctx, c, &PurgeTaskRequestParams{TaskID: "t"}) }`,
		},
	},
	{
		// A new notification: a message without an id, sent by the server.
		name: "ext-notification",
		revs: []string{tasksBase},
		mutate: func(s *mutSchema) {
			s.add("TaskProgressNotification", obj{
				"$schema": "https://json-schema.org/draft/2020-12/schema",
				"allOf": arr{s.ref("JSONRPCNotification"), obj{
					"type": "object",
					"properties": obj{
						"method": obj{"type": "string", "const": "notifications/tasks/progress"},
						"params": obj{
							"type":       "object",
							"properties": obj{"taskId": obj{"type": "string"}, "progress": obj{"type": "number"}},
							"required":   arr{"taskId", "progress"},
						},
					},
					"required": arr{"method", "params"},
				}},
			})
		},
		samples: []mutSample{
			{def: "TaskProgressNotification", json: `{"method":"notifications/tasks/progress","params":{"taskId":"t","progress":0.5}}`},
			{def: "TaskProgressNotification", json: `{"method":"notifications/tasks/progress","params":{"taskId":"t"}}`, reject: "progress"},
		},
		methods: []mutMethod{
			{name: "notifications/tasks/progress", notification: true, direction: "server→client", message: "TaskProgressNotification"},
		},
	},
	{
		// The capability, closed by additionalProperties {"not": {}}, gains
		// a member: still closed to any other.
		name: "ext-capability-member",
		revs: []string{tasksBase},
		mutate: func(s *mutSchema) {
			s.def("TasksExtensionCapability")["properties"] = obj{"notifications": obj{"type": "boolean"}}
		},
		samples: []mutSample{
			{def: "TasksExtensionCapability", json: `{}`},
			{def: "TasksExtensionCapability", json: `{"notifications":true}`},
			{def: "TasksExtensionCapability", json: `{"notifications":true,"list":{}}`, reject: "list"},
		},
		uses: []string{"TasksExtensionCapability{}.Notifications"},
	},
	{
		// ttlMs no longer required: absent, null and a number are three
		// states, each kept.
		name: "ext-ttl-optional",
		revs: []string{tasksBase},
		mutate: func(s *mutSchema) {
			n := 0
			walkJSON(s.doc, func(m map[string]any) {
				if req, ok := m["required"].([]any); ok && slices.Contains(req, any("ttlMs")) {
					m["required"] = slices.DeleteFunc(slices.Clone(req), func(v any) bool { return v == "ttlMs" })
					n++
				}
			})
			if n == 0 {
				s.t.Fatalf("%s: nothing requires ttlMs", s.rev)
			}
		},
		samples: []mutSample{
			{def: "Task", json: `{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b"}`},
			{def: "Task", json: `{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`},
			{def: "Task", json: `{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":60000}`},
			{def: "GetTaskResult", json: `{"resultType":"complete","taskId":"t","status":"cancelled","createdAt":"a","lastUpdatedAt":"b"}`},
			{def: "Task", json: `{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":1.5}`, reject: "ttlMs"},
		},
	},
	{
		// A redefinition of a core type that differs from it: refused,
		// naming the definition, the place and both shapes.
		name: "ext-redefinition-differs",
		revs: []string{tasksBase},
		mutate: func(s *mutSchema) {
			s.prop("Error", "code")["type"] = "number"
		},
		fails: []string{"#/{defs}/Error", "redefines the core 2026-07-28 definition Error", "/properties/code/type", `extension {"type":"number"}`, `core {"type":"integer"}`},
	},
	{
		// A message of the extension whose method is the core's.
		name: "ext-core-method",
		revs: []string{tasksBase},
		mutate: func(s *mutSchema) {
			s.clone("GetTaskRequest", "CallToolAgainRequest")
			s.setBranchConst("CallToolAgainRequest", "method", "tools/call")
		},
		fails: []string{"#/{defs}/CallToolAgainRequest", `"tools/call" is a method of the core revision 2026-07-28`},
	},
}

// statusConst returns the const of the member status of an object schema,
// if it is one.
func statusConst(m map[string]any) any {
	props, _ := m["properties"].(map[string]any)
	status, _ := props["status"].(map[string]any)
	return status["const"]
}

// addWidgetsList adds the request widgets/list, shaped like tools/list
// (paginated params), and its result ListWidgetsResult, listing Widget
// objects.
func addWidgetsList(s *mutSchema) {
	req := s.clone("ListToolsRequest", "ListWidgetsRequest")
	req["description"] = "Sent from the client to request a list of widgets the server has."
	s.setConst("ListWidgetsRequest", "method", "widgets/list")
	s.addVariant("ClientRequest", "ListWidgetsRequest")
	s.add("Widget", obj{
		"description": "A widget the server offers.",
		"type":        "object",
		"properties": obj{
			"name":  obj{"type": "string"},
			"title": obj{"type": "string"},
		},
		"required": arr{"name"},
	})
	res := s.clone("ListToolsResult", "ListWidgetsResult")
	res["description"] = "The server's response to a widgets/list request from the client."
	props := s.props("ListWidgetsResult")
	if _, ok := props["tools"]; !ok {
		s.t.Fatalf("%s: ListToolsResult has no member tools", s.rev)
	}
	delete(props, "tools")
	props["widgets"] = obj{"type": "array", "items": s.ref("Widget")}
	res["required"] = arr{"widgets"}
	s.addVariant("ServerResult", "ListWidgetsResult")
}

// mutSchema is an official schema decoded as generic JSON, with the helpers
// the mutations use. They fail the test when the base lacks what they change.
type mutSchema struct {
	t       testing.TB
	rev     string
	doc     map[string]any
	defsKey string // "definitions" (draft-07) or "$defs" (2020-12)
}

func (s *mutSchema) defs() map[string]any {
	d, ok := s.doc[s.defsKey].(map[string]any)
	if !ok {
		s.t.Fatalf("%s: the schema has no %q object", s.rev, s.defsKey)
	}
	return d
}

// def returns the definition called name.
func (s *mutSchema) def(name string) map[string]any {
	d, ok := s.defs()[name].(map[string]any)
	if !ok {
		s.t.Fatalf("%s: no definition %s", s.rev, name)
	}
	return d
}

// ref returns a reference to the definition called name.
func (s *mutSchema) ref(name string) map[string]any {
	return obj{"$ref": "#/" + s.defsKey + "/" + name}
}

func (s *mutSchema) refName(v any) (string, bool) {
	r, ok := v.(string)
	if !ok {
		return "", false
	}
	return strings.CutPrefix(r, "#/"+s.defsKey+"/")
}

// add adds the definition name, which must be new.
func (s *mutSchema) add(name string, def map[string]any) {
	if _, ok := s.defs()[name]; ok {
		s.t.Fatalf("%s: definition %s exists already", s.rev, name)
	}
	s.defs()[name] = def
}

// clone adds the definition to as a deep copy of from, and returns it.
func (s *mutSchema) clone(from, to string) map[string]any {
	c := deepCopy(s.def(from)).(map[string]any)
	s.add(to, c)
	return c
}

// props returns the properties of the definition called name.
func (s *mutSchema) props(name string) map[string]any {
	p, ok := s.def(name)["properties"].(map[string]any)
	if !ok {
		s.t.Fatalf("%s: definition %s has no properties", s.rev, name)
	}
	return p
}

// prop returns the schema of the member prop of the definition called name.
func (s *mutSchema) prop(name, prop string) map[string]any {
	p, ok := s.props(name)[prop].(map[string]any)
	if !ok {
		s.t.Fatalf("%s: definition %s has no member %s", s.rev, name, prop)
	}
	return p
}

// setProp adds the member prop to the definition called name.
func (s *mutSchema) setProp(name, prop string, schema map[string]any) {
	props := s.props(name)
	if _, ok := props[prop]; ok {
		s.t.Fatalf("%s: definition %s has a member %s already", s.rev, name, prop)
	}
	props[prop] = schema
}

// setBranchConst changes the value of the constant member prop of the
// object branch of the allOf of the definition called name (an
// extension's messages are allOf a JSON-RPC message and such an object).
func (s *mutSchema) setBranchConst(name, prop string, value any) {
	subs, _ := s.def(name)["allOf"].([]any)
	for _, sub := range subs {
		props, _ := sub.(map[string]any)["properties"].(map[string]any)
		if p, ok := props[prop].(map[string]any); ok && p["const"] != nil {
			p["const"] = value
			return
		}
	}
	s.t.Fatalf("%s: no allOf branch of %s has a constant member %s", s.rev, name, prop)
}

// setConst changes the value of the constant member prop.
func (s *mutSchema) setConst(name, prop string, value any) {
	p := s.prop(name, prop)
	if _, ok := p["const"]; !ok {
		s.t.Fatalf("%s: member %s of %s is not a constant", s.rev, prop, name)
	}
	p["const"] = value
}

// addVariant adds a reference to the definition variant to the anyOf of the
// definition union.
func (s *mutSchema) addVariant(union, variant string) {
	u := s.def(union)
	list, ok := u["anyOf"].([]any)
	if !ok {
		s.t.Fatalf("%s: definition %s is not an anyOf", s.rev, union)
	}
	u["anyOf"] = append(list, s.ref(variant))
}

// rename renames the definition from and every reference to it.
func (s *mutSchema) rename(from, to string) {
	def := s.def(from)
	delete(s.defs(), from)
	s.add(to, def)
	n := 0
	walkJSON(s.doc, func(m map[string]any) {
		if name, ok := s.refName(m["$ref"]); ok && name == from {
			m["$ref"] = s.ref(to)["$ref"]
			n++
		}
	})
	if n == 0 {
		s.t.Fatalf("%s: nothing refers to %s", s.rev, from)
	}
}

// remove deletes the definition name and drops the references to it from
// every anyOf and oneOf; a reference anywhere else fails the test.
func (s *mutSchema) remove(name string) {
	s.def(name)
	delete(s.defs(), name)
	isRef := func(v any) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		n, ok := s.refName(m["$ref"])
		return ok && n == name
	}
	walkJSON(s.doc, func(m map[string]any) {
		for _, k := range []string{"anyOf", "oneOf"} {
			if list, ok := m[k].([]any); ok {
				m[k] = slices.DeleteFunc(list, isRef)
			}
		}
	})
	walkJSON(s.doc, func(m map[string]any) {
		if isRef(m) {
			s.t.Fatalf("%s: %s is still referred to outside a union after its removal", s.rev, name)
		}
	})
}

// walkJSON calls f on every object in v, parents first.
func walkJSON(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkJSON(v[k], f)
		}
	case []any:
		for _, e := range v {
			walkJSON(e, f)
		}
	}
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// officialSchema returns the materialized official schema of rev (a
// revision, or an extension's pin such as ext-tasks), failing the test if
// it is missing or does not match its pin.
func officialSchema(t *testing.T, rev string) []byte {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	path := schema.Path(root, rev)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the official schema of %s is missing: %v; materialize it with `go run ./cmd/mcpgen schema` from the repository root (scripts/test does)", rev, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	pin, err := schema.Lookup(rev)
	if err != nil {
		pin, err = schema.LookupExtension(rev)
	}
	if err == nil {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != pin.SHA256 {
			t.Fatalf("%s has sha256 %s, but its pin says %s; materialize it again with `go run ./cmd/mcpgen schema`", path, got, pin.SHA256)
		}
	}
	return data
}

// decodeSchema decodes an official schema as generic JSON.
func decodeSchema(t *testing.T, rev string, data []byte) *mutSchema {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", rev, err)
	}
	s := &mutSchema{t: t, rev: rev, doc: doc}
	switch {
	case doc["$defs"] != nil:
		s.defsKey = "$defs"
	case doc["definitions"] != nil:
		s.defsKey = "definitions"
	default:
		t.Fatalf("%s: the schema has neither $defs nor definitions", rev)
	}
	return s
}

// mutant is one mutation applied to one base revision.
type mutant struct {
	m     *mutation
	rev   string
	pkg   string           // Go package name and directory in the module
	files []generator.File // the generated package, for a mutant that builds
}

func (mu *mutant) name() string { return mu.m.name + "/" + mu.rev }

func TestMutations(t *testing.T) {
	start := time.Now()
	bases := map[string][]byte{}
	var mutants []*mutant
	all := append(slices.Clone(mutations), extensionMutations...)
	for i := range all {
		m := &all[i]
		revs := m.revs
		if revs == nil {
			revs = mutationBases
		}
		for _, rev := range revs {
			if bases[rev] == nil {
				bases[rev] = officialSchema(t, rev)
			}
			pkg := "mut" + strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, strings.ToLower(m.name+rev))
			mutants = append(mutants, &mutant{m: m, rev: rev, pkg: pkg})
		}
	}

	// Generate every mutant in-process, in parallel: each has its own
	// decoded schema and output.
	t.Run("generate", func(t *testing.T) {
		for _, mu := range mutants {
			t.Run(mu.name(), func(t *testing.T) {
				t.Parallel()
				s := decodeSchema(t, mu.rev, bases[mu.rev])
				mu.m.mutate(s)
				data, err := json.MarshalIndent(s.doc, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "schema.json")
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				cfg := generator.Config{Revision: mu.rev, SchemaPath: path, Package: mu.pkg}
				if pin, err := schema.LookupExtension(mu.rev); err == nil {
					// An extension's schema, bound to its core revision.
					root, err := filepath.Abs(repoRoot)
					if err != nil {
						t.Fatal(err)
					}
					officialSchema(t, pin.Core)
					cfg.Revision = pin.Core
					cfg.Extension = &generator.Extension{ID: pin.ID, CoreSchemaPath: schema.Path(root, pin.Core)}
				}
				files, err := generator.Generate(cfg)
				if mu.m.fails != nil {
					if err == nil {
						t.Fatalf("generated %d files; want an error containing %q", len(files), mu.m.fails)
					}
					for _, want := range mu.m.fails {
						want = strings.ReplaceAll(want, "{defs}", s.defsKey)
						if !strings.Contains(err.Error(), want) {
							t.Errorf("error %q does not contain %q", err, want)
						}
					}
					return
				}
				if err != nil {
					t.Fatalf("generate: %v", err)
				}
				test, err := mutantTest(mu)
				if err != nil {
					t.Fatal(err)
				}
				mu.files = append(files, generator.File{Name: "mutant_test.go", Content: test})
			})
		}
	})
	var built []*mutant
	for _, mu := range mutants {
		if mu.files != nil {
			built = append(built, mu)
		}
	}
	t.Logf("generated %d mutants in %v", len(mutants), time.Since(start).Round(time.Millisecond))
	if len(built) == 0 {
		return
	}

	// Build and test every mutant that generated, in one go test run.
	t.Run("build", func(t *testing.T) {
		if testing.Short() {
			t.Skip("compiling the mutants is skipped in -short mode")
		}
		results := runMutants(t, built)
		for _, mu := range built {
			t.Run(mu.name(), func(t *testing.T) {
				r := results.pkgs[mu.pkg]
				switch {
				case r == nil:
					t.Errorf("go test reported nothing for package %s:\n%s", mu.pkg, results.other)
				case r.action != "pass":
					// The package's own output, and what go test said of
					// the module as a whole.
					verdict := r.action
					if verdict == "" {
						verdict = "no result"
					}
					t.Errorf("package %s: %s\n%s%s", mu.pkg, verdict, r.output.String(), results.other)
				}
			})
		}
	})
	t.Logf("the whole corpus: %v", time.Since(start).Round(time.Millisecond))
}

// pkgResult is what go test -json said of one package.
type pkgResult struct {
	action string // "pass", "fail", "skip", or "" if it never said
	output strings.Builder
}

type mutantResults struct {
	pkgs  map[string]*pkgResult // by package name
	other string                // output not attributed to a mutant, mutcheck's if it failed, and the go command's stderr
}

// runMutants writes the mutants into one module that requires this
// repository and runs "go test -json ./..." over it once.
func runMutants(t *testing.T, mutants []*mutant) *mutantResults {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the mutants: %v", err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	write := func(rel string, data []byte) {
		t.Helper()
		path := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module mutants\n\ngo 1.25\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => "+strconv.Quote(root)+"\n"))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", sum)
	write("mutcheck/mutcheck.go", []byte(mutcheckSource))
	for _, mu := range mutants {
		for _, f := range mu.files {
			write(mu.pkg+"/"+f.Name, f.Content)
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), mutantTimeout)
	defer cancel()
	// -vet=off: vet would cost a third of the run, and the emitted code
	// shapes are vetted by TestGoldenCases and "go vet ./..." of the protocol
	// packages.
	cmd := exec.CommandContext(ctx, goTool, "test", "-json", "-count=1", "-vet=off", "./...")
	cmd.Dir = tmp
	// The module's own settings, whatever the caller's: no -race (or other
	// flags) from GOFLAGS, no network, no enclosing go.work.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	runErr := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("go test of the mutants timed out after %v:\n%s%s", mutantTimeout, stdout.String(), stderr.String())
	}
	t.Logf("go test of %d mutants: %v", len(mutants), time.Since(start).Round(time.Millisecond))

	res := &mutantResults{pkgs: map[string]*pkgResult{}}
	var other strings.Builder
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Action     string
			Package    string
			ImportPath string // of build output: "mutants/p [mutants/p.test]"
			Test       string
			Output     string
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			other.WriteString(sc.Text() + "\n")
			continue
		}
		pkg := ev.Package
		if pkg == "" {
			pkg, _, _ = strings.Cut(ev.ImportPath, " ")
		}
		name, ok := strings.CutPrefix(pkg, "mutants/")
		if !ok {
			other.WriteString(ev.Output)
			continue
		}
		r := res.pkgs[name]
		if r == nil {
			r = &pkgResult{}
			res.pkgs[name] = r
		}
		r.output.WriteString(ev.Output)
		if ev.Test == "" && ev.Package != "" && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip") {
			r.action = ev.Action
		}
	}
	// mutcheck has no tests: "skip" is its success.
	if r := res.pkgs["mutcheck"]; r == nil || r.action != "skip" {
		if r != nil {
			other.WriteString(r.output.String())
		} else {
			other.WriteString("go test reported nothing for package mutcheck\n")
		}
	}
	other.Write(stderr.Bytes())
	if runErr != nil {
		fmt.Fprintf(&other, "go test: %v\n", runErr)
	}
	res.other = other.String()
	return res
}

// mutcheckSource is the package of the mutants' tests that does the checks,
// compiled once for all of them.
const mutcheckSource = `// Package mutcheck checks a generated mutant package.
package mutcheck

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Sample is a JSON value of the definition Def.
type Sample struct {
	Def, JSON, Variant, Reject string
}

// Method is what LookupMethod must say of a method.
type Method struct {
	Name         string
	Notification bool
	Direction    string
	Message      string
	Results      []string
	Gate         string
	GateSide     string
}

func value(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// RoundTrip decodes every sample with the strict decoder of its definition,
// encodes it again and compares the two as JSON values.
func RoundTrip(t *testing.T, newDef func(string) (wire.Codec, bool), samples []Sample) {
	for _, s := range samples {
		name := s.Def
		if s.Reject != "" {
			name += "/reject"
		}
		t.Run(name, func(t *testing.T) {
			v, ok := newDef(s.Def)
			if !ok {
				t.Fatalf("New(%q): the package has no such definition", s.Def)
			}
			err := wire.Unmarshal([]byte(s.JSON), v)
			if s.Reject != "" {
				if err == nil {
					t.Fatalf("%s decoded %s; want an error containing %q", s.Def, s.JSON, s.Reject)
				}
				if !strings.Contains(err.Error(), s.Reject) {
					t.Fatalf("%s: decoding %s: error %q does not contain %q", s.Def, s.JSON, err, s.Reject)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: decode %s: %v", s.Def, s.JSON, err)
			}
			out, err := wire.Marshal(v)
			if err != nil {
				t.Fatalf("%s: encode: %v", s.Def, err)
			}
			if got, want := value(t, out), value(t, []byte(s.JSON)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: round trip\n got %s\nwant %s", s.Def, out, s.JSON)
			}
			if s.Variant != "" {
				want, ok := newDef(s.Variant)
				if !ok {
					t.Fatalf("New(%q): the package has no such definition", s.Variant)
				}
				rv := reflect.ValueOf(v).Elem()
				f := rv.FieldByName("Value")
				if rv.Kind() != reflect.Struct || !f.IsValid() || f.Kind() != reflect.Interface {
					t.Fatalf("%s is a %T, not a union", s.Def, v)
				}
				if f.IsNil() || f.Elem().Type() != reflect.TypeOf(want) {
					t.Errorf("%s: decoded %s as %v, want %T (%s)", s.Def, s.JSON, f, want, s.Variant)
				}
			}
		})
	}
}

// Methods checks the method table.
func Methods(t *testing.T, lookup func(string) (wire.Method, bool), want []Method, absent []string) {
	for _, w := range want {
		m, ok := lookup(w.Name)
		if !ok {
			t.Errorf("LookupMethod(%q): no such method", w.Name)
			continue
		}
		got := Method{m.Name, m.Notification, m.Direction.String(), m.Message, m.Results, m.Gate, m.GateSide}
		if len(got.Results) == 0 {
			got.Results = nil
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("LookupMethod(%q)\n got %+v\nwant %+v", w.Name, got, w)
		}
		if len(m.NewResult) != len(m.Results) {
			t.Errorf("LookupMethod(%q): %d NewResult functions for %d results", w.Name, len(m.NewResult), len(m.Results))
		}
	}
	for _, name := range absent {
		if _, ok := lookup(name); ok {
			t.Errorf("LookupMethod(%q): the method exists; want it gone", name)
		}
	}
}

// Absent checks that New knows none of defs.
func Absent(t *testing.T, newDef func(string) (wire.Codec, bool), defs []string) {
	for _, d := range defs {
		if v, ok := newDef(d); ok {
			t.Errorf("New(%q) = %T; want no such definition", d, v)
		}
	}
}
`

// mutantTest returns the test file of a mutant that builds: its samples,
// method expectations and uses, checked by package mutcheck.
func mutantTest(mu *mutant) ([]byte, error) {
	var b strings.Builder
	q := strconv.Quote
	qs := func(l []string) string {
		if len(l) == 0 {
			return "nil"
		}
		var parts []string
		for _, s := range l {
			parts = append(parts, q(s))
		}
		return "[]string{" + strings.Join(parts, ", ") + "}"
	}
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"iter\"\n\t\"testing\"\n\n\t\"mutants/mutcheck\"\n)\n\n", mu.pkg)
	b.WriteString("var (\n\t_ context.Context\n\t_ iter.Seq[int]\n)\n\n")
	for _, u := range mu.m.uses {
		fmt.Fprintf(&b, "var _ = %s\n\n", u)
	}
	fmt.Fprintf(&b, "// TestMutant checks mutation %s of %s.\nfunc TestMutant(t *testing.T) {\n", q(mu.m.name), mu.rev)
	b.WriteString("\tmutcheck.RoundTrip(t, New, []mutcheck.Sample{\n")
	for _, s := range mu.m.samples {
		if !s.applies(mu.rev) {
			continue
		}
		fmt.Fprintf(&b, "\t\t{Def: %s, JSON: %s, Variant: %s, Reject: %s},\n", q(s.def), q(s.json), q(s.variant), q(s.reject))
	}
	b.WriteString("\t})\n\tmutcheck.Methods(t, LookupMethod, []mutcheck.Method{\n")
	for _, m := range mu.m.methods {
		fmt.Fprintf(&b, "\t\t{Name: %s, Notification: %t, Direction: %s, Message: %s, Results: %s, Gate: %s, GateSide: %s},\n",
			q(m.name), m.notification, q(m.direction), q(m.message), qs(m.results), q(m.gate), q(m.gateSide))
	}
	fmt.Fprintf(&b, "\t}, %s)\n\tmutcheck.Absent(t, New, %s)\n}\n", qs(mu.m.noMethods), qs(mu.m.noDefs))
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("the test of mutant %s is not Go: %w\n%s", mu.name(), err, b.String())
	}
	return src, nil
}
