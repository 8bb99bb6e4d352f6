package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// binary builds this example once per test binary and returns its path.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "stdio-server-test-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "stdio-server")
		out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build -o %s .: %v\n%s", built.bin, err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

const (
	initLine        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	echoLine        = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"piped"}}}`
)

// Defect: `stdio-server < file` lost the answer to the file's tools/call in
// most runs, because the end of input cancelled the session while the tool
// ran. Every run must answer it, and exit cleanly.
func TestPipedFileAnswered(t *testing.T) {
	bin := binary(t)
	file := filepath.Join(t.TempDir(), "input.jsonl")
	if err := os.WriteFile(file, []byte(initLine+"\n"+initializedLine+"\n"+echoLine+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := 20
	if testing.Short() {
		runs = 5
	}
	for i := range runs {
		in, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bin)
		cmd.Stdin = in
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		in.Close()
		if err != nil {
			t.Fatalf("run %d: %v\nstderr: %s", i, err, stderr.Bytes())
		}
		var got []string
		for line := range strings.Lines(string(out)) {
			var m struct {
				ID     *int `json:"id"`
				Result struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("run %d: output line %q: %v", i, line, err)
			}
			if m.ID != nil && *m.ID == 1 {
				for _, c := range m.Result.Content {
					got = append(got, c.Text)
				}
			}
		}
		if diff := cmp.Diff([]string{"piped"}, got); diff != "" {
			t.Fatalf("run %d: the tools/call answer (-want +got):\n%s\noutput:\n%s", i, diff, out)
		}
	}
}

// conn is a conversation with the server over its standard input and
// output, one JSON-RPC message a line.
type conn struct {
	t   *testing.T
	in  io.Writer
	out *bufio.Reader
}

// start runs the server for the test; it is killed after 30 s at most, so
// that a read never waits longer.
func start(t *testing.T) *conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cmd := exec.CommandContext(ctx, binary(t))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		err := cmd.Wait()
		cancel()
		if err != nil {
			t.Errorf("server: %v\nstderr: %s", err, stderr.Bytes())
		}
	})
	return &conn{t: t, in: in, out: bufio.NewReader(out)}
}

// message is a JSON-RPC message as the tests read it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result *struct {
		ResultType    *string                            `json:"resultType"`
		Content       []struct{ Text string }            `json:"content"`
		InputRequests map[string]struct{ Method string } `json:"inputRequests"`
		RequestState  string                             `json:"requestState"`
		Meta          map[string]json.RawMessage         `json:"_meta"`
	} `json:"result"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// roundTrip sends line and returns the next message of the server.
func (c *conn) roundTrip(line string) message {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("sending %s: %v", line, err)
	}
	if !strings.Contains(line, `"id"`) {
		return message{} // a notification: nothing comes back
	}
	text, err := c.out.ReadString('\n')
	if err != nil {
		c.t.Fatalf("after %s: reading the answer: %v", line, err)
	}
	var m message
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		c.t.Fatalf("answer %q: %v", text, err)
	}
	if m.Error != nil {
		c.t.Fatalf("after %s: error %d %s", line, m.Error.Code, m.Error.Message)
	}
	return m
}

// text returns the text of a tool result.
func (m message) text() string {
	var s string
	if m.Result != nil {
		for _, c := range m.Result.Content {
			s += c.Text
		}
	}
	return s
}

const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// legacy talks to the server as a client of revision rev that declared
// elicitation: initialize, the echo tool, then the hello tool, which sends
// a real elicitation/create request for the client to answer. It returns
// the texts of the two tool results and notes what a legacy session must
// not see.
func legacy(rev string) func(c *conn) []string {
	return func(c *conn) []string {
		initialize := c.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":{"elicitation":{}},"clientInfo":{"name":"test","version":"1"}}}`)
		c.roundTrip(initializedLine)
		echo := c.roundTrip(echoLine)
		ask := c.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello"}}`)
		if ask.Method != "elicitation/create" || ask.ID == nil {
			c.t.Fatalf("hello on a %s session: got %+v, want an elicitation/create request", rev, ask)
		}
		hello := c.roundTrip(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"name":"Ada"}}}`)
		for _, m := range []message{initialize, echo, hello} {
			if m.Result == nil || m.Result.ResultType != nil {
				c.t.Errorf("a %s session got a result with resultType, or none: %+v", rev, m.Result)
			}
		}
		return []string{echo.text(), hello.text()}
	}
}

// cannot talks to the server as a client of revision rev that declared
// caps, which lack elicitation: the hello tool answers at once, without
// asking.
func cannot(rev, caps string) func(c *conn) []string {
	return func(c *conn) []string {
		c.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":` + caps + `,"clientInfo":{"name":"test","version":"1"}}}`)
		c.roundTrip(initializedLine)
		echo := c.roundTrip(echoLine)
		hello := c.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello"}}`)
		if hello.Method != "" {
			c.t.Fatalf("hello on a %s session without elicitation: got a %s request, want the tool's result", rev, hello.Method)
		}
		return []string{echo.text(), hello.text()}
	}
}

