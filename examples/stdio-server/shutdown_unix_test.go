//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// patientUser answers an elicitation only when told to: until then the
// server's hello handler waits for the answer.
type patientUser struct {
	m25.UnimplementedClient
	asked   chan<- struct{}
	release <-chan struct{}
}

func (u patientUser) Elicit(ctx context.Context, p *m25.ElicitRequestParams) (*m25.ElicitResult, error) {
	u.asked <- struct{}{}
	select {
	case <-u.release:
	case <-ctx.Done():
	}
	return &m25.ElicitResult{Action: m25.ElicitResultActionDecline}, nil
}

// SIGTERM with calls in flight over Streamable HTTP at 2025-11-25: 20
// sessions each call hello, whose handler waits for the user's name (an
// elicitation the client holds). SIGTERM ends the sessions: each handler's
// wait fails, and its answer (a tool error) must still reach its client on
// the POST's SSE stream, not be lost; then each client session learns that
// the server ended it, and the server exits with status 0.
func TestSIGTERMAnswersCallsInFlight(t *testing.T) {
	const n = 20
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errOut := bufio.NewReader(stderr)
	line, err := errOut.ReadString('\n')
	m := servingLine.FindStringSubmatch(line)
	if err != nil || m == nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("first stderr line %q, %v: want the addresses served", line, err)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(errOut)
		rest <- string(b)
	}()
	asked, release := make(chan struct{}, n), make(chan struct{})
	var sessions []*m25.ClientSession
	defer func() {
		close(release) // first: a session's Close waits for its handlers
		for _, cs := range sessions {
			cs.Close()
		}
	}()
	type result struct {
		res *m25.CallToolResult
		err error
	}
	results := make(chan result, n)
	for range n {
		c := streamhttp.NewClient(m[1]+"/mcp", streamhttp.ClientOptions{DefaultRetry: 10 * time.Millisecond})
		cs, err := m25.Connect(ctx, c, &m25.ClientOptions{Info: m25.Implementation{Name: "t", Version: "1"}, Capabilities: m25.ClientCapabilities{Elicitation: &m25.ClientCapabilitiesElicitation{}}, Handler: patientUser{asked: asked, release: release}})
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("Connect: %v", err)
		}
		sessions = append(sessions, cs)
		go func() {
			res, err := cs.CallTool(ctx, &m25.CallToolRequestParams{Name: "hello", Arguments: []byte(`{}`)})
			results <- result{res, err}
		}()
	}
	for range n {
		select {
		case <-asked:
		case r := <-results:
			t.Fatalf("hello ended before SIGTERM: %v, %v", r.res, r.err)
		case <-ctx.Done():
			t.Fatal("hello did not ask for the name")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range n {
		select {
		case r := <-results:
			if r.err != nil {
				t.Errorf("hello in flight at SIGTERM: %v (answer lost: %v); want its answer", r.err, streamhttp.IsAnswerLost(r.err))
			} else if r.res == nil || r.res.IsError == nil || !*r.res.IsError {
				t.Errorf("hello in flight at SIGTERM: %+v; want a tool error (its elicitation could not be answered)", r.res)
			}
		case <-ctx.Done():
			t.Fatal("the calls in flight at SIGTERM did not end")
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatal("the server did not exit after SIGTERM")
	}
	if err != nil {
		t.Fatalf("after SIGTERM: %v, want exit status 0\nstderr: %s", err, <-rest)
	}
	for i, cs := range sessions {
		select {
		case <-cs.Done():
		case <-ctx.Done():
			t.Fatalf("client session %d did not end with the server", i)
		}
		if err := cs.Wait(); !errors.Is(err, streamhttp.ErrSessionExpired) || !strings.Contains(err.Error(), "shutting down") {
			t.Errorf("client session %d ended with %v; want the server's word that it shut down", i, err)
		}
	}
}
