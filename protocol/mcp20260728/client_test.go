package mcp20260728_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// serverEnv names the server the test binary runs as, when it is started
// as one by the tests of Connect (the helper-process pattern; TestMain, in
// serve_test.go, calls serverMain).
const serverEnv = "MCPGEN_CLIENT_TEST_SERVER"

// serverMain runs the test binary as a server: a bad one, or a real one.
func serverMain(mode string) int {
	switch mode {
	case "boom3": // exits at once, saying why on stderr
		os.Stderr.WriteString("loading config\nboom: no config file\n")
		return 3
	case "boom3-after-reading": // reads the first request, then exits
		var b [1]byte
		for b[0] != '\n' {
			if _, err := os.Stdin.Read(b[:]); err != nil {
				break
			}
		}
		os.Stderr.WriteString("boom\n")
		return 3
	case "silent": // reads everything, answers nothing
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "chatty": // logs to its stdout, answers nothing
		os.Stdout.WriteString("hello world: a server that logs to stdout, at length, more than the error quotes of it\n")
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "deaf": // ignores the end of its stdin and SIGTERM: only SIGKILL stops it
		signal.Ignore(syscall.SIGTERM)
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Minute) // a bound, should the test not kill it
		return 0
	case "greeter": // a real server
		srv := greeter()
		if err := srv.Serve(context.Background(), stdio.New(os.Stdin, os.Stdout), session.Options{}); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		return 0
	}
	return 100
}

// selfServer returns the transport of this test binary run as the server
// mode. The child inherits the environment, which t.Setenv changes for the
// test.
func selfServer(t *testing.T, mode string) *stdio.CommandTransport {
	t.Setenv(serverEnv, mode)
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	return mcp.Command(os.Args[0], "-test.run=^$")
}

type greeting struct {
	Name string `json:"name" description:"who to greet"`
}

type greeted struct {
	Text string `json:"text"`
}

// greeter is a server with a typed tool, one that asks the user's name,
// and one that fails.
func greeter() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"})
	mcp.AddTypedTool(srv, mcp.NewTool("greet", "Greets"), func(ctx context.Context, in greeting) (greeted, error) {
		return greeted{Text: "Hello, " + in.Name}, nil
	})
	srv.AddTool(mcp.NewTool("ask", "Asks the user's name"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		res, err := mcp.Elicit(ctx, "name", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
			Message: "Your name?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
				Properties: map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}}},
		}})
		if err != nil {
			return nil, err
		}
		name, _ := res.Content["name"].Value.(mcp.ElicitResultContentValueString)
		return mcp.TextResult(string(res.Action) + " " + string(name)), nil
	})
	srv.AddTool(mcp.NewTool("fail", "Fails"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.ErrorResult("the disk is full"), nil
	})
	return srv
}

// namer answers elicitations with a name; it declares no capability: the
// method does.
type namer struct {
	mcp.UnimplementedClient
	name string
}

