//go:build unix

package main

import (
	"bufio"
	"context"
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
