package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// gates holds a channel per label that the "gated" tool waits on.
type gates struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

func (g *gates) get(label string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string]chan struct{}{}
	}
	c := g.m[label]
	if c == nil {
		c = make(chan struct{})
		g.m[label] = c
	}
	return c
}

func (g *gates) open(label string) { close(g.get(label)) }

// addGated adds the task tool "gated" to h: it waits for the gate of its
// label, then, by label: "ask*" asks for a confirmation and completes with
// the answer's action; "fail*" fails with a protocol error; "hold*" waits
// for its context to end.
func addGated(h *harness) *gates {
	g := &gates{}
	h.srv.MustAddTool(mcp20260728.Tool{Name: "gated"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		var in struct{ Label string }
		_ = json.Unmarshal(p.Arguments, &in)
		select {
		case <-g.get(in.Label):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		switch {
		case strings.HasPrefix(in.Label, "ask"):
			res, err := mcp20260728.Elicit(ctx, "confirm", confirmForm("sure?"))
			if err != nil {
				return nil, err
			}
			return text("done " + string(res.Action)), nil
		case strings.HasPrefix(in.Label, "fail"):
			return nil, &jsonrpc.Error{Code: -32001, Message: "upstream refused"}
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	h.ts.SetToolSupport("gated", Optional)
	return g
}

// stream is an open subscriptions/listen stream: its messages, in order.
type stream struct {
	t    *testing.T
	msgs chan map[string]any
	stop func()
	done chan struct{}
	end  *jsonrpc.Message // the final answer, once done is closed (stateless)
}

// next returns the next message of the stream, failing the test after 5 s.
func (s *stream) next() map[string]any {
	s.t.Helper()
	select {
	case m := <-s.msgs:
		return m
	case <-time.After(5 * time.Second):
		s.t.Fatal("no message on the listen stream within 5 s")
	}
	return nil
}

// close ends the stream and returns the messages not read yet.
func (s *stream) close() []map[string]any {
	s.t.Helper()
	s.stop()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.t.Fatal("the listen stream did not end within 5 s of its cancellation")
	}
	var rest []map[string]any
	for {
		select {
		case m := <-s.msgs:
			rest = append(rest, m)
		default:
			return rest
		}
	}
}

// decodeMsg decodes one JSON-RPC message.
func decodeMsg(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Errorf("a message of the stream is not JSON: %v: %s", err, b)
	}
	return m
}

// listenStateless opens subscriptions/listen on h's Stateless for
// principal, with the capabilities caps and the notifications filter
// filter.
func listenStateless(h *harness, principal, caps, filter string) *stream {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if principal != "" {
		ctx = session.WithPrincipal(ctx, principal)
	}
	s := &stream{t: h.t, msgs: make(chan map[string]any, 100), stop: cancel, done: make(chan struct{})}
	h.seq++
	m := &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(int64(h.seq)), Method: "subscriptions/listen",
		Params: jsontext.Value(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `},"notifications":` + filter + `}`)}
	go func() {
		defer close(s.done)
		s.end, _ = h.x.Serve(ctx, m, func(_ context.Context, b []byte) error {
			s.msgs <- decodeMsg(h.t, b)
			return nil
		})
	}()
	h.t.Cleanup(func() { cancel() })
	return s
}

// ackedTaskIDs returns the taskIds of an acknowledgement, failing the test
// if m is not one.
func ackedTaskIDs(t *testing.T, m map[string]any) any {
	t.Helper()
	if m["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message of the stream: %v, want the acknowledgement", m)
	}
	p, _ := m["params"].(map[string]any)
	f, _ := p["notifications"].(map[string]any)
	return f["taskIds"]
}