func (n namer) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return mcp.Accept(map[string]any{"name": n.name})
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestConnectBadDay connects, in both eras, to servers that are not
// there, die, or never answer, and with options that are wrong: each error
// says what happened, and where the server said why, its words.
func TestConnectBadDay(t *testing.T) {
	type connectFunc func(ctx context.Context, tr transport.Transport, timeout time.Duration, revisions []string) error
	connects := map[string]connectFunc{
		"2026-07-28": func(ctx context.Context, tr transport.Transport, timeout time.Duration, revisions []string) error {
			cs, err := mcp.Connect(ctx, tr, &mcp.ClientOptions{ConnectTimeout: timeout, Session: session.Options{Revisions: revisions}})
			if err == nil {
				cs.Close()
			}
			return err
		},
		"2025-11-25": func(ctx context.Context, tr transport.Transport, timeout time.Duration, revisions []string) error {
			cs, err := m25.Connect(ctx, tr, &m25.ClientOptions{ConnectTimeout: timeout, Session: session.Options{Revisions: revisions}})
			if err == nil {
				cs.Close()
			}
			return err
		},
	}
	tests := []struct {
		name      string
		mode      string // of the server; "" for a program that does not exist
		timeout   time.Duration
		revisions []string
		want      []string // substrings of the error
		exit      int      // the exit status the error wraps, if any
		timedOut  bool     // a *session.ConnectTimeoutError
		started   bool     // whether the server was started
	}{
		{name: "the server exits before it reads", mode: "boom3", want: []string{`the server process "`, "exited: exit status 3", "the end of its stderr:\n\tloading config\n\tboom: no config file"}, exit: 3, started: true},
		{name: "the server exits during the handshake", mode: "boom3-after-reading", want: []string{"exited: exit status 3", "the end of its stderr:\n\tboom"}, exit: 3, started: true},
		{name: "the server never answers", mode: "silent", timeout: 300 * time.Millisecond, want: []string{`connect: no answer from the server process "`, "within 300ms: is it an MCP server, writing JSON-RPC messages on its stdout?"}, timedOut: true, started: true},
		{name: "the server logs to its stdout", mode: "chatty", timeout: 3 * time.Second, want: []string{"within 3s: it wrote on its stdout something that is not JSON-RPC, starting \"hello world: a server that logs to stdout, at length, more than the error quotes\": ", "logs go to stderr"}, timedOut: true, started: true},
		{name: "a revision that does not exist", mode: "greeter", revisions: []string{"bogus"}, want: []string{`connect: the revisions allowed (a server's WithRevisions, or session.Options.Revisions): unknown protocol revision "bogus"`, "2025-11-25", "2026-07-28"}},
		{name: "a program that does not exist", want: []string{"connect: stdio: Command: ", "mcpgen-no-such-server"}},
	}
	for era, connect := range connects {
		for _, tt := range tests {
			t.Run(era+"/"+tt.name, func(t *testing.T) {
				ctx := testCtx(t)
				tr := mcp.Command("mcpgen-no-such-server")
				if tt.mode != "" {
					tr = selfServer(t, tt.mode)
				}
				err := connect(ctx, tr, tt.timeout, tt.revisions)
				if err == nil {
					t.Fatal("Connect succeeded")
				}
				t.Logf("%v", err)
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Connect = %q\nwant it to say %q", err, w)
					}
				}
				for _, not := range []string{"already initialized", "import one"} {
					if strings.Contains(err.Error(), not) {
						t.Errorf("Connect = %q; it blames something else (%q)", err, not)
					}
				}
				var ee *exec.ExitError
				if tt.exit != 0 && (!errors.As(err, &ee) || ee.ExitCode() != tt.exit) {
					t.Errorf("Connect = %v; want it to wrap the exit status %d", err, tt.exit)
				}
				var cte *session.ConnectTimeoutError
				if errors.As(err, &cte) != tt.timedOut {
					t.Errorf("Connect = %v; a *session.ConnectTimeoutError: %v, want %v", err, !tt.timedOut, tt.timedOut)
				}
				if (tr.Process() != nil) != tt.started {
					t.Errorf("the server was started: %v, want %v", tr.Process() != nil, tt.started)
				}
			})
		}
	}
}

