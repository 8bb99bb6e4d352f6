//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Defect: the example ignored SIGTERM (in HTTP mode it died of it, with no
// graceful shutdown). SIGTERM must end it cleanly, exit status 0, in both
// modes.
func TestSIGTERMEndsCleanly(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// ready waits until the server has installed its signal handler.
		ready func(t *testing.T, stdin io.Writer, stdout, stderr *bufio.Reader)
	}{
		{"http", []string{"--http", "127.0.0.1:0"}, func(t *testing.T, _ io.Writer, _, stderr *bufio.Reader) {
			line, err := stderr.ReadString('\n')
			if err != nil || !strings.Contains(line, "serving MCP on http://127.0.0.1:") {
				t.Fatalf("first stderr line %q, %v: want the address served", line, err)
			}
		}},
		{"stdio", nil, func(t *testing.T, stdin io.Writer, stdout, _ *bufio.Reader) {
			if _, err := io.WriteString(stdin, initLine+"\n"); err != nil {
				t.Fatal(err)
			}
			line, err := stdout.ReadString('\n')
			if err != nil || !strings.Contains(line, `"id":0,"result"`) {
				t.Fatalf("answer to initialize %q, %v", line, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary(t), tt.args...)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out, errOut := bufio.NewReader(stdout), bufio.NewReader(stderr)
			tt.ready(t, stdin, out, errOut)
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			// Read what is left so that the process never blocks writing.
			go io.Copy(io.Discard, out)
			rest, _ := io.ReadAll(errOut)
			err = cmd.Wait()
			if ctx.Err() != nil {
				t.Fatal("the server did not exit after SIGTERM")
			}
			if err != nil {
				t.Fatalf("after SIGTERM: %v, want exit status 0\nstderr: %s", err, rest)
			}
		})
	}
}

// Defect: a stdio client that stopped reading kept the server alive
// forever, through SIGTERM (only SIGKILL ended it), since the answer it
// was writing could never be written. Here the client reads the start of
// a 256 KiB answer, more than a pipe holds, and nothing more: SIGTERM
// must still end the server (once no write has gone through for its
// --stall-timeout), and so must the write timeout by itself, each with
// exit status 1 and a message saying the client stopped reading.
func TestClientThatStopsReading(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		sigterm bool
		want    string
	}{
		{"SIGTERM", []string{"--stall-timeout", "200ms"}, true, "the peer stopped reading"},
		{"write timeout", []string{"--write-timeout", "200ms"}, false, "the peer is not reading"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary(t), tt.args...)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close() // kept open: the client has not ended its input
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewReader(stdout)
			send := func(line string) {
				t.Helper()
				if _, err := io.WriteString(stdin, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			send(initLine)
			if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, `"id":0,"result"`) {
				t.Fatalf("answer to initialize %q, %v", line, err)
			}
			send(initializedLine)
			send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 256<<10) + `"}}}`)
			// The answer is being written: read its start, then nothing more.
			start := make([]byte, 64)
			if _, err := io.ReadFull(out, start); err != nil || !strings.Contains(string(start), `"id":1,"result"`) {
				t.Fatalf("start of the echo answer %q, %v", start, err)
			}
			if tt.sigterm {
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			err = cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("the server did not exit for a client that stopped reading (killed after 30 s)\nstderr: %s", stderr.Bytes())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("server: %v, want exit status 1 and stderr saying %q\nstderr: %s", err, tt.want, stderr.Bytes())
			}
		})
	}
}