// taskNote checks that m is a notifications/tasks with the subscription
// id sub, its params a strictly valid TaskStatusNotificationParams of the
// task id, and returns its status and params.
func taskNote(t *testing.T, m map[string]any, id string) (string, map[string]any) {
	t.Helper()
	if m["method"] != "notifications/tasks" {
		t.Fatalf("message %v, want notifications/tasks", m)
	}
	p, _ := m["params"].(map[string]any)
	raw, _ := json.Marshal(p)
	var strict TaskStatusNotificationParams
	if err := wire.Unmarshal(raw, &strict); err != nil {
		t.Errorf("notifications/tasks params do not decode strictly: %v: %s", err, raw)
	}
	for _, k := range []string{"resultType", "requestState"} {
		if _, ok := p[k]; ok {
			t.Errorf("notifications/tasks params carry %s: %s", k, raw)
		}
	}
	meta, _ := p["_meta"].(map[string]any)
	if _, ok := meta[session.MetaSubscriptionID]; !ok {
		t.Errorf("notifications/tasks has no subscription id in _meta: %s", raw)
	}
	if p["taskId"] != id {
		t.Errorf("notifications/tasks of task %v, want %s", p["taskId"], id)
	}
	s, _ := p["status"].(string)
	return s, p
}

// TestListenStatus: a listener of the task's principal sees its state at
// the acknowledgement and every change of status after it, each with the
// whole task; other principals' listeners, and ids not theirs, get
// nothing.
func TestListenStatus(t *testing.T) {
	tests := []struct {
		name  string
		label string
		drive func(h *harness, g *gates, id string) // makes the task move after the listener saw "working"
		want  []string                              // the statuses after "working"
		check func(t *testing.T, last map[string]any)
	}{
		{
			name: "asks, is answered, completes", label: "ask",
			drive: func(h *harness, g *gates, id string) { g.open("ask") },
			want:  []string{"input_required", "working", "completed"},
			check: func(t *testing.T, last map[string]any) {
				res, _ := last["result"].(map[string]any)
				content, _ := res["content"].([]any)
				if len(content) != 1 || content[0].(map[string]any)["text"] != "done accept" {
					t.Errorf("completed task's result: %v", last["result"])
				}
			},
		},
		{
			name: "fails", label: "fail",
			drive: func(h *harness, g *gates, id string) { g.open("fail") },
			want:  []string{"failed"},
			check: func(t *testing.T, last map[string]any) {
				e, _ := last["error"].(map[string]any)
				if e["code"] != float64(-32001) || e["message"] != "upstream refused" || last["result"] != nil {
					t.Errorf("failed task: %v", last)
				}
			},
		},
		{
			name: "cancelled", label: "hold",
			drive: func(h *harness, g *gates, id string) {
				h.mustCall("alice", declaring, "tasks/cancel", `"taskId":"`+id+`"`)
			},
			want: []string{"cancelled"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			g := addGated(h)
			id := h.create("alice", "gated", tt.label).TaskID
			other := h.create("bob", "gated", "fail-bob").TaskID

			alice := listenStateless(h, "alice", declaring, `{"taskIds":["nope-unknown","`+id+`","`+id+`","`+other+`"],"toolsListChanged":true}`)
			if diff := cmp.Diff([]any{id}, ackedTaskIDs(t, alice.next())); diff != "" {
				t.Errorf("alice's acknowledged taskIds (-want +got):\n%s", diff)
			}
			bob := listenStateless(h, "bob", declaring, `{"taskIds":["`+id+`","`+other+`"]}`)
			if diff := cmp.Diff([]any{other}, ackedTaskIDs(t, bob.next())); diff != "" {
				t.Errorf("bob's acknowledged taskIds (-want +got):\n%s", diff)
			}
			if s, _ := taskNote(t, bob.next(), other); s != "working" {
				t.Errorf("bob's first notification: %s, want working", s)
			}
			if s, _ := taskNote(t, alice.next(), id); s != "working" {
				t.Fatalf("alice's first notification: %s, want working (the state at the acknowledgement)", s)
			}
			tt.drive(h, g, id)
			var last map[string]any
			for _, want := range tt.want {
				s, p := taskNote(t, alice.next(), id)
				if s != want {
					t.Fatalf("alice's notification: status %s, want %s", s, want)
				}
				last = p
				if s == "input_required" {
					reqs, _ := p["inputRequests"].(map[string]any)
					if _, ok := reqs["confirm"]; !ok || len(reqs) != 1 {
						t.Errorf("inputRequests %v, want the one key confirm", p["inputRequests"])
					}
					h.mustCall("alice", declaring, "tasks/update", `"taskId":"`+id+`","inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}`)
				}
			}
			// As tasks/get gives it, but for resultType.
			got := h.mustCall("alice", declaring, "tasks/get", `"taskId":"`+id+`"`)
			var gm map[string]any
			if err := json.Unmarshal(got, &gm); err != nil {
				t.Fatal(err)
			}
			delete(gm, "resultType")
			delete(gm, "_meta")
			delete(last, "_meta")
			if diff := cmp.Diff(gm, last); diff != "" {
				t.Errorf("the final notification is not the task as tasks/get gives it (-get +notification):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, last)
			}

			// bob's own task ends after alice's: his stream carries it, and
			// nothing of alice's task before it.
			g.open("fail-bob")
			if s, _ := taskNote(t, bob.next(), other); s != "failed" {
				t.Errorf("bob's notification: %s, want failed", s)
			}
			for _, m := range append(bob.close(), alice.close()...) {
				t.Errorf("a message after the task ended: %v", m)
			}
		})
	}
}

// TestListenRefused: taskIds from a request that does not declare the
// extension is -32021; ids not the caller's, repeats and those past
// MaxListenTasks are left out of the acknowledgement; a malformed taskIds
// is -32602.
func TestListenRefused(t *testing.T) {
	h := newHarness(t, Options{MaxListenTasks: 3})
	addGated(h)
	a1 := h.create("alice", "gated", "hold1").TaskID
	a2 := h.create("alice", "gated", "hold2").TaskID
	a3 := h.create("alice", "gated", "hold3").TaskID
	b1 := h.create("bob", "gated", "hold4").TaskID
	tests := []struct {
		name, principal, caps, filter string
		code                          float64 // the error; 0 for an acknowledgement
		acked                         any     // its taskIds
	}{
		{"no extension declared", "alice", `{}`, `{"taskIds":["` + a1 + `"]}`, session.MissingRequiredClientCapability, nil},
		{"no extension, no taskIds", "alice", `{}`, `{"toolsListChanged":true}`, 0, nil},
		{"unknown and another's left out", "alice", declaring, `{"taskIds":["x","` + b1 + `","` + a1 + `"]}`, 0, []any{a1}},
		{"another principal's only", "bob", declaring, `{"taskIds":["` + a1 + `"]}`, 0, []any{}},
		{"no principal", "", declaring, `{"taskIds":["` + a1 + `"]}`, 0, []any{}},
		// The bound counts the ids asked for, not those accepted.
		{"repeats once, capped at 3", "alice", declaring, `{"taskIds":["` + a1 + `","` + a1 + `","x","` + a2 + `","` + a3 + `"]}`, 0, []any{a1, a2}},
		{"empty", "alice", declaring, `{"taskIds":[]}`, 0, []any{}},
		{"not an array", "alice", declaring, `{"taskIds":"` + a1 + `"}`, jsonrpc.InvalidParams, nil},
		{"not strings", "alice", declaring, `{"taskIds":[1]}`, jsonrpc.InvalidParams, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := listenStateless(h, tt.principal, tt.caps, tt.filter)
			if tt.code != 0 {
				select {
				case <-s.done:
				case <-time.After(5 * time.Second):
					t.Fatal("no answer within 5 s")
				}
				if s.end.Error == nil || float64(s.end.Error.Code) != tt.code {
					t.Fatalf("answer %+v, want error %v", s.end, tt.code)
				}
				if tt.code == session.MissingRequiredClientCapability {
					if data := string(s.end.Error.Data); data != `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}` {
						t.Errorf("-32021 data: %s", data)
					}
				}
				return
			}
			if diff := cmp.Diff(tt.acked, ackedTaskIDs(t, s.next())); diff != "" {
				t.Errorf("acknowledged taskIds (-want +got):\n%s", diff)
			}
			s.close()
		})
	}
}

