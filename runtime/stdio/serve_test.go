package stdio_test

// The tests of stdio with sessions and servers of a revision package: an
// external test package, since the revision packages import this one.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
)

// TestServeEndsWhenPeerNeverReads checks that a session over stdio whose
// peer stops reading its output ends once its input ends: the answer it
// owes cannot be written, and with WithWriteTimeout that write gives up,
// so the drain finishes and Serve returns.
func TestServeEndsWhenPeerNeverReads(t *testing.T) {
	ctx := stdio.TestCtx(t)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	defer outR.Close()
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "big", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}}, nil
	})
	tr := stdio.New(inR, outW, stdio.WithWriteTimeout(100*time.Millisecond))
	served := make(chan error, 1)
	go func() { served <- mcp.Serve(ctx, tr, srv, session.Options{DrainTimeout: 100 * time.Millisecond}) }()

	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line, err := bufio.NewReader(outR).ReadString('\n'); err != nil || !strings.Contains(line, `"protocolVersion"`) {
		t.Fatalf("initialize answer: %q, %v", line, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// An answer of 1 MiB, which the peer never reads; then the end of input.
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	inW.Close()
	select {
	case <-served:
	case <-ctx.Done():
		t.Fatal("Serve did not return: the answer's write to a peer that never reads blocks the drain")
	}
}

// floodLine is a tools/call request to the tool "count" with id i.
func floodLine(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{}}}`, i)
}

// TestNeverReadingPeerIsHeldBack floods a stdio server with requests from
// a peer that reads nothing after initialize. The server must stop taking
// requests once MaxInFlight answers wait to be written (backpressure),
// instead of starting a handler, and keeping its answer, for each one;
// and it must end, with an error that says the peer stopped reading, both
// when the peer then closes its end of stdin and when Serve's context ends
// (as SIGTERM ends the examples'). The writer hides its Close, as
// os.Stdout's does not interrupt a write blocked on a full pipe: only
// giving the answers up can end the session. A call of the server's own
// waiting for its answer (here a ping a handler sends) makes the server
// read on, for that answer, but not handle more: the requests it reads
// meanwhile wait, within a bound, and are refused when it ends.
func TestNeverReadingPeerIsHeldBack(t *testing.T) {
	const maxInFlight, calls = 8, 2000
	tests := []struct {
		name string
		end  string
		call bool // a handler's call to the peer is pending
	}{
		{"stdin closed", "stdin closed", false},
		{"Serve's context ended", "Serve's context ended", false},
		{"stdin closed, a call pending", "stdin closed", true},
	}
	for _, tt := range tests {
		end := tt.end
		t.Run(tt.name, func(t *testing.T) {
			ctx := stdio.TestCtx(t)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			// At the end, the answers still blocked are let go.
			t.Cleanup(func() { outR.Close(); inW.Close() })
			var handled atomic.Int64
			srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
			srv.MustAddTool(mcp.Tool{Name: "count", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				handled.Add(1)
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
			})
			srv.MustAddTool(mcp.Tool{Name: "ask", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				s, _ := session.FromContext(ctx)
				_, err := s.Call(ctx, "ping", nil)
				return nil, err
			})
			before := runtime.NumGoroutine()
			sctx, stop := context.WithCancel(ctx)
			defer stop()
			tr := stdio.New(inR, struct{ io.Writer }{outW})
			served := make(chan error, 1)
			go func() {
				served <- mcp.Serve(sctx, tr, srv, session.Options{MaxInFlight: maxInFlight, DrainTimeout: 100 * time.Millisecond, StallTimeout: 100 * time.Millisecond})
			}()
			if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
				t.Fatal(err)
			}
			if line, err := bufio.NewReader(outR).ReadString('\n'); err != nil || !strings.Contains(line, `"protocolVersion"`) {
				t.Fatalf("initialize answer: %q, %v", line, err)
			}
			if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
				t.Fatal(err)
			}
			// The flood; from now on the peer reads nothing.
			if tt.call {
				if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":"ask","method":"tools/call","params":{"name":"ask","arguments":{}}}`+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			sent := make(chan int, 1)
			go func() {
				n := 0
				for i := range calls {
					if _, err := io.WriteString(inW, floodLine(i+1)+"\n"); err != nil {
						break
					}
					n++
				}
				sent <- n
			}()
			select {
			case n := <-sent:
				if n != calls {
					t.Fatalf("the peer could write %d of %d requests", n, calls)
				}
			case err := <-served:
				t.Fatalf("Serve returned during the flood: %v", err)
			case <-ctx.Done():
				t.Fatal("the peer could not write its requests: the transport reads ahead less than 2,000 small ones")
			}
			if n := runtime.NumGoroutine() - before; n > maxInFlight+16 {
				t.Errorf("%d goroutines more than before the flood, want at most about MaxInFlight (%d): the server keeps taking requests it cannot answer", n, maxInFlight)
			}
			if end == "stdin closed" {
				inW.Close()
			} else {
				stop()
			}
			var err error
			select {
			case err = <-served:
			case <-ctx.Done():
				t.Fatalf("Serve did not return after %s: answers blocked on a peer that never reads keep it alive", end)
			}
			if err == nil || !strings.Contains(err.Error(), "stopped reading") {
				t.Errorf("Serve = %v, want an error saying the peer stopped reading", err)
			}
			// With a call pending, requests are read (the call's answer must
			// be read), but not handled past MaxInFlight answers waiting to
			// be written: they wait, and are refused when the session ends.
			if n := handled.Load(); n > maxInFlight {
				t.Errorf("%d requests handled for a peer that reads nothing, want at most MaxInFlight (%d)", n, maxInFlight)
			}
		})
	}
}