// stateless talks to the server as a 2026-07-28 client, with no
// initialize: the echo tool, then the hello tool, answered with an
// InputRequiredResult, and its retry with the answer and the requestState.
func stateless(c *conn) []string {
	echo := c.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"piped"},` + meta26 + `}}`)
	ask := c.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello",` + meta26 + `}}`)
	if r := ask.Result; r == nil || r.ResultType == nil || *r.ResultType != "input_required" || r.InputRequests["name"].Method != "elicitation/create" || r.RequestState == "" {
		c.t.Fatalf("hello: got %+v, want an InputRequiredResult asking for name by elicitation/create, with a requestState", r)
	}
	state, _ := json.Marshal(ask.Result.RequestState)
	hello := c.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello","inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":` + string(state) + `,` + meta26 + `}}`)
	for _, m := range []message{echo, hello} {
		if m.Result == nil || m.Result.ResultType == nil || *m.Result.ResultType != "complete" || m.Result.Meta["io.modelcontextprotocol/serverInfo"] == nil {
			c.t.Errorf("a stateless result lacks resultType complete or the server's identity: %+v", m.Result)
		}
	}
	return []string{echo.text(), hello.text()}
}

// One server, both eras, over stdio: a legacy session and stateless
// requests get the same tools, and the tool that asks for input asks each
// in its own way (a request to the client, or MRTR).
func TestBothEras(t *testing.T) {
	tests := []struct {
		name string
		talk func(c *conn) []string
	}{
		{"legacy 2025-11-25", legacy("2025-11-25")},
		{"legacy 2025-06-18", legacy("2025-06-18")},
		{"stateless 2026-07-28", stateless},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.talk(start(t))
			if diff := cmp.Diff([]string{"piped", "Hello, Ada!"}, got); diff != "" {
				t.Errorf("tool results (-want +got):\n%s", diff)
			}
		})
	}
}

// A client that cannot answer an elicitation (2025-03-26 has none; a later
// client may not declare it) is greeted without a name, not sent a request
// it would refuse.
func TestHelloWithoutElicitation(t *testing.T) {
	tests := []struct {
		name string
		talk func(c *conn) []string
	}{
		{"2025-03-26", cannot("2025-03-26", `{}`)},
		{"2025-11-25 without elicitation", cannot("2025-11-25", `{"roots":{}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.talk(start(t))
			if diff := cmp.Diff([]string{"piped", "Hello, whoever you are."}, got); diff != "" {
				t.Errorf("tool results (-want +got):\n%s", diff)
			}
		})
	}
}

// The flags: --help prints the usage and the flags; anything else that is
// not a flag of the server is a usage error.
func TestParseFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    options
		done    bool
		wantErr string
	}{
		{args: nil, want: options{writeTimeout: 30 * time.Second, stallTimeout: 30 * time.Second}},
		{args: []string{"--http", "127.0.0.1:0"}, want: options{http: "127.0.0.1:0", writeTimeout: 30 * time.Second, stallTimeout: 30 * time.Second}},
		{args: []string{"--write-timeout=1s", "--stall-timeout", "-1s"}, want: options{writeTimeout: time.Second, stallTimeout: -time.Second}},
		{args: []string{"--help"}, done: true},
		{args: []string{"-h"}, done: true},
		{args: []string{"--bogus"}, wantErr: "unknown flag: --bogus"},
		{args: []string{"serve"}, wantErr: `unexpected argument "serve"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			got, done, err := parseFlags(tt.args, &out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || done != tt.done {
				t.Fatalf("done %v, err %v; want done %v", done, err, tt.done)
			}
			if done {
				if s := out.String(); !strings.Contains(s, "usage: stdio-server") || !strings.Contains(s, "--http ADDR") {
					t.Errorf("help = %q, want the usage and the flags", s)
				}
				return
			}
			if got != tt.want {
				t.Errorf("options = %+v, want %+v", got, tt.want)
			}
		})
	}
}