// TestListenHTTP: over Streamable HTTP, a listen stream of the task's
// principal sees working, input_required, working and completed; the
// answer goes by tasks/update with Mcp-Name.
func TestListenHTTP(t *testing.T) {
	h := newHarness(t, Options{})
	g := addGated(h)
	hh := h.srv.HTTPHandler(mcp20260728.HTTPOptions{})
	defer hh.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if p := r.Header.Get("X-Test-Principal"); p != "" {
			ctx = session.WithPrincipal(ctx, p)
		}
		hh.ServeHTTP(w, r.WithContext(ctx))
	}))
	defer ts.Close()
	request := func(ctx context.Context, principal, method, name, params string) *http.Response {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + declaring + `},` + params + `}}`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		req.Header.Set("X-Test-Principal", principal)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	post := func(principal, method, name, params string) map[string]any {
		t.Helper()
		resp := request(context.Background(), principal, method, name, params)
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != 200 || m["error"] != nil {
			t.Fatalf("%s: HTTP %d %v %v", method, resp.StatusCode, m, err)
		}
		return m
	}
	res, _ := post("alice", "tools/call", "gated", `"name":"gated","arguments":{"label":"ask"}`)["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %v", res)
	}

	ctx, cancel := context.WithCancel(context.Background())
	s := &stream{t: t, msgs: make(chan map[string]any, 100), stop: cancel, done: make(chan struct{})}
	resp := request(ctx, "alice", "subscriptions/listen", "", `"notifications":{"taskIds":["`+id+`"]}`)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("subscriptions/listen: HTTP %d %s", resp.StatusCode, ct)
	}
	go func() {
		defer close(s.done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				s.msgs <- decodeMsg(t, []byte(strings.TrimSpace(d)))
			}
		}
	}()
	defer s.close()

	if diff := cmp.Diff([]any{id}, ackedTaskIDs(t, s.next())); diff != "" {
		t.Errorf("acknowledged taskIds (-want +got):\n%s", diff)
	}
	var got []string
	for range 4 {
		st, p := taskNote(t, s.next(), id)
		got = append(got, st)
		switch st {
		case "working":
			if len(got) == 1 {
				g.open("ask")
			}
		case "input_required":
			post("alice", "tasks/update", id, `"taskId":"`+id+`","inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}`)
		case "completed":
			if _, ok := p["result"].(map[string]any); !ok {
				t.Errorf("completed without result: %v", p)
			}
		}
		if st == "completed" || st == "failed" || st == "cancelled" {
			break
		}
	}
	if diff := cmp.Diff([]string{"working", "input_required", "working", "completed"}, got); diff != "" {
		t.Errorf("statuses on the stream (-want +got):\n%s", diff)
	}
}

