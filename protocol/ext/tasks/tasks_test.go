package tasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// sameJSON reports whether a and b are the same JSON value, member order
// aside.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	parse := func(data []byte) any {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		return v
	}
	return reflect.DeepEqual(parse(a), parse(b))
}

// specExamples are the results and params of the examples of the Tasks
// extension's specification (modelcontextprotocol/ext-tasks,
// specification/draft/tasks.md at e434597), each with the type it decodes
// into and the Go type of the variant it must choose.
var specExamples = []struct {
	name    string
	new     func() wire.Codec
	json    string
	variant string // the variant's type for a union, "" for an object
}{{
	name:    "tools/call answered with a task (CreateTaskResult)",
	new:     func() wire.Codec { return new(tasks.CallToolResults) },
	json:    `{"resultType":"task","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","statusMessage":"The operation is now in progress.","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,"pollIntervalMs":5000}`,
	variant: "*tasks.CreateTaskResult",
}, {
	name:    "CreateTaskResult without a status message",
	new:     func() wire.Codec { return new(tasks.CallToolResults) },
	json:    `{"resultType":"task","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":3600000,"pollIntervalMs":5000}`,
	variant: "*tasks.CreateTaskResult",
}, {
	name:    "tools/call answered at once (CallToolResult)",
	new:     func() wire.Codec { return new(tasks.CallToolResults) },
	json:    `{"resultType":"complete","content":[{"type":"text","text":"Hello"}]}`,
	variant: "*mcp20260728.CallToolResult",
}, {
	name:    "tools/call answered with input requests (InputRequiredResult)",
	new:     func() wire.Codec { return new(tasks.CallToolResults) },
	json:    `{"resultType":"input_required","inputRequests":{"user_name":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"opaque"}`,
	variant: "*mcp20260728.InputRequiredResult",
}, {
	name:    "task-shaped answer that also carries error (kept: results are open)",
	new:     func() wire.Codec { return new(tasks.CallToolResults) },
	json:    `{"resultType":"task","taskId":"786512e2-9e0d-44bd-8f29-789f820fe840","status":"failed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":3600000,"statusMessage":"Tool execution failed: API rate limit exceeded","error":{"code":-32603,"message":"API rate limit exceeded"}}`,
	variant: "*tasks.CreateTaskResult",
}, {
	name: "tasks/get params",
	new:  func() wire.Codec { return new(tasks.GetTaskRequestParams) },
	json: `{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840"}`,
}, {
	name:    "tasks/get: working",
	new:     func() wire.Codec { return new(tasks.GetTaskResult) },
	json:    `{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":3600000,"pollIntervalMs":5000}`,
	variant: "*tasks.GetTaskResultWorkingTask",
}, {
	name:    "tasks/get: input_required",
	new:     func() wire.Codec { return new(tasks.GetTaskResult) },
	json:    `{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"input_required","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":3600000,"pollIntervalMs":5000,"inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form","message":"Please enter your name.","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}}`,
	variant: "*tasks.GetTaskResultInputRequiredTask",
}, {
	name:    "tasks/get: completed",
	new:     func() wire.Codec { return new(tasks.GetTaskResult) },
	json:    `{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":3600000,"pollIntervalMs":5000,"result":{"content":[{"type":"text","text":"Hello, Luca!"}],"isError":false}}`,
	variant: "*tasks.GetTaskResultCompletedTask",
}, {
	name:    "tasks/get: failed",
	new:     func() wire.Codec { return new(tasks.GetTaskResult) },
	json:    `{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f820fe840","status":"failed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":3600000,"statusMessage":"Tool execution failed: API rate limit exceeded","error":{"code":-32603,"message":"API rate limit exceeded"}}`,
	variant: "*tasks.GetTaskResultFailedTask",
}, {
	name:    "tasks/get: cancelled, unlimited ttl",
	new:     func() wire.Codec { return new(tasks.GetTaskResult) },
	json:    `{"resultType":"complete","taskId":"t1","status":"cancelled","statusMessage":"cancelled by the client","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":null}`,
	variant: "*tasks.GetTaskResultCancelledTask",
}, {
	name: "tasks/update params",
	new:  func() wire.Codec { return new(tasks.UpdateTaskRequestParams) },
	json: `{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","inputResponses":{"name":{"action":"accept","content":{"input":"Luca"}}}}`,
}, {
	name: "tasks/update ack",
	new:  func() wire.Codec { return new(tasks.UpdateTaskResult) },
	json: `{"resultType":"complete"}`,
}, {
	name: "tasks/cancel ack",
	new:  func() wire.Codec { return new(tasks.CancelTaskResult) },
	json: `{"resultType":"complete"}`,
}, {
	name: "tasks/cancel params",
	new:  func() wire.Codec { return new(tasks.CancelTaskRequestParams) },
	json: `{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840"}`,
}, {
	name:    "notifications/tasks: completed",
	new:     func() wire.Codec { return new(tasks.TaskStatusNotificationParams) },
	json:    `{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":60000,"pollIntervalMs":5000,"result":{"content":[{"type":"text","text":"Operation completed successfully."}],"isError":false}}`,
	variant: "*tasks.TaskStatusNotificationParamsCompletedTask",
}, {
	name:    "DetailedTask: input_required",
	new:     func() wire.Codec { return new(tasks.DetailedTask) },
	json:    `{"taskId":"t","status":"input_required","createdAt":"a","lastUpdatedAt":"b","ttlMs":1,"inputRequests":{}}`,
	variant: "*tasks.InputRequiredTask",
}, {
	name: "the capability",
	new:  func() wire.Codec { return new(tasks.TasksExtensionCapability) },
	json: `{}`,
}}