// TestReadingPeerGetsEveryAnswer floods a server held back by MaxInFlight
// with requests and closes its end of stdin while most wait to be read, as
// `cat requests | server | consumer` does; the peer reads every answer (an
// io.Pipe: each write waits for it). Holding back and the end of the input
// must lose nothing: every request is answered, and Serve ends cleanly.
func TestReadingPeerGetsEveryAnswer(t *testing.T) {
	const maxInFlight, calls = 4, 300
	ctx := stdio.TestCtx(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer outR.Close()
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "count", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
	})
	served := make(chan error, 1)
	go func() {
		served <- mcp.Serve(ctx, stdio.New(inR, outW), srv, session.Options{MaxInFlight: maxInFlight})
	}()
	answered := make(chan map[string]bool, 1)
	go func() {
		ids := map[string]bool{}
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), `"id":`); ok {
				id, _, _ := strings.Cut(rest, ",")
				ids[id] = strings.Contains(sc.Text(), `"result"`)
			}
		}
		answered <- ids
	}()
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i := range calls {
		lines = append(lines, floodLine(i+1))
	}
	if _, err := io.WriteString(inW, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve = %v, want nil: the peer read everything", err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return")
	}
	outW.Close()
	ids := <-answered
	for i := range calls + 1 {
		if !ids[fmt.Sprint(i)] {
			t.Fatalf("request %d was not answered with a result (%d answers)", i, len(ids))
		}
	}
}

// Defect: once its input had ended, a stdio server gave up on a consumer
// that had not read anything for twice its DrainTimeout (3 to 6 s by
// default), and lost the answers, as `server < requests | consumer` did
// with a consumer that paused. How long handlers may run when the session
// ends says nothing about how long a reader may pause: a consumer that
// pauses for less than StallTimeout (30 s by default) gets every answer.
// Here DrainTimeout is 20 ms and the consumer pauses for 25 times that.
func TestPausingConsumerGetsEveryAnswer(t *testing.T) {
	const calls = 40
	ctx := stdio.TestCtx(t)
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "big", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: strings.Repeat("x", 64<<10)}}}}, nil
	})
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i := range calls {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{}}}`, i+1))
	}
	outR, outW := io.Pipe()
	defer outR.Close()
	served := make(chan error, 1)
	go func() {
		// The whole input at once, then its end: answers of 2.5 MiB in all
		// wait for the consumer.
		served <- mcp.Serve(ctx, stdio.New(strings.NewReader(strings.Join(lines, "\n")+"\n"), outW), srv, session.Options{DrainTimeout: 20 * time.Millisecond})
	}()
	out := bufio.NewReader(outR)
	if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, `"protocolVersion"`) {
		t.Fatalf("initialize answer: %q, %v", line, err)
	}
	time.Sleep(500 * time.Millisecond) // the consumer is busy: not a timing assertion
	answered := make(chan int, 1)
	go func() {
		n := 0
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				break
			}
			if strings.Contains(line, `"result"`) {
				n++
			}
		}
		answered <- n
	}()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v, want nil: the consumer read everything", err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return")
	}
	outW.Close()
	if n := <-answered; n != calls {
		t.Errorf("%d of %d calls answered, want all", n, calls)
	}
}

// TestCallFailsWithExitStatus runs a server that dies, exit status 3,
// during a call: the call fails with an error that says so (and is still
// session.ErrClosed), not with a bare "session closed" that leaves the
// reason to Close.
func TestCallFailsWithExitStatus(t *testing.T) {
	ctx := stdio.TestCtx(t)
	p, err := stdio.Command(ctx, stdio.HelperCmd("die3"), stdio.WithStderr(nil))
	if err != nil {
		t.Fatal(err)
	}
	s := session.New(session.Client, p, mcp.NewClientHandler(mcp.UnimplementedClient{}), session.Options{})
	defer s.Close()
	_, err = s.Call(ctx, "ping", nil)
	if !errors.Is(err, session.ErrClosed) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("ping to a server that exits with status 3 = %v, want session.ErrClosed naming exit status 3", err)
	}
	if stdio.ExitCode(err) != 3 {
		t.Errorf("the call's error %v does not wrap the *exec.ExitError", err)
	}
	if err := s.Close(); stdio.ExitCode(err) != 3 {
		t.Errorf("Close = %v, want the exit status 3", err)
	}
}
