package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// testTimeout bounds each test's waits.
const testTimeout = 30 * time.Second

var servingLine = regexp.MustCompile(`^serving MCP on (http://127\.0\.0\.1:\d+/mcp)\n$`)

// startServer runs "tasks serve" on a port of 127.0.0.1 chosen now, with
// short steps, and returns its URL. At the end of the test its context
// ends, and it must stop without an error.
func startServer(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--step", "20ms"}, pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(testTimeout):
			t.Error("serve did not return once its context ended")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, pr) }() // whatever else it writes
	m := servingLine.FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("serve wrote %q (%v), want the line saying where it serves", line, err)
	}
	return m[1]
}

// TestClient runs the client against the server: a call followed to its
// end, a task resumed by a new client, a task cancelled. The output is
// the whole story, so it is compared whole.
func TestClient(t *testing.T) {
	url := startServer(t)
	tests := []struct {
		name    string
		args    []string
		answer  string // what the client answers the server's question
		outcome string // the tool's result, after "archived FOLDER; "
	}{
		{"confirm", nil, "yes", "deleted the originals"},
		{"decline", []string{"--decline"}, "no", "kept the originals"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			var out bytes.Buffer
			if err := run(ctx, append([]string{"client", "--url", url}, tt.args...), &out); err != nil {
				t.Fatalf("client: %v\noutput:\n%s", err, out.String())
			}
			asks := func(folder string) string {
				return `   the server asks: "Copied ` + folder + ` to the archive. Delete the originals?"; answering ` + tt.answer + "\n"
			}
			want := "1. archive photos: a call, followed to its end\n" +
				asks("photos") +
				"   result: archived photos; " + tt.outcome + "\n" +
				"2. archive music: started; the client restarts and resumes it\n" +
				"   started a task (working); saved its id, disconnected\n" +
				"   reconnected; waiting for the saved task\n" +
				asks("music") +
				"   result: archived music; " + tt.outcome + "\n" +
				"3. archive videos: started, then cancelled\n" +
				"   started a task (working); cancelling it\n" +
				"   tasks/get: cancelled\n"
			if diff := cmp.Diff(want, out.String()); diff != "" {
				t.Errorf("client output (-want +got):\n%s", diff)
			}
		})
	}
}

// yes accepts every elicitation with confirm = true.
type yes struct{ mcp.UnimplementedClient }

func (yes) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return mcp.Accept(map[string]any{"confirm": true})
}

// TestWithoutTasks: archive is declared Optional, so a client that does
// not declare the extension gets its result from the call itself, with
// the question asked in a round of the request; one that cannot answer
// gets the originals kept.
func TestWithoutTasks(t *testing.T) {
	url := startServer(t)
	tests := []struct {
		name    string
		handler mcp.Client
		want    string
	}{
		{"answers", yes{}, "archived notes; deleted the originals"},
		{"cannot answer", nil, "archived notes; kept the originals (could not ask)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			cs, err := mcp.Connect(ctx, mcp.HTTP(url, nil), &mcp.ClientOptions{Handler: tt.handler})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, archiveCall("notes"))
			if err != nil || res.Failed() || res.Text() != tt.want {
				t.Fatalf("CallTool = %v (%v); want %q", res, err, tt.want)
			}
		})
	}
}

// TestUsage: the command line is checked before anything runs.
func TestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		err  string // "" for none
		out  string // in the output
	}{
		{"help", []string{"--help"}, "", "usage: tasks serve"},
		{"no command", nil, "want one command, serve or client", ""},
		{"two commands", []string{"serve", "client"}, "want one command, serve or client", ""},
		{"unknown command", []string{"list"}, `unknown command "list"`, ""},
		{"unknown flag", []string{"client", "--nope"}, "unknown flag: --nope", ""},
		{"bad address", []string{"serve", "--addr", "127.0.0.1:notaport"}, "127.0.0.1:notaport", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			var out bytes.Buffer
			err := run(ctx, tt.args, &out)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("run: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("run: %v, want an error saying %q", err, tt.err)
			}
			if !strings.Contains(out.String(), tt.out) {
				t.Errorf("output %q, want it to contain %q", out.String(), tt.out)
			}
		})
	}
}