// TestSpecExamples decodes every example of the specification strictly,
// checks the variant chosen, and encodes it back to the same JSON value.
func TestSpecExamples(t *testing.T) {
	for _, tt := range specExamples {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.new()
			if err := wire.Unmarshal([]byte(tt.json), v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if tt.variant != "" {
				got := fmt.Sprintf("%T", reflect.ValueOf(v).Elem().FieldByName("Value").Interface())
				if got != tt.variant {
					t.Errorf("variant %s, want %s", got, tt.variant)
				}
			}
			out, err := v.AppendJSON(nil)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !sameJSON(t, out, []byte(tt.json)) {
				t.Errorf("round trip:\n got %s\nwant %s", out, tt.json)
			}
		})
	}
}

// TestTTLMs checks the three states of the required, nullable ttlMs: a
// number, null (unlimited, written explicitly), and absent (an error).
func TestTTLMs(t *testing.T) {
	ttl := int64(60000)
	task := &tasks.CreateTaskResult{TaskID: "t", Status: tasks.TaskStatusWorking, CreatedAt: "a", LastUpdatedAt: "b", TTLMs: &ttl}
	out, err := task.AppendJSON(nil)
	if err != nil || !strings.Contains(string(out), `"ttlMs":60000`) {
		t.Fatalf("encode: %s, %v", out, err)
	}
	task.TTLMs = nil
	out, err = task.AppendJSON(nil)
	if err != nil || !strings.Contains(string(out), `"ttlMs":null`) || !strings.Contains(string(out), `"resultType":"task"`) {
		t.Fatalf("encode with nil TTLMs: %s, %v; want ttlMs null", out, err)
	}
	var back tasks.CreateTaskResult
	if err := wire.Unmarshal(out, &back); err != nil || back.TTLMs != nil {
		t.Fatalf("decode %s: TTLMs %v, %v", out, back.TTLMs, err)
	}
}

