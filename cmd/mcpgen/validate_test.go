package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/schematest"
)

// runValidateWith runs mcpgen validate with stdin.
func runValidateWith(stdin string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"validate"}, args...), strings.NewReader(stdin), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

const (
	validPing   = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	invalidCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":1}}`
	// audioCall is a tools/call and its answer, an audio block: content
	// 2025-03-26 has and 2024-11-05 does not.
	audioCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chime"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}]}}`
)

// captured is a captured 2025-11-25 session, all valid.
const captured = "../../runtime/validate/testdata/session-2025-11-25.jsonl"

// capturedModern is a captured 2026-07-28 session, all valid.
const capturedModern = "../../runtime/validate/testdata/session-2026-07-28.jsonl"

// 2026-07-28 messages: every request carries its version and capabilities
// in _meta.
const (
	modernMeta     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	modernList     = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`
	modernNoMeta   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`
	modernEmbedded = `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`
	modernCall     = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + modernMeta + `,"name":"t"}}`
)

func TestValidateCommand(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", validPing)
	bad := write("bad.jsonl", validPing+"\n"+invalidCall+"\n")
	schemaFile := write("schema.json", string(mustSchema(t)))
	brokenRef := write("broken-ref.json", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"$ref":"#/definitions/Missing"},"JSONRPCRequest":{"type":"object"}}}`)
	brokenRegex := write("broken-regex.json", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"type":"string","pattern":"(["},"JSONRPCRequest":{"type":"object"}}}`)
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantStdout []string // substrings
		wantStderr string   // substring
	}{
		{"help", "", []string{"--help"}, 0, []string{"--revision", "--schema", "--from", "--format", "JSON Lines", "Exit status"}, ""},
		{"stdin valid", validPing, []string{"--revision", "2025-11-25"}, 0, []string{"1 valid, 0 invalid"}, ""},
		{"stdin invalid", invalidCall, []string{"--revision", "2025-11-25"}, 1, []string{"stdin:1: message 0 (request tools/call id 2): /params/name: expected string, but got number", "0 valid, 1 invalid"}, ""},
		{"file valid", "", []string{"--revision", "2025-11-25", good}, 0, []string{"1 valid, 0 invalid"}, ""},
		{"captured session", "", []string{"--revision", "2025-11-25", captured}, 0, []string{"13 valid, 0 invalid"}, ""},
		{"json lines", "", []string{"--revision", "2025-06-18", bad}, 1, []string{bad + ":2: message 1 (request tools/call id 2): /params/name:", "1 valid, 1 invalid"}, ""},
		{"verbose", "", []string{"--revision", "2025-06-18", "-v", bad}, 1, []string{bad + ":1: message 0 (request ping id 1): valid"}, ""},
		{"several files", "", []string{"--revision", "2025-11-25", good, good}, 0, []string{"2 valid, 0 invalid"}, ""},
		{"dash is stdin", invalidCall, []string{"--revision", "2025-11-25", good, "-"}, 1, []string{"stdin:1:", "1 valid, 1 invalid"}, ""},
		{"batch not in revision", "[" + validPing + "]", []string{"--revision", "2025-06-18"}, 1, []string{"batch element 0", "has no batches"}, ""},
		{"batch in 2025-03-26", "[" + validPing + "]", []string{"--revision", "2025-03-26"}, 0, []string{"1 valid, 0 invalid"}, ""},
		{"no batch in 2024-11-05", "[" + validPing + "]", []string{"--revision", "2024-11-05"}, 1, []string{"revision 2024-11-05 has no batches", "0 valid, 1 invalid"}, ""},
		{"audio in 2025-03-26", audioCall, []string{"--revision", "2025-03-26"}, 0, []string{"2 valid, 0 invalid"}, ""},
		{"no audio in 2024-11-05", audioCall, []string{"--revision", "2024-11-05"}, 1, []string{"stdin:2: message 1 (response tools/call id 2): /result/content/0/type: value must be \"text\"", "1 valid, 1 invalid"}, ""},
		{"wrong direction", `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, []string{"--revision", "2025-11-25", "--from", "client"}, 1, []string{"/method: \"roots/list\" is sent by the server, not by the client"}, ""},
		{"duplicate key", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, []string{"--revision", "2025-11-25"}, 1, []string{"/id: duplicate member name"}, ""},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", []string{"--revision", "2025-11-25"}, 1, []string{"/id: invalid UTF-8"}, ""},
		{"not JSON is invalid, not unreadable", "{nope\n" + validPing + "\n", []string{"--revision", "2025-11-25"}, 1, []string{"stdin:1: message 0 (invalid)", "1 valid, 1 invalid"}, ""},
		{"schema file", validPing, []string{"--revision", "2099-01-01", "--schema", schemaFile}, 0, []string{"1 valid, 0 invalid"}, ""},
		{"modern captured session", "", []string{"--revision", "2026-07-28", capturedModern}, 0, []string{"15 valid, 0 invalid"}, ""},
		{"modern tools/list", modernList, []string{"--revision", "2026-07-28", "--from", "client"}, 0, []string{"1 valid, 0 invalid"}, ""},
		{"modern request without _meta", modernNoMeta, []string{"--revision", "2026-07-28"}, 1, []string{"stdin:1: message 0 (request tools/call id 1): /params: missing properties: '_meta'", "0 valid, 1 invalid"}, ""},
		{"modern _meta without the version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, []string{"--revision", "2026-07-28"}, 1, []string{"/params/_meta: missing properties: 'io.modelcontextprotocol/protocolVersion'"}, ""},
		{"modern embedded request as a message", modernEmbedded, []string{"--revision", "2026-07-28"}, 1, []string{`/method: "elicitation/create" is an embedded request in revision 2026-07-28, never a JSON-RPC message`}, ""},
		{"embedded request is a message in 2025-11-25", modernEmbedded, []string{"--revision", "2025-11-25", "--from", "server"}, 0, []string{"1 valid, 0 invalid"}, ""},
		{"modern resultType bogus", modernCall + "\n" + `{"jsonrpc":"2.0","id":2,"result":{"resultType":"bogus","content":[]}}`, []string{"--revision", "2026-07-28"}, 1, []string{`stdin:2: message 1 (response tools/call id 2): /result/resultType: unknown resultType "bogus"`}, ""},
		{"modern ping is gone", validPing, []string{"--revision", "2026-07-28"}, 1, []string{`revision 2026-07-28 has no request "ping"`}, ""},
		{"legacy session in the modern revision", "", []string{"--revision", "2026-07-28", captured}, 1, []string{`has no request "initialize"`, "1 valid, 12 invalid"}, ""},
		{"empty input", "", []string{"--revision", "2025-11-25"}, 0, []string{"0 valid, 0 invalid"}, ""},

		{"missing revision", validPing, nil, 2, nil, "--revision is required"},
		{"bad revision", validPing, []string{"--revision", "june"}, 2, nil, "YYYY-MM-DD"},
		{"no built-in schema", validPing, []string{"--revision", "2099-01-01"}, 2, nil, "--schema FILE"},
		{"empty schema", validPing, []string{"--revision", "2025-11-25", "--schema", ""}, 2, nil, "--schema is empty"},
		{"bad format", validPing, []string{"--revision", "2025-11-25", "--format", "yaml"}, 2, nil, `--format "yaml"`},
		{"bad from", validPing, []string{"--revision", "2025-11-25", "--from", "me"}, 2, nil, `--from "me"`},
		{"bad flag", validPing, []string{"--nope"}, 2, nil, "unknown flag: --nope"},
		{"unreadable file", "", []string{"--revision", "2025-11-25", good, filepath.Join(tmp, "absent.json")}, 2, nil, "absent.json"},
		{"unreadable schema", validPing, []string{"--revision", "2025-11-25", "--schema", filepath.Join(tmp, "absent.json")}, 2, nil, "absent.json"},
		{"schema is a directory", validPing, []string{"--revision", "2025-11-25", "--schema", tmp}, 2, nil, "--schema: " + tmp + " is a directory"},
		{"schema not JSON", validPing, []string{"--revision", "2025-11-25", "--schema", bad}, 2, nil, "mcpgen validate: "},
		{"schema with a missing $ref", validPing, []string{"--revision", "2099-01-01", "--schema", brokenRef}, 2, nil, `#/definitions/A/$ref: keyword "$ref"`},
		{"schema with a bad regex", validPing, []string{"--revision", "2099-01-01", "--schema", brokenRegex}, 2, nil, `#/definitions/A/pattern: keyword "pattern"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runValidateWith(tt.stdin, tt.args...)
			if got.code != tt.wantCode {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", got.code, tt.wantCode, got.stdout, got.stderr)
			}
			for _, want := range tt.wantStdout {
				if !strings.Contains(got.stdout, want) {
					t.Errorf("stdout does not contain %q:\n%s", want, got.stdout)
				}
			}
			if !strings.Contains(got.stderr, tt.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantStderr, got.stderr)
			}
			if tt.wantCode != 2 && got.stderr != "" {
				t.Errorf("stderr not empty:\n%s", got.stderr)
			}
			if tt.wantCode == 2 && got.stdout != "" {
				t.Errorf("stdout not empty:\n%s", got.stdout)
			}
			if strings.Contains(tt.name, "schema with") && strings.Count(got.stderr, "\n") != 1 {
				t.Errorf("stderr is not one line:\n%s", got.stderr)
			}
		})
	}
}

// mustSchema returns the built-in 2025-03-26 schema.
func mustSchema(t *testing.T) []byte {
	t.Helper()
	return builtinRevisions["2025-03-26"].schema()
}

func TestValidateJSON(t *testing.T) {
	input := validPing + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + invalidCall + "\n[" + validPing + "]\n"
	got := runValidateWith(input, "--revision", "2025-06-18", "--format", "json")
	if got.code != 1 {
		t.Fatalf("exit %d\n%s%s", got.code, got.stdout, got.stderr)
	}
	var out struct {
		Messages []struct {
			File        string            `json:"file"`
			Index       int               `json:"index"`
			Line        int               `json:"line"`
			Element     *int              `json:"element"`
			Kind        string            `json:"kind"`
			Method      string            `json:"method"`
			ID          json.RawMessage   `json:"id"`
			Definitions []string          `json:"definitions"`
			Valid       bool              `json:"valid"`
			Problems    []json.RawMessage `json:"problems"`
		} `json:"messages"`
		Valid   int `json:"valid"`
		Invalid int `json:"invalid"`
	}
	dec := json.NewDecoder(strings.NewReader(got.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%v:\n%s", err, got.stdout)
	}
	if out.Valid != 2 || out.Invalid != 2 || len(out.Messages) != 4 {
		t.Fatalf("%d valid, %d invalid, %d messages:\n%s", out.Valid, out.Invalid, len(out.Messages), got.stdout)
	}
	m := out.Messages
	if m[0].File != "stdin" || m[0].Index != 0 || m[0].Line != 1 || m[0].Kind != "request" || m[0].Method != "ping" || string(m[0].ID) != "1" || !m[0].Valid || m[0].Problems == nil || len(m[0].Problems) != 0 {
		t.Errorf("message 0: %+v", m[0])
	}
	if m[1].Kind != "response" || m[1].Method != "ping" || !m[1].Valid || strings.Join(m[1].Definitions, ",") != "JSONRPCResponse,EmptyResult" {
		t.Errorf("message 1: %+v", m[1])
	}
	var p map[string]string
	if len(m[2].Problems) != 1 || json.Unmarshal(m[2].Problems[0], &p) != nil ||
		p["pointer"] != "/params/name" || p["rule"] != "schema" || p["reason"] == "" || len(p) != 3 || m[2].Line != 3 || m[2].Valid {
		t.Errorf("message 2: %+v %v", m[2], p)
	}
	if m[3].Element == nil || *m[3].Element != 0 || m[3].Line != 4 || m[3].Valid {
		t.Errorf("message 3: %+v", m[3])
	}
}

// TestValidateJSONModern checks what the JSON output says of 2026-07-28
// responses: the method's response definition, then the result its
// resultType selected, and an unknown resultType as a "result" problem.
func TestValidateJSONModern(t *testing.T) {
	input := modernCall + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s"}}` + "\n" +
		strings.Replace(modernCall, `"id":2`, `"id":3`, 1) + "\n" +
		`{"jsonrpc":"2.0","id":3,"result":{"resultType":"later","content":[]}}` + "\n"
	got := runValidateWith(input, "--revision", "2026-07-28", "--format", "json")
	if got.code != 1 {
		t.Fatalf("exit %d\n%s%s", got.code, got.stdout, got.stderr)
	}
	var out struct {
		Messages []struct {
			Definitions []string `json:"definitions"`
			Problems    []struct {
				Pointer, Reason, Rule string
			} `json:"problems"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil || len(out.Messages) != 4 {
		t.Fatalf("%v:\n%s", err, got.stdout)
	}
	if d := strings.Join(out.Messages[1].Definitions, ","); d != "CallToolResultResponse,InputRequiredResult" || len(out.Messages[1].Problems) != 0 {
		t.Errorf("input_required response: definitions %s, problems %+v", d, out.Messages[1].Problems)
	}
	ps := out.Messages[3].Problems
	if d := strings.Join(out.Messages[3].Definitions, ","); d != "CallToolResultResponse" || len(ps) != 1 || ps[0].Pointer != "/result/resultType" || ps[0].Rule != "result" {
		t.Errorf("unknown resultType: definitions %s, problems %+v", d, ps)
	}
}

// TestValidateExtension validates a captured exchange of the Tasks
// extension: its methods are unknown to the core revision alone, valid with
// --extension, and a tasks/get result outside the schema is reported.
func TestValidateExtension(t *testing.T) {
	t.Setenv(mirrorEnv, schematest.Mirror(t, "2026-07-28"))
	file := filepath.Join("testdata", "tasks-2026-07-28.jsonl")
	got := runMcpgen("validate", "--revision", "2026-07-28", "--extension", schematest.Extension(t, "ext-tasks"), file)
	for _, want := range []string{"5 valid, 1 invalid", `tasks-2026-07-28.jsonl:6: message 5 (response tasks/get id 3): /result/ttlMs: expected integer`} {
		if got.code != 1 || !strings.Contains(got.stdout, want) {
			t.Errorf("with --extension: exit %d, want a line %q:\n%s%s", got.code, want, got.stdout, got.stderr)
		}
	}
	got = runMcpgen("validate", "--revision", "2026-07-28", file)
	if got.code != 1 || !strings.Contains(got.stdout, `has no request "tasks/get"`) {
		t.Errorf("without --extension: exit %d:\n%s", got.code, got.stdout)
	}
	if got := runMcpgen("validate", "--revision", "2026-07-28", "--extension", "ext-nope", file); got.code != 2 || !strings.Contains(got.stderr, "unknown extension") {
		t.Errorf("ext-nope: exit %d\n%s", got.code, got.stderr)
	}
}
