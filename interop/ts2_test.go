package interop_test

// Interop with the TypeScript SDK v2 client (@modelcontextprotocol/client
// 2.4.0, through ts2-client.mjs) against this project's servers, over stdio
// and Streamable HTTP:
//
//   - TestTS2ClientModern: the client, with version negotiation on, against
//     a StandardServer of 2026-07-28 (interop/fixture/modern): it must
//     settle on 2026-07-28 without initialize, and run a multi round-trip
//     request and a subscriptions/listen stream;
//   - TestTS2ClientFallback: the same client against a server of 2025-11-25
//     in a binary that links no revision of the stateless era
//     (interop/fixture/legacy): it must fall back to initialize;
//   - TestTS2ClientLegacyEra: the client with negotiation off (a 2025-11-25
//     client) against the 2026-07-28 StandardServer, whose handlers are the
//     same: the elicitation becomes a real request to the client.
//
// The fixtures record every message they receive in a trace file (see
// interop/internal/fixture), which is what the server side saw; ts2-client.mjs
// prints what the client saw. Both are compared with what is expected.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/interop/internal/fixture"
)

// The inputs ts2-client.mjs sends and the texts of the fixture (kept in
// step with the constants there).
const (
	ts2EchoText      = "hello from the TypeScript SDK v2"
	ts2UserName      = "Ada"
	ts2AskMessage    = "What is your name?"
	ts2FixtureName   = "mcpgen-interop-fixture"
	ts2ListenID      = "listen:0" // the SDK's id of its first listen request
	modernRevision   = "2026-07-28"
	legacyRevision   = "2025-11-25"
	ts2ClientTimeout = 45 * time.Second
)

var fixtures struct {
	once sync.Once
	dir  string
	err  error
}

// fixtureServer builds ./interop/fixture/modern and ./interop/fixture/legacy
// once per test binary and returns the path of the executable of one of
// them, name.
func fixtureServer(t *testing.T, name string) string {
	t.Helper()
	_, root := dirs(t)
	fixtures.once.Do(func() {
		fixtures.dir, fixtures.err = os.MkdirTemp("", "mcpgen-interop-fixture-")
		if fixtures.err != nil {
			return
		}
		for _, n := range []string{"modern", "legacy"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(fixtures.dir, n), "./interop/fixture/"+n)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				fixtures.err = fmt.Errorf("%s: %v\n%s", cmd, err, out)
				return
			}
		}
	})
	if fixtures.err != nil {
		t.Fatal(fixtures.err)
	}
	return filepath.Join(fixtures.dir, name)
}

// --- ts2-client.mjs ------------------------------------------------------------

// ts2Report is the report ts2-client.mjs prints.
type ts2Report struct {
	Transport          string            `json:"transport"`
	Sent               []string          `json:"sent"`
	Elicitations       []ts2Elicitation  `json:"elicitations"`
	Notifications      []ts2Notification `json:"notifications"`
	Era                string            `json:"era"`
	Negotiated         string            `json:"negotiated"`
	ServerName         string            `json:"serverName"`
	Tools              []string          `json:"tools"`
	Echo               *ts2Text          `json:"echo"`
	AskName            *ts2Text          `json:"askName"`
	HonoredFilter      map[string]any    `json:"honoredFilter"`
	Added              string            `json:"added"`
	ToolsAfter         []string          `json:"toolsAfter"`
	SubscriptionClosed string            `json:"subscriptionClosed"`
	Closed             bool              `json:"closed"`
	Error              string            `json:"error"`
}

type ts2Elicitation struct {
	Mode    string `json:"mode"`
	Message string `json:"message"`
}

type ts2Notification struct {
	Method         string  `json:"method"`
	SubscriptionID *string `json:"subscriptionId"`
}

type ts2Text struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// runTS2Client runs ts2-client.mjs in scenario against target (its
// arguments after the scenario: --url URL, or -- COMMAND ARG...) and
// returns its report. Its stderr (the messages it exchanged) is logged when
// the test fails.
func runTS2Client(t *testing.T, scenario string, target ...string) ts2Report {
	t.Helper()
	node := nodeBin(t)
	interop, _ := dirs(t)
	for _, p := range []string{"client", "server"} {
		if _, err := os.Stat(filepath.Join(interop, "node_modules", "@modelcontextprotocol", p, "package.json")); err != nil {
			t.Fatalf("@modelcontextprotocol/%s is not installed: %v\nrun npm ci in interop/ (scripts/test does it): npm ci --prefix interop", p, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), ts2ClientTimeout)
	defer cancel()
	args := append([]string{filepath.Join(interop, "ts2-client.mjs"), "--scenario", scenario}, target...)
	var stdout, stderr lockedBuffer
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = interop
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	t.Cleanup(func() {
		if t.Failed() || traceAlways {
			t.Logf("ts2-client stdout:\n%s", stdout.String())
			t.Logf("ts2-client stderr (the messages exchanged):\n%s", stderr.String())
		}
	})
	out := bytes.TrimSpace([]byte(stdout.String()))
	if len(out) == 0 {
		t.Fatalf("ts2-client printed no report (%v)", runErr)
	}
	var r ts2Report
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("decoding the report of ts2-client: %v\n%s", err, out)
	}
	if r.Error != "" {
		t.Fatalf("ts2-client failed: %s", r.Error)
	}
	if runErr != nil {
		t.Fatalf("ts2-client: %v", runErr)
	}
	return r
}