// TestListenBus: a change published on a shared Bus by another instance
// reaches a listener; one of another principal, one older than what was
// sent, and one of a task not asked for do not.
func TestListenBus(t *testing.T) {
	bus := session.NewBus()
	h := newHarness(t, Options{Bus: bus})
	addGated(h)
	id := h.create("alice", "gated", "hold").TaskID
	s := listenStateless(h, "alice", declaring, `{"taskIds":["`+id+`"]}`)
	ackedTaskIDs(t, s.next())
	if st, _ := taskNote(t, s.next(), id); st != "working" {
		t.Fatalf("first notification %s", st)
	}
	rec, err := h.st.Get(context.Background(), id, principalOf("alice"))
	if err != nil {
		t.Fatal(err)
	}
	publish := func(owner, taskID string, version uint64, status string) {
		r := *rec
		r.ID, r.Version, r.Status = taskID, version, "working"
		p, err := notificationParams(&r)
		if err != nil {
			t.Fatal(err)
		}
		p, _ = wire.SetMember(p, "statusMessage", jsontext.Value(`"`+status+`"`))
		data, err := wire.EncodeValue(change{TaskID: taskID, Owner: owner, Version: version, Params: p})
		if err != nil {
			t.Fatal(err)
		}
		bus.Publish(session.Event{Method: MethodNotificationsTasks, Data: data})
	}
	publish(principalOf("bob"), id, rec.Version+5, "bob's")
	publish(principalOf("alice"), id, rec.Version, "stale")
	publish(principalOf("alice"), "another", rec.Version+5, "not asked for")
	publish(principalOf("alice"), id, rec.Version+1, "from elsewhere")
	_, p := taskNote(t, s.next(), id)
	if p["statusMessage"] != "from elsewhere" {
		t.Errorf("notification %v, want the one from elsewhere", p)
	}
	bus.Publish(session.Event{Method: MethodNotificationsTasks, Data: jsontext.Value(`{"taskId":"` + id + `","version":"x"}`)})
	if rest := s.close(); len(rest) != 0 {
		t.Errorf("messages after: %v", rest)
	}
}