// TestConnectTimeoutStopsLater connects to a server that never answers and
// takes long to stop (it ignores the end of its stdin and SIGTERM): Connect
// returns at its timeout, while the process is still being stopped, and
// the process is stopped and waited for afterwards.
func TestConnectTimeoutStopsLater(t *testing.T) {
	connects := map[string]func(context.Context, transport.Transport) error{
		"2026-07-28": func(ctx context.Context, tr transport.Transport) error {
			_, err := mcp.Connect(ctx, tr, &mcp.ClientOptions{ConnectTimeout: 200 * time.Millisecond})
			return err
		},
		"2025-11-25": func(ctx context.Context, tr transport.Transport) error {
			_, err := m25.Connect(ctx, tr, &m25.ClientOptions{ConnectTimeout: 200 * time.Millisecond})
			return err
		},
	}
	for era, connect := range connects {
		t.Run(era, func(t *testing.T) {
			t.Setenv(serverEnv, "deaf")
			t.Setenv("GORACE", "atexit_sleep_ms=0")
			// Stopping it takes two grace periods (stdin closed, then
			// SIGTERM) before SIGKILL.
			tr := stdio.NewCommand(exec.Command(os.Args[0], "-test.run=^$"), stdio.WithGrace(2*time.Second))
			err := connect(testCtx(t), tr)
			var cte *session.ConnectTimeoutError
			if !errors.As(err, &cte) {
				t.Fatalf("Connect = %v; want a *session.ConnectTimeoutError", err)
			}
			p := tr.Process()
			if p == nil {
				t.Fatal("the server was not started")
			}
			select {
			case <-p.Done():
				t.Fatal("Connect returned after the server process was stopped, past its timeout")
			default:
			}
			select {
			case <-p.Done(): // stopped and waited for, in the background
			case <-time.After(time.Minute):
				t.Fatal("the server process was not stopped after Connect failed")
			}
		})
	}
}