// --- Servers -----------------------------------------------------------------

// httpServer is a server process listening on 127.0.0.1.
type httpServer struct {
	url  string
	stop func() // idempotent: SIGINT, then SIGKILL after 5 seconds
}

// startHTTPServer starts cmd, a server that prints its endpoint URL as the
// first submatch of urlLine on stdout or stderr, and waits, in a bounded
// loop, for that line. The process is stopped when the test ends, if it
// was not before; its output is logged when the test fails.
func startHTTPServer(t *testing.T, cmd *exec.Cmd, urlLine *regexp.Regexp) *httpServer {
	t.Helper()
	var out lockedBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() || traceAlways {
			t.Logf("%s output:\n%s", filepath.Base(cmd.Path), out.String())
		}
	})
	deadline := time.Now().Add(httpStartTimeout)
	for {
		if m := urlLine.FindStringSubmatch(out.String()); m != nil {
			u, err := url.Parse(m[1])
			if err != nil || u.Hostname() != "127.0.0.1" {
				t.Fatalf("%s listens on %q, want http://127.0.0.1:PORT/... (%v)", cmd, m[1], err)
			}
			return &httpServer{url: m[1], stop: stop}
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before listening: %v\n%s", cmd, waitErr, out.String())
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen within %v:\n%s", cmd, httpStartTimeout, out.String())
		}
	}
}

// fixtureURLLine is the line a fixture server prints when it listens.
var fixtureURLLine = regexp.MustCompile(`(?m)^\{"url":"([^"]+)"\}$`)

// --- The fixture's trace -----------------------------------------------------

// serverView is what the fixture saw of a run, from its trace.
type serverView struct {
	// Methods are the methods of the messages received (HTTP: of the
	// POSTs), "(response)" for a response, sorted: the order of concurrent
	// requests is not fixed.
	Methods []string
	// MetaVersions counts the messages by the revision their _meta names
	// ("" for none).
	MetaVersions map[string]int
	// Retries counts the requests that carried inputResponses (an MRTR
	// retry).
	Retries int
	// Statuses counts HTTP answers by "METHOD STATUS".
	Statuses map[string]int
	// HeaderFaults lists the POSTs of the stateless era whose
	// MCP-Protocol-Version, Mcp-Method or Mcp-Name header does not mirror
	// the body (T-N7; the fixtures' tools have no x-mcp-header).
	HeaderFaults []string
	// Exits are the exit errors of the processes that served requests
	// other than the probe (server/discover); "" for a clean exit,
	// "(none)" when the process wrote no exit line.
	Exits []string
}