// TestStrictRejects checks what the strict decoders refuse, and that the
// error says where.
func TestStrictRejects(t *testing.T) {
	const base = `"taskId":"t","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z"`
	tests := []struct {
		name    string
		new     func() wire.Codec
		json    string
		wantErr string
	}{
		{"legacy ttl and pollInterval instead of ttlMs", func() wire.Codec { return new(tasks.CallToolResults) }, `{"resultType":"task",` + base + `,"status":"working","ttl":60000,"pollInterval":5000}`, `ttlMs`},
		{"missing ttlMs", func() wire.Codec { return new(tasks.GetTaskResult) }, `{"resultType":"complete",` + base + `,"status":"working"}`, `ttlMs`},
		{"fractional ttlMs", func() wire.Codec { return new(tasks.GetTaskResult) }, `{"resultType":"complete",` + base + `,"status":"working","ttlMs":1.5}`, `/ttlMs`},
		{"ttlMs above 2^53-1", func() wire.Codec { return new(tasks.CreateTaskResult) }, `{"resultType":"task",` + base + `,"status":"working","ttlMs":9007199254740992}`, `/ttlMs`},
		{"ttlMs a string", func() wire.Codec { return new(tasks.CreateTaskResult) }, `{"resultType":"task",` + base + `,"status":"working","ttlMs":"60000"}`, `/ttlMs`},
		{"status outside the enum", func() wire.Codec { return new(tasks.CreateTaskResult) }, `{"resultType":"task",` + base + `,"status":"paused","ttlMs":null}`, `paused`},
		{"status outside the union", func() wire.Codec { return new(tasks.GetTaskResult) }, `{"resultType":"complete",` + base + `,"status":"paused","ttlMs":null}`, `paused`},
		{"no status", func() wire.Codec { return new(tasks.DetailedTask) }, `{` + base + `,"ttlMs":null}`, `status`},
		{"resultType of a task on tasks/get", func() wire.Codec { return new(tasks.GetTaskResult) }, `{"resultType":"task",` + base + `,"status":"working","ttlMs":null}`, `resultType`},
		{"resultType complete on a CreateTaskResult", func() wire.Codec { return new(tasks.CreateTaskResult) }, `{"resultType":"complete",` + base + `,"status":"working","ttlMs":null}`, `resultType`},
		{"unknown resultType of a tools/call answer", func() wire.Codec { return new(tasks.CallToolResults) }, `{"resultType":"later","content":[]}`, `later`},
		{"completed without its result", func() wire.Codec { return new(tasks.GetTaskResult) }, `{"resultType":"complete",` + base + `,"status":"completed","ttlMs":null}`, `result`},
		{"failed without its error", func() wire.Codec { return new(tasks.GetTaskResult) }, `{"resultType":"complete",` + base + `,"status":"failed","ttlMs":null}`, `error`},
		{"input_required without its requests", func() wire.Codec { return new(tasks.GetTaskResult) }, `{"resultType":"complete",` + base + `,"status":"input_required","ttlMs":null}`, `inputRequests`},
		{"unknown member of the capability", func() wire.Codec { return new(tasks.TasksExtensionCapability) }, `{"list":{}}`, `list`},
		{"update without inputResponses", func() wire.Codec { return new(tasks.UpdateTaskRequestParams) }, `{"taskId":"t"}`, `inputResponses`},
		{"get without taskId", func() wire.Codec { return new(tasks.GetTaskRequestParams) }, `{}`, `taskId`},
		{"duplicate member", func() wire.Codec { return new(tasks.GetTaskRequestParams) }, `{"taskId":"a","taskId":"b"}`, `taskId`},
		{"member name in another case", func() wire.Codec { return new(tasks.GetTaskRequestParams) }, `{"TaskId":"a"}`, `taskId`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := wire.Unmarshal([]byte(tt.json), tt.new())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}

// TestEncodeRefuses checks that encoding refuses what the peer's strict
// decoder would: an empty union, a status outside the enum.
func TestEncodeRefuses(t *testing.T) {
	if _, err := (&tasks.GetTaskResult{}).AppendJSON(nil); err == nil {
		t.Error("an empty GetTaskResult encoded")
	}
	bad := &tasks.CreateTaskResult{TaskID: "t", Status: "paused", CreatedAt: "a", LastUpdatedAt: "b"}
	if _, err := bad.AppendJSON(nil); err == nil || !strings.Contains(err.Error(), "paused") {
		t.Errorf("status paused: error %v", err)
	}
}

// TestMethodTable checks the extension's methods, their pairing with
// results, and the widened tools/call.
func TestMethodTable(t *testing.T) {
	want := map[string]string{
		tasks.MethodTasksGet:           "GetTaskRequest GetTaskResult",
		tasks.MethodTasksUpdate:        "UpdateTaskRequest UpdateTaskResult",
		tasks.MethodTasksCancel:        "CancelTaskRequest CancelTaskResult",
		tasks.MethodNotificationsTasks: "TaskStatusNotification",
	}
	got := map[string]string{}
	for _, m := range tasks.Methods() {
		got[m.Name] = strings.TrimSpace(m.Message + " " + strings.Join(m.Results, " "))
		wantDir := wire.ClientToServer
		if m.Notification {
			wantDir = wire.ServerToClient
		}
		if m.Direction != wantDir || m.NewParams == nil || !m.ParamsRequired {
			t.Errorf("%s: direction %v, params %v, required %v", m.Name, m.Direction, m.NewParams != nil, m.ParamsRequired)
		}
		if lm, ok := tasks.LookupMethod(m.Name); !ok || lm.Name != m.Name {
			t.Errorf("LookupMethod(%s) = %v, %v", m.Name, lm.Name, ok)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("methods:\n got %v\nwant %v", got, want)
	}
	if _, ok := tasks.LookupMethod("tasks/result"); ok {
		t.Error("tasks/result is a method")
	}
	aug := tasks.AugmentedMethods()
	if len(aug) != 1 || aug[0].Name != mcp.MethodToolsCall || strings.Join(aug[0].Results, " ") != "CallToolResult InputRequiredResult CreateTaskResult" || len(aug[0].NewResult) != 3 {
		t.Fatalf("AugmentedMethods = %+v", aug)
	}
	any := aug[0].NewAnyResult()
	if err := wire.Unmarshal([]byte(specExamples[0].json), any); err != nil {
		t.Fatal(err)
	}
	if _, ok := any.(*tasks.CallToolResults).Value.(*tasks.CreateTaskResult); !ok {
		t.Errorf("NewAnyResult decoded %T", any.(*tasks.CallToolResults).Value)
	}
	if v, ok := tasks.New("DetailedTask"); !ok || v == nil {
		t.Error(`New("DetailedTask") failed`)
	}
	if _, ok := tasks.New("Result"); ok {
		t.Error(`New("Result"): a core definition is the core package's`)
	}
	if tasks.ID != "io.modelcontextprotocol/tasks" || tasks.Revision != mcp.Revision {
		t.Errorf("ID %q, Revision %q", tasks.ID, tasks.Revision)
	}
}

// fakeCaller answers every call with one result and records the last call.
type fakeCaller struct {
	method string
	params []byte
	result string
}

func (c *fakeCaller) Call(ctx context.Context, method string, params wire.Appender, opts ...session.CallOption) (jsontext.Value, error) {
	c.method = method
	if ma, ok := params.(wire.MetaAppender); ok {
		// As a session of the stateless era does: the envelope in _meta.
		envelope := `{"` + session.MetaProtocolVersion + `":"2026-07-28","` + session.MetaClientCapabilities + `":{"extensions":{"` + tasks.ID + `":{}}}}`
		b, err := ma.AppendJSONWithMeta(nil, jsontext.Value(envelope))
		if err != nil {
			return nil, err
		}
		c.params = b
	} else if params != nil {
		b, err := params.AppendJSON(nil)
		if err != nil {
			return nil, err
		}
		c.params = b
	}
	return jsontext.Value(c.result), nil
}

func (c *fakeCaller) UnmarshalReceived(raw jsontext.Value, u wire.Unmarshaler) error {
	return wire.Unmarshal(raw, u)
}

// TestCallerStubs checks the typed calls: the method and params they send,
// the result they decode, and a result that does not decode.
func TestCallerStubs(t *testing.T) {
	ctx := context.Background()
	c := &fakeCaller{result: specExamples[8].json}
	res, err := tasks.GetTask(ctx, c, &tasks.GetTaskRequestParams{TaskID: "786512e2"})
	if err != nil {
		t.Fatal(err)
	}
	if c.method != "tasks/get" || string(c.params) != `{"taskId":"786512e2"}` {
		t.Errorf("sent %s %s", c.method, c.params)
	}
	done, ok := res.Value.(*tasks.GetTaskResultCompletedTask)
	if !ok || !strings.Contains(string(done.Result), "Hello, Luca!") {
		t.Errorf("result %#v", res.Value)
	}
	c.result = `{"resultType":"complete"}`
	if _, err := tasks.CancelTask(ctx, c, &tasks.CancelTaskRequestParams{TaskID: "x"}); err != nil || c.method != "tasks/cancel" {
		t.Errorf("CancelTask: %v, sent %s", err, c.method)
	}
	if _, err := tasks.UpdateTask(ctx, c, &tasks.UpdateTaskRequestParams{TaskID: "x", InputResponses: mcp.InputResponses{}}); err != nil || c.method != "tasks/update" || string(c.params) != `{"taskId":"x","inputResponses":{}}` {
		t.Errorf("UpdateTask: %v, sent %s %s", err, c.method, c.params)
	}
	c.result = specExamples[1].json
	ans, err := tasks.CallTool(ctx, c, &mcp.CallToolRequestParams{Name: "slow"})
	if err != nil || c.method != "tools/call" || !strings.Contains(string(c.params), `"name":"slow"`) {
		t.Fatalf("CallTool: %v, sent %s %s", err, c.method, c.params)
	}
	if _, ok := ans.Value.(*tasks.CreateTaskResult); !ok {
		t.Errorf("CallTool answer %T", ans.Value)
	}
	c.result = `{"resultType":"complete"}`
	if _, err := tasks.GetTask(ctx, c, &tasks.GetTaskRequestParams{TaskID: "x"}); err == nil || !strings.Contains(err.Error(), "tasks/get result") {
		t.Errorf("GetTask of an ack: error %v", err)
	}
}

var _ tasks.Caller = (*mcp.ClientSession)(nil)
