package interop_test

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// startListening starts cmd, a server, with its standard output and error
// collected, and waits, for httpStartTimeout at most, until what it wrote
// matches re; it returns the submatches. When the test ends, the process
// gets the signal stop (and SIGKILL 15 seconds later), and what it wrote
// is logged if the test failed.
func startListening(t *testing.T, name string, cmd *exec.Cmd, stop os.Signal, re *regexp.Regexp) []string {
	t.Helper()
	var out lockedBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(stop)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() || traceAlways {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})
	deadline := time.Now().Add(httpStartTimeout)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before listening: %v\n%s", name, waitErr, out.String())
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen within %v:\n%s", name, httpStartTimeout, out.String())
		}
	}
}