// TestConnectHTTPRefusedOnce connects over HTTP to servers that refuse in
// a way that is no sign of their era (authorization, a server not there,
// a URL that is not one): Connect reports the probe's failure once,
// without falling back to initialize, which would fail the same way; an API
// key gate's error names the header it asks for, and where to set it.
func TestConnectHTTPRefusedOnce(t *testing.T) {
	refuse := func(status int, challenge string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if challenge != "" {
				w.Header().Set("WWW-Authenticate", challenge)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"no"}}`)
		})
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/mcp"
	closed.Close() // nothing listens there now
	tests := []struct {
		name    string
		handler http.Handler // nil: url as it is
		url     string
		want    []string
	}{
		{name: "an API key gate", handler: refuse(401, `APIKey header="X-API-Key"`), want: []string{"401 Unauthorized", `the server asks for an API key in the header X-API-Key: set it in HTTPClientOptions.Header`}},
		{name: "a Bearer challenge", handler: refuse(401, `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`), want: []string{"401 Unauthorized", "OAuth", "HTTPClientOptions.HTTPClient"}},
		{name: "forbidden", handler: refuse(403, ""), want: []string{"403 Forbidden"}},
		{name: "nothing listens", url: closedURL, want: []string{"connect: ", closedURL}},
		{name: "no scheme", url: "127.0.0.1:1/mcp", want: []string{"connect: ", "127.0.0.1:1/mcp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url
			if tt.handler != nil {
				hs := httptest.NewServer(tt.handler)
				defer hs.Close()
				url = hs.URL + "/mcp"
			}
			_, err := mcp.Connect(testCtx(t), mcp.HTTP(url, nil), &mcp.ClientOptions{ConnectTimeout: 20 * time.Second})
			if err == nil {
				t.Fatal("Connect succeeded")
			}
			t.Logf("%v", err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Connect = %q\nwant it to say %q", err, w)
				}
			}
			for _, not := range []string{"fallback", "initialize"} {
				if strings.Contains(err.Error(), not) {
					t.Errorf("Connect = %q; it fell back to initialize (%q)", err, not)
				}
			}
			var cte *session.ConnectTimeoutError
			if errors.As(err, &cte) {
				t.Errorf("Connect = %v; it waited for its timeout", err)
			}
		})
	}
}

func TestConnectNoTransport(t *testing.T) {
	if _, err := mcp.Connect(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "connect: no transport") {
		t.Errorf("Connect without a transport = %v", err)
	}
}

// TestConnectCommand starts a real server with Command, with no options:
// the client declares elicitation because its handler has Elicit, calls a
// typed tool, and gets a failing tool's text as an error.
func TestConnectCommand(t *testing.T) {
	ctx := testCtx(t)
	cs, err := mcp.Connect(ctx, selfServer(t, "greeter"), &mcp.ClientOptions{Handler: namer{name: "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out, res, err := mcp.CallTypedTool[greeted](ctx, cs, "greet", greeting{Name: "Ada"})
	if err != nil || out.Text != "Hello, Ada" || res == nil {
		t.Errorf("CallTypedTool(greet) = %+v, %v, %v", out, res, err)
	}
	asked, err := cs.CallToolArgs(ctx, "ask", nil)
	if err != nil || asked.Failed() || asked.Text() != "accept Ada" {
		t.Errorf("CallToolArgs(ask) = %q (failed %v), %v; want accept Ada", asked.Text(), asked.Failed(), err)
	}
	_, res, err = mcp.CallTypedTool[greeted](ctx, cs, "fail", struct{}{})
	var te *mcp.ToolError
	if !errors.As(err, &te) || te.Tool != "fail" || err.Error() != `tool "fail" failed: the disk is full` || !res.Failed() {
		t.Errorf("CallTypedTool(fail) = %v; want a *ToolError with the tool's text", err)
	}
}

// TestHTTP reaches a server by its URL with HTTP alone, over either HTTP
// transport: Streamable HTTP, or the HTTP+SSE transport of 2024-11-05, and
// with the headers of its options.
func TestHTTP(t *testing.T) {
	srv := greeter()
	keyed := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	defer keyed.Close()
	tests := []struct {
		name    string
		handler http.Handler
		opts    *mcp.HTTPClientOptions
		want    string // the transport chosen
	}{
		{"Streamable HTTP", streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{}), nil, "*streamhttp.Client"},
		{"HTTP+SSE", ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{}), nil, "*ssehttp.Client"},
		{"with a header", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Api-Key") != "k" {
				http.Error(w, "no key", http.StatusUnauthorized)
				return
			}
			keyed.ServeHTTP(w, r)
		}), &mcp.HTTPClientOptions{Header: http.Header{"X-Api-Key": {"k"}}}, "*streamhttp.Client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler)
			defer hs.Close()
			if c, ok := tt.handler.(interface{ Close() error }); ok {
				defer c.Close()
			}
			ctx := testCtx(t)
			tr := mcp.HTTP(hs.URL, tt.opts)
			cs, err := mcp.Connect(ctx, tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			out, _, err := mcp.CallTypedTool[greeted](ctx, cs, "greet", greeting{Name: "Ada"})
			if err != nil || out.Text != "Hello, Ada" {
				t.Errorf("CallTypedTool = %+v, %v", out, err)
			}
			if got := fmt.Sprintf("%T", tr.Transport()); got != tt.want {
				t.Errorf("the transport chosen is %s, want %s", got, tt.want)
			}
		})
	}
}

// TestClientMiddleware sets a middleware once, in ClientOptions, and
// checks that it sees the client's calls and the server's requests over
// stdio (a started server), Streamable HTTP and HTTP+SSE.
func TestClientMiddleware(t *testing.T) {
	srv := greeter()
	sh := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	defer sh.Close()
	ss := ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{})
	defer ss.Close()
	hsh, hss := httptest.NewServer(sh), httptest.NewServer(ss)
	defer hsh.Close()
	defer hss.Close()
	tests := []struct {
		name string
		tr   func(t *testing.T) mcp.Transport
	}{
		{"stdio", func(t *testing.T) mcp.Transport { return selfServer(t, "greeter") }},
		{"Streamable HTTP", func(t *testing.T) mcp.Transport { return mcp.HTTP(hsh.URL, nil) }},
		{"HTTP+SSE", func(t *testing.T) mcp.Transport { return mcp.HTTP(hss.URL, nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []string
			record := func(next mcp.MessageHandler) mcp.MessageHandler {
				return func(ctx context.Context, m *mcp.Message) (mcp.RawJSON, error) {
					mu.Lock()
					seen = append(seen, fmt.Sprintf("%v %s", m.Outgoing, m.Method))
					mu.Unlock()
					return next(ctx, m)
				}
			}
			ctx := testCtx(t)
			cs, err := mcp.Connect(ctx, tt.tr(t), &mcp.ClientOptions{Handler: namer{name: "Ada"}, Middleware: []mcp.Middleware{record}})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if res, err := cs.CallToolArgs(ctx, "ask", nil); err != nil || res.Text() != "accept Ada" {
				t.Fatalf("CallToolArgs(ask) = %q, %v", res.Text(), err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, want := range []string{"true tools/call", "false elicitation/create"} {
				if !slices.Contains(seen, want) {
					t.Errorf("the middleware saw %q; want %q among them", seen, want)
				}
			}
		})
	}
}

// sentCapabilities connects with opts to a peer that reads the first
// request, and returns the capabilities it declared: initialize's, or the
// _meta of a stateless request.
func sentCapabilities(t *testing.T, connect func(context.Context, transport.Transport) error) (jsontext.Value, error) {
	ctx := testCtx(t)
	clientEnd, serverEnd := transport.Pipe()
	got := make(chan jsontext.Value, 1)
	go func() {
		defer serverEnd.Close()
		msg, err := serverEnd.Read(ctx)
		if err != nil {
			got <- nil
			return
		}
		params, _ := wire.Member(msg, "params")
		if caps, ok := wire.Member(params, "capabilities"); ok {
			got <- caps
			return
		}
		meta, _ := wire.Member(params, "_meta")
		caps, _ := wire.Member(meta, session.MetaClientCapabilities)
		got <- caps
	}()
	err := connect(ctx, clientEnd)
	if err != nil && strings.Contains(err.Error(), "ClientOptions.Handler") {
		return nil, err
	}
	return <-got, nil
}

type (
	sampler       struct{ m25.UnimplementedClient }
	rootsLister   struct{ m25.UnimplementedClient }
	everything    struct{ m25.UnimplementedClient }
	wrongElicit   struct{ m25.UnimplementedClient }
	pointerElicit struct{ m25.UnimplementedClient }
)

func (sampler) CreateMessage(context.Context, *m25.CreateMessageRequestParams) (*m25.CreateMessageResult, error) {
	return nil, nil
}
func (rootsLister) ListRoots(context.Context, *m25.RequestParams) (*m25.ListRootsResult, error) {
	return nil, nil
}
func (everything) Elicit(context.Context, *m25.ElicitRequestParams) (*m25.ElicitResult, error) {
	return nil, nil
}
func (everything) CreateMessage(context.Context, *m25.CreateMessageRequestParams) (*m25.CreateMessageResult, error) {
	return nil, nil
}
func (everything) ListRoots(context.Context, *m25.RequestParams) (*m25.ListRootsResult, error) {
	return nil, nil
}
func (wrongElicit) Elicit(context.Context, *m25.ElicitRequestParams) (m25.ElicitResult, error) {
	return m25.ElicitResult{}, nil
}
func (*pointerElicit) Elicit(context.Context, *m25.ElicitRequestParams) (*m25.ElicitResult, error) {
	return nil, nil
}

// TestClientCapabilitiesInferred checks the capabilities Connect declares for
// the optional interfaces a handler implements, merged with those set by
// hand (which win), in both eras; and that a handler whose method misses
// its interface is refused.
func TestClientCapabilitiesInferred(t *testing.T) {
	yes := true
	tests := []struct {
		name    string
		handler m25.Client
		caps    m25.ClientCapabilities
		want    string
		wantErr string
	}{
		{"nothing", nil, m25.ClientCapabilities{}, `{}`, ""},
		{"notifications only", m25.UnimplementedClient{}, m25.ClientCapabilities{}, `{}`, ""},
		{"Elicit", namer25{}, m25.ClientCapabilities{}, `{"elicitation":{}}`, ""},
		{"CreateMessage", sampler{}, m25.ClientCapabilities{}, `{"sampling":{}}`, ""},
		{"ListRoots", rootsLister{}, m25.ClientCapabilities{}, `{"roots":{}}`, ""},
		{"all three", everything{}, m25.ClientCapabilities{}, `{"elicitation":{},"roots":{},"sampling":{}}`, ""},
		{"set by hand wins", everything{}, m25.ClientCapabilities{
			Elicitation: &m25.ClientCapabilitiesElicitation{URL: jsontext.Value(`{}`)},
			Roots:       &m25.ClientCapabilitiesRoots{ListChanged: &yes},
		}, `{"elicitation":{"url":{}},"roots":{"listChanged":true},"sampling":{}}`, ""},
		{"set by hand without a method", m25.UnimplementedClient{}, m25.ClientCapabilities{Sampling: &m25.ClientCapabilitiesSampling{}}, `{"sampling":{}}`, ""},
		{"a method of another signature", wrongElicit{}, m25.ClientCapabilities{}, "", "connect: ClientOptions.Handler: mcp20260728_test.wrongElicit has a method Elicit of type func(context.Context, *mcp20251125.ElicitRequestParams) (mcp20251125.ElicitResult, error), which is not Elicitor's func(context.Context, *ElicitRequestParams) (*ElicitResult, error)"},
		{"a method on the pointer", pointerElicit{}, m25.ClientCapabilities{}, "", "connect: ClientOptions.Handler: mcp20260728_test.pointerElicit has its method Elicit on the pointer type *mcp20260728_test.pointerElicit: pass a pointer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sentCapabilities(t, func(ctx context.Context, tr transport.Transport) error {
				_, err := m25.Connect(ctx, tr, &m25.ClientOptions{Handler: tt.handler, Capabilities: tt.caps})
				return err
			})
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("Connect = %v\nwant it to say %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("capabilities = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	t.Run("stateless era", func(t *testing.T) {
		got, err := sentCapabilities(t, func(ctx context.Context, tr transport.Transport) error {
			_, err := mcp.Connect(ctx, tr, &mcp.ClientOptions{Handler: namer{}})
			return err
		})
		if err != nil || string(got) != `{"elicitation":{}}` {
			t.Errorf("capabilities = %s, %v; want the elicitation capability", got, err)
		}
	})
}

// namer25 is namer at 2025-11-25.
type namer25 struct{ m25.UnimplementedClient }

func (namer25) Elicit(ctx context.Context, p *m25.ElicitRequestParams) (*m25.ElicitResult, error) {
	return m25.Accept(map[string]any{"name": "Ada"})
}

type color string

func TestAccept(t *testing.T) {
	tests := []struct {
		name    string
		content map[string]any
		want    string
		wantErr string
	}{
		{"nothing", nil, `{"action":"accept"}`, ""},
		{"kinds", map[string]any{
			"name": "Ada", "color": color("red"), "ok": true, "age": 36, "big": uint64(1 << 40), "fromJSON": 7.0,
			"tags": []string{"a", "b"}, "anys": []any{"c"}, "union": mcp.ElicitResultContentValue{Value: mcp.ElicitResultContentValueBoolean(false)},
			"variant": mcp.ElicitResultContentValueString("v"),
		}, `{"action":"accept","content":{"age":36,"anys":["c"],"big":1099511627776,"color":"red","fromJSON":7,"name":"Ada","ok":true,"tags":["a","b"],"union":false,"variant":"v"}}`, ""},
		{"a fraction", map[string]any{"score": 1.5}, "", `answer: field "score": 1.5 has a fraction, and revision 2026-07-28 answers with integers only`},
		{"a map", map[string]any{"where": map[string]any{}}, "", `answer: field "where": a map[string]interface {} cannot be an answer in revision 2026-07-28`},
		{"a list of numbers", map[string]any{"n": []any{1}}, "", `answer: field "n": element 0 is a int; a list answer holds strings`},
		{"nil", map[string]any{"x": nil}, "", `answer: field "x": a <nil> cannot be an answer`},
		{"too big", map[string]any{"x": uint64(1 << 63)}, "", `answer: field "x": 9223372036854775808 is out of the range`},
		{"the first bad field by name", map[string]any{"b": 1.5, "a": 2.5, "c": 3.5}, "", `answer: field "a": 2.5 has a fraction`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := mcp.Accept(tt.content)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Accept = %v\nwant it to say %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.AppendJSON(nil)
			if err != nil || string(b) != tt.want {
				t.Errorf("Accept = %s, %v\nwant %s", b, err, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		f    func() (*mcp.ElicitResult, error)
		want string
	}{{mcp.Decline, `{"action":"decline"}`}, {mcp.Cancel, `{"action":"cancel"}`}} {
		r, err := tt.f()
		b, _ := r.AppendJSON(nil)
		if err != nil || string(b) != tt.want {
			t.Errorf("got %s, %v; want %s", b, err, tt.want)
		}
	}
}

// TestCallTypedToolChecks checks what CallTypedTool refuses: arguments
// that are not an object, and a structured result that breaks the
// outputSchema the server listed (the tools are listed first), or that does
// not decode into Out.
func TestCallTypedToolChecks(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	lying := mcp.NewTool("lying", "")
	lying.OutputSchema = []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	srv.AddTool(lying, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: []byte(`{"n":"seven"}`)}, nil
	})
	srv.AddTool(mcp.NewTool("text", ""), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult(`{"n":7}`), nil
	})
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()
	ctx := testCtx(t)
	cs, err := mcp.Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	type out struct {
		N int `json:"n"`
	}
	if _, _, err := mcp.CallTypedTool[out](ctx, cs, "text", []int{1}); err == nil || err.Error() != `tools/call "text": arguments: want a JSON object, got an array from a []int` {
		t.Errorf("CallTypedTool with an array = %v", err)
	}
	if _, err := cs.CallToolArgs(ctx, "text", `{"city":"Paris"}`); err == nil || err.Error() != `tools/call "text": arguments: want a JSON object, got a string from a Go string, which is sent as a JSON string: to pass JSON text, give []byte(text) or RawJSON(text)` {
		t.Errorf("CallToolArgs with JSON text in a string = %v", err)
	}
	if _, _, err := mcp.CallTypedTool[out](ctx, cs, "lying", struct{}{}); err == nil || !strings.Contains(err.Error(), "does not match the tool's outputSchema") || !strings.Contains(err.Error(), "/n") {
		t.Errorf("CallTypedTool of a result that breaks the outputSchema = %v", err)
	}
	for _, args := range []any{[]byte(`{"a":1}`), jsontext.Value(`{}`), map[string]any{}, nil} {
		if got, _, err := mcp.CallTypedTool[out](ctx, cs, "text", args); err != nil || got.N != 7 {
			t.Errorf("CallTypedTool with the arguments %#v = %+v, %v", args, got, err)
		}
	}
	if _, err := cs.CallToolArgs(ctx, "text", []byte(`{"a":`)); err == nil || err.Error() != `tools/call "text": arguments: the []uint8 is not valid JSON` {
		t.Errorf("CallToolArgs with invalid JSON = %v", err)
	}
	if got, _, err := mcp.CallTypedTool[out](ctx, cs, "text", map[string]any{}); err != nil || got.N != 7 {
		t.Errorf("CallTypedTool of a text result = %+v, %v", got, err)
	}
	if _, _, err := mcp.CallTypedTool[[]string](ctx, cs, "text", struct{}{}); err == nil || !strings.Contains(err.Error(), `tools/call "text": the result's text as JSON: `) {
		t.Errorf("CallTypedTool into the wrong type = %v", err)
	}
}