// readTrace reads the fixture's trace file at path (see
// interop/internal/fixture).
func readTrace(t *testing.T, path string) serverView {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the fixture's trace: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() || traceAlways {
			t.Logf("the fixture's trace:\n%s", data)
		}
	})
	v := serverView{MetaVersions: map[string]int{}, Statuses: map[string]int{}}
	served := map[int]bool{} // processes that served more than the probe
	exits := map[int]string{}
	var pids []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 0; sc.Scan(); n++ {
		if n == maxTraceLines {
			t.Fatalf("the fixture's trace has more than %d lines", maxTraceLines)
		}
		var l fixture.Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("the fixture's trace: line %d: %v: %q", n+1, err, sc.Bytes())
		}
		if !slices.Contains(pids, l.PID) {
			pids = append(pids, l.PID)
		}
		switch l.Event {
		case "exit":
			exits[l.PID] = l.Err
			continue
		case "message":
		default:
			t.Fatalf("the fixture's trace: line %d: unknown event %q", n+1, l.Event)
		}
		if l.Malformed != "" {
			t.Errorf("the fixture received a message it could not decode: %s", l.Malformed)
		}
		if l.Method == "GET (HTTP)" {
			// A legacy client's GET stream: whether it opens before the
			// client closes is a race.
			continue
		}
		if l.Method != "server/discover" {
			served[l.PID] = true
		}
		if l.Method == "" {
			l.Method = "(response)" // to a request of the server
		}
		v.Methods = append(v.Methods, l.Method)
		v.MetaVersions[l.MetaVersion]++
		if l.InputResponses {
			v.Retries++
		}
		if l.HTTPStatus != 0 {
			v.Statuses[fmt.Sprintf("%s %d", l.Method, l.HTTPStatus)]++
			if l.MetaVersion == modernRevision {
				want := map[string]string{"MCP-Protocol-Version": l.MetaVersion, "Mcp-Method": l.Method, "Mcp-Name": l.Name}
				for _, h := range []string{"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"} {
					if got := l.HTTPHeaders[h]; got != want[h] {
						v.HeaderFaults = append(v.HeaderFaults, fmt.Sprintf("%s: %s %q, want %q", l.Method, h, got, want[h]))
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("the fixture's trace: %v", err)
	}
	sort.Strings(v.Methods)
	sort.Strings(v.HeaderFaults)
	for _, pid := range pids {
		if !served[pid] {
			continue
		}
		e, ok := exits[pid]
		if !ok {
			e = "(none)"
		}
		v.Exits = append(v.Exits, e)
	}
	if len(v.Statuses) == 0 {
		v.Statuses = nil
	}
	return v
}

// --- The tests -----------------------------------------------------------------

// ts2Target runs one server for a subtest and returns the client's target
// arguments and a function that stops the server and returns the path of
// its trace ("" for a server without one).
type ts2Target func(t *testing.T) (target []string, done func() string)

// fixtureStdio runs the fixture server name over stdio (started by the
// client).
func fixtureStdio(name string) ts2Target {
	return func(t *testing.T) ([]string, func() string) {
		trace := filepath.Join(t.TempDir(), "trace.jsonl")
		return []string{"--", fixtureServer(t, name), "--trace", trace}, func() string { return trace }
	}
}

// fixtureHTTP runs the fixture server name over Streamable HTTP.
func fixtureHTTP(name string) ts2Target {
	return func(t *testing.T) ([]string, func() string) {
		trace := filepath.Join(t.TempDir(), "trace.jsonl")
		cmd := exec.Command(fixtureServer(t, name), "--http", "127.0.0.1:0", "--trace", trace)
		srv := startHTTPServer(t, cmd, fixtureURLLine)
		return []string{"--url", srv.url}, func() string {
			srv.stop() // the trace is complete once the fixture exited
			return trace
		}
	}
}

func TestTS2ClientModern(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server ts2Target
		// sent are the methods the client sends on its connection.
		sent []string
		// headerFaults are the requests whose headers are known not to
		// mirror the body.
		headerFaults []string
		statuses     map[string]int
	}{
		{
			name:   "stdio",
			server: fixtureStdio("modern"),
			// The probe (server/discover) goes to a process of its own.
			sent: []string{"tools/list", "tools/call", "tools/call", "tools/call", "subscriptions/listen", "tools/call", "tools/list", "notifications/cancelled"},
		},
		{
			name:   "http",
			server: fixtureHTTP("modern"),
			sent:   []string{"server/discover", "tools/list", "tools/call", "tools/call", "tools/call", "subscriptions/listen", "tools/call", "tools/list", "notifications/cancelled"},
			// SDK 2.4.0 sends notifications/cancelled without Mcp-Method,
			// which T-N7 requires on every POST; the server accepts the
			// notification (it has no effect over HTTP, T-N2) rather than
			// fail the client's subscription close.
			headerFaults: []string{`notifications/cancelled: Mcp-Method "", want "notifications/cancelled"`},
			statuses: map[string]int{
				"server/discover 200": 1, "tools/list 200": 2, "tools/call 200": 4,
				"subscriptions/listen 200": 1, "notifications/cancelled 202": 1,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, done := tc.server(t)
			got := runTS2Client(t, "modern", target...)
			listenID := ts2ListenID
			want := ts2Report{
				Transport:          tc.name,
				Sent:               tc.sent,
				Elicitations:       []ts2Elicitation{{Mode: "form", Message: ts2AskMessage}},
				Notifications:      []ts2Notification{{Method: "notifications/tools/list_changed", SubscriptionID: &listenID}},
				Era:                "modern",
				Negotiated:         modernRevision,
				ServerName:         ts2FixtureName,
				Tools:              []string{"add_tool", "ask_name", "echo"},
				Echo:               &ts2Text{Text: ts2EchoText},
				AskName:            &ts2Text{Text: "Hello, " + ts2UserName + "!"},
				HonoredFilter:      map[string]any{"toolsListChanged": true},
				Added:              "added_1",
				ToolsAfter:         []string{"add_tool", "added_1", "ask_name", "echo"},
				SubscriptionClosed: "local",
				Closed:             true,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the client's report (-want +got):\n%s", diff)
			}

			// The server saw no initialize: every message was of the
			// stateless era, the probe included; the handler of ask_name
			// ran twice, the second time with the answer (its result
			// above carries the name).
			wantView := serverView{
				Methods: []string{
					"notifications/cancelled", "server/discover", "subscriptions/listen",
					"tools/call", "tools/call", "tools/call", "tools/call", "tools/list", "tools/list",
				},
				MetaVersions: map[string]int{modernRevision: 9},
				Retries:      1,
				Statuses:     tc.statuses,
				HeaderFaults: tc.headerFaults,
				Exits:        []string{""},
			}
			if diff := cmp.Diff(wantView, readTrace(t, done())); diff != "" {
				t.Errorf("what the server saw (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTS2ClientFallback(t *testing.T) {
	legacySent := []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}
	for _, tc := range []struct {
		name   string
		server ts2Target
		sent   []string
		// statuses are the HTTP answers, by method.
		statuses map[string]int
	}{
		// On stdio the probe goes to a process of its own, whose answer
		// (an error: the session is not initialized) the client does not
		// trace.
		{name: "stdio", server: fixtureStdio("legacy"), sent: legacySent},
		{
			name: "http", server: fixtureHTTP("legacy"), sent: append([]string{"server/discover"}, legacySent...),
			statuses: map[string]int{
				// The binary links no stateless revision: the probe's
				// MCP-Protocol-Version 2026-07-28 is unknown to it.
				"server/discover 400": 1,
				"initialize 200":      1, "notifications/initialized 202": 1, "tools/list 200": 1, "tools/call 200": 1,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, done := tc.server(t)
			got := runTS2Client(t, "fallback", target...)
			want := ts2Report{
				Transport:     tc.name,
				Sent:          tc.sent,
				Elicitations:  []ts2Elicitation{},
				Notifications: []ts2Notification{},
				Era:           "legacy",
				Negotiated:    legacyRevision,
				ServerName:    ts2FixtureName + "-legacy",
				Tools:         []string{"echo"},
				Echo:          &ts2Text{Text: ts2EchoText},
				Closed:        true,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the client's report (-want +got):\n%s", diff)
			}
			// The probe was refused, then a session ran at 2025-11-25.
			wantView := serverView{
				Methods:      []string{"initialize", "notifications/initialized", "server/discover", "tools/call", "tools/list"},
				MetaVersions: map[string]int{modernRevision: 1, "": 4},
				Statuses:     tc.statuses,
				Exits:        []string{""},
			}
			if diff := cmp.Diff(wantView, readTrace(t, done())); diff != "" {
				t.Errorf("what the server saw (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTS2ClientLegacyEra(t *testing.T) {
	for _, tc := range []struct {
		name     string
		server   ts2Target
		statuses map[string]int
	}{
		{name: "stdio", server: fixtureStdio("modern")},
		{
			name: "http", server: fixtureHTTP("modern"),
			statuses: map[string]int{
				"initialize 200": 1, "notifications/initialized 202": 1, "tools/list 200": 2, "tools/call 200": 3,
				// The client's answer to elicitation/create.
				"(response) 202": 1,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, done := tc.server(t)
			got := runTS2Client(t, "legacy", target...)
			want := ts2Report{
				Transport:     tc.name,
				Sent:          []string{"initialize", "notifications/initialized", "tools/list", "tools/call", "tools/call", "tools/call", "tools/list"},
				Elicitations:  []ts2Elicitation{{Mode: "form", Message: ts2AskMessage}},
				Notifications: []ts2Notification{{Method: "notifications/tools/list_changed"}},
				Era:           "legacy",
				Negotiated:    legacyRevision,
				ServerName:    ts2FixtureName,
				Tools:         []string{"add_tool", "ask_name", "echo"},
				Echo:          &ts2Text{Text: ts2EchoText},
				AskName:       &ts2Text{Text: "Hello, " + ts2UserName + "!"},
				Added:         "added_1",
				ToolsAfter:    []string{"add_tool", "added_1", "ask_name", "echo"},
				Closed:        true,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the client's report (-want +got):\n%s", diff)
			}
			// The same handler asked with a real request: one
			// tools/call of ask_name, answered by a response.
			wantView := serverView{
				Methods:      []string{"(response)", "initialize", "notifications/initialized", "tools/call", "tools/call", "tools/call", "tools/list", "tools/list"},
				MetaVersions: map[string]int{"": 8},
				Statuses:     tc.statuses,
				Exits:        []string{""},
			}
			if diff := cmp.Diff(wantView, readTrace(t, done())); diff != "" {
				t.Errorf("what the server saw (-want +got):\n%s", diff)
			}
		})
	}
}