func TestResultText(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name   string
		res    *mcp.CallToolResult
		text   string
		failed bool
	}{
		{"nil", nil, "", false},
		{"empty", &mcp.CallToolResult{}, "", false},
		{"blocks", &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text("a"), mcp.Image([]byte{1}, "image/png"), mcp.Text("b")}}, "a\nb", false},
		{"isError false", &mcp.CallToolResult{IsError: &no}, "", false},
		{"isError", mcp.ErrorResult("bad"), "bad", true},
		{"isError set by hand", &mcp.CallToolResult{IsError: &yes}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.Text(); got != tt.text {
				t.Errorf("Text() = %q, want %q", got, tt.text)
			}
			if got := tt.res.Failed(); got != tt.failed {
				t.Errorf("Failed() = %v, want %v", got, tt.failed)
			}
		})
	}
	if got := mcp.Image([]byte{1}, "image/png").Text(); got != "" {
		t.Errorf("an image block's Text() = %q", got)
	}
	read := &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{
		{Value: &mcp.TextResourceContents{URI: "a", Text: "one"}},
		{Value: &mcp.BlobResourceContents{URI: "b", Blob: "AQ=="}},
		{Value: &mcp.TextResourceContents{URI: "c", Text: "two"}},
	}}
	if got := read.Text(); got != "one\ntwo" {
		t.Errorf("ReadResourceResult.Text() = %q", got)
	}
	prompt := mcp.PromptText("user", "hi")
	if got := prompt.Text(); got != "hi" {
		t.Errorf("GetPromptResult.Text() = %q", got)
	}
}

// TestIsResourceNotFound knows the not-found error of either era, wrapped
// or not, and nothing else.
func TestIsResourceNotFound(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"-32002, up to 2025-11-25", &mcp.RPCError{Code: -32002, Message: "not found"}, true},
		{"-32602 with the URI, 2026-07-28", &mcp.RPCError{Code: -32602, Message: "resource not found: a://b", Data: jsontext.Value(`{"uri":"a://b"}`)}, true},
		{"wrapped", fmt.Errorf("reading: %w", &mcp.RPCError{Code: -32002}), true},
		{"-32602 of other params", &mcp.RPCError{Code: -32602, Message: "bad cursor"}, false},
		{"-32602 with other data", &mcp.RPCError{Code: -32602, Data: jsontext.Value(`{"field":"uri"}`)}, false},
		{"-32603", &mcp.RPCError{Code: -32603, Data: jsontext.Value(`{"uri":"a://b"}`)}, false},
		{"not of the protocol", errors.New("resource not found"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mcp.IsResourceNotFound(tt.err); got != tt.want {
				t.Errorf("IsResourceNotFound(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
	// What a server sends, in either era.
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("a server at "+rev, func(t *testing.T) {
			ctx := testCtx(t)
			serverEnd, clientEnd := mcp.Pipe()
			srv := greeter()
			srv.MustAddResource(mcp.NewResource("note://hello", "hello", "text/plain"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
				return nil, mcp.ResourceNotFound(p.URI)
			})
			go srv.Serve(ctx, serverEnd, session.Options{})
			cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Revisions: []string{rev}})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "note://missing"})
			if !mcp.IsResourceNotFound(err) {
				t.Errorf("ReadResource(missing) = %v; IsResourceNotFound false", err)
			}
		})
	}
}

// TestClientOptionsRevisions pins the revision with the shortcut, which
// replaces Session.Revisions when set, and is checked by name.
func TestClientOptionsRevisions(t *testing.T) {
	tests := []struct {
		name      string
		revisions []string
		session   []string
		want      string // the revision spoken, or a substring of the error
	}{
		{"the shortcut", []string{"2025-11-25"}, nil, "2025-11-25"},
		{"the shortcut wins", []string{"2025-06-18"}, []string{"2026-07-28"}, "2025-06-18"},
		{"Session.Revisions alone", nil, []string{"2025-11-25"}, "2025-11-25"},
		{"neither", nil, nil, "2026-07-28"},
		{"a name not linked", []string{"2025-13-01"}, nil, `unknown protocol revision "2025-13-01"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			serverEnd, clientEnd := mcp.Pipe()
			go greeter().Serve(ctx, serverEnd, session.Options{})
			cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Revisions: tt.revisions, Session: session.Options{Revisions: tt.session}})
			if err != nil {
				serverEnd.Close()
				if !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Connect = %v, want %s", err, tt.want)
				}
				return
			}
			defer cs.Close()
			if got := cs.Revision().Name; got != tt.want {
				t.Errorf("the revision spoken is %s, want %s", got, tt.want)
			}
		})
	}
}
