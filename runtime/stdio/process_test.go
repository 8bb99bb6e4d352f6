package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const helperEnv = "MCPGEN_STDIO_HELPER"

// TestMain runs the helper programs of the Command tests when the test
// binary is started as one (the helper-process pattern), and the tests
// otherwise.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(m.Run())
}

func helperMain(mode string) int {
	switch mode {
	case "echo", "stderr", "exit3":
		// Echo each line; exit at the end of stdin.
		if mode == "stderr" {
			os.Stderr.WriteString("helper: started\n")
		}
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			os.Stdout.Write(append(sc.Bytes(), '\n'))
			if mode == "stderr" {
				os.Stderr.WriteString("helper: echoed " + sc.Text() + "\n")
			}
		}
		if mode == "exit3" {
			return 3
		}
		return 0
	case "term", "ignoreterm":
		// Keep running after stdin closes: until SIGTERM (default action),
		// or, ignoring it, until SIGKILL. The sleep bounds a leak.
		if mode == "ignoreterm" {
			signal.Ignore(syscall.SIGTERM)
		}
		os.Stdout.WriteString("ready\n")
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Minute)
		return 0
	case "flood":
		// After stdin closes, write far more than a pipe holds, then exit.
		io.Copy(io.Discard, os.Stdin)
		line := strings.Repeat("x", 1023) + "\n"
		for range 4096 {
			if _, err := os.Stdout.WriteString(line); err != nil {
				return 2
			}
		}
		return 0
	case "daemon":
		// Leave a grandchild holding stdout open, exit at the end of stdin.
		gc := exec.Command(os.Args[0], "-test.run=^$")
		gc.Env = append(os.Environ(), helperEnv+"=sleep", "GORACE=atexit_sleep_ms=0")
		gc.Stdout = os.Stdout
		if err := gc.Start(); err != nil {
			return 2
		}
		os.Stdout.WriteString("ready\n")
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "sleep":
		time.Sleep(3 * time.Second)
		return 0
	case "boom3":
		// Say why on stderr, and exit with status 3 without reading.
		os.Stderr.WriteString("loading config\nboom: no config file\n")
		return 3
	case "die3":
		// Take one request, and exit with status 3 instead of answering.
		bufio.NewReader(os.Stdin).ReadString('\n')
		return 3
	}
	return 100
}

func helperCmd(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// Under -race a program otherwise sleeps a second on exit.
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	return cmd
}

// syncBuffer is a bytes.Buffer safe for the stderr-copying goroutine and
// the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func exitSignal(err error) syscall.Signal {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0
	}
	return ws.Signal()
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	return ee.ExitCode()
}

func TestCommandEcho(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx := testCtx(t)
	stderr := &syncBuffer{}
	p, err := Command(ctx, helperCmd("stderr"), WithStderr(stderr), WithGrace(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for _, m := range msgs {
		if err := p.Write(ctx, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range msgs {
		got, err := p.Read(ctx)
		if err != nil || string(got) != want {
			t.Fatalf("Read = %q, %v; want %q", got, err, want)
		}
	}
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v for a server that exits when stdin closes", d)
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if err := p.ExitErr(); err != nil {
		t.Fatalf("ExitErr = %v", err)
	}
	// Stderr was forwarded, and writing to it was not a failure (T-IO4).
	if s := stderr.String(); !strings.Contains(s, "helper: started") || !strings.Contains(s, "helper: echoed") {
		t.Errorf("stderr = %q", s)
	}
	if _, err := p.Read(ctx); err != io.EOF {
		t.Errorf("Read after Close = %v, want io.EOF", err)
	}
	if err := p.Write(ctx, []byte("{}")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close = %v, want net.ErrClosed", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	checkGoroutines(t, before)
}

func TestCommandClose(t *testing.T) {
	// Servers that exit by themselves get a long grace, so that a slow
	// start does not count as a failure to exit; they must still be quick.
	const grace, long = 300 * time.Millisecond, 10 * time.Second
	tests := []struct {
		name       string
		mode       string
		grace      time.Duration
		ready      bool // wait for a "ready" line first
		wantClose  func(error) bool
		minTime    time.Duration
		maxTime    time.Duration
		wantSignal syscall.Signal // in ExitErr; 0: none
		wantCode   int
		signals    bool // needs POSIX signals
	}{
		{
			name: "exits on stdin close", mode: "echo", grace: long,
			wantClose: func(err error) bool { return err == nil },
			maxTime:   long / 2,
		},
		{
			name: "non-zero exit is reported", mode: "exit3", grace: long,
			wantClose: func(err error) bool { return exitCode(err) == 3 },
			maxTime:   long / 2, wantCode: 3,
		},
		{
			name: "output after stdin close is drained", mode: "flood", grace: long,
			wantClose: func(err error) bool { return err == nil },
			maxTime:   long / 2,
		},
		{
			name: "grandchild keeps stdout open", mode: "daemon", ready: true, grace: long,
			wantClose: func(err error) bool { return err == nil },
			maxTime:   long / 2,
		},
		{
			name: "SIGTERM after grace", mode: "term", ready: true, signals: true, grace: grace,
			wantClose: func(err error) bool { return err == nil },
			minTime:   grace, maxTime: 2 * grace, wantSignal: syscall.SIGTERM,
		},
		{
			name: "SIGKILL when SIGTERM is ignored", mode: "ignoreterm", ready: true, signals: true, grace: grace,
			wantClose: func(err error) bool { return err == nil },
			minTime:   2 * grace, maxTime: 3 * grace, wantSignal: syscall.SIGKILL,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.signals && runtime.GOOS == "windows" {
				t.Skip("needs POSIX signals")
			}
			before := runtime.NumGoroutine()
			ctx := testCtx(t)
			p, err := Command(ctx, helperCmd(tt.mode), WithGrace(tt.grace), WithStderr(nil))
			if err != nil {
				t.Fatal(err)
			}
			if tt.ready {
				if m, err := p.Read(ctx); err != nil || string(m) != "ready" {
					t.Fatalf("Read = %q, %v; want ready", m, err)
				}
			}
			start := time.Now()
			err = p.Close()
			elapsed := time.Since(start)
			if !tt.wantClose(err) {
				t.Errorf("Close = %v", err)
			}
			slack := 3 * time.Second // generous: -race and busy machines
			if elapsed < tt.minTime || elapsed > tt.maxTime+slack {
				t.Errorf("Close took %v, want %v..%v", elapsed, tt.minTime, tt.maxTime)
			}
			if sig := exitSignal(p.ExitErr()); sig != tt.wantSignal {
				t.Errorf("ExitErr = %v: signal %v, want %v", p.ExitErr(), sig, tt.wantSignal)
			}
			if code := exitCode(p.ExitErr()); tt.wantSignal == 0 && code != tt.wantCode {
				t.Errorf("ExitErr = %v: code %d, want %d", p.ExitErr(), code, tt.wantCode)
			}
			checkGoroutines(t, before)
		})
	}
}

func TestCommandServerExitsFirst(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx := testCtx(t)
	p, err := Command(ctx, helperCmd("exit3"), WithStderr(nil))
	if err != nil {
		t.Fatal(err)
	}
	// Make the server exit by itself: close stdin from the outside.
	p.stdin.Close()
	select {
	case <-p.Done():
	case <-ctx.Done():
		t.Fatal("server did not exit")
	}
	// Read says how the server ended, not only that its output did.
	if _, err := p.Read(ctx); !errors.Is(err, io.EOF) || exitCode(err) != 3 || !strings.Contains(err.Error(), "exited: exit status 3") {
		t.Fatalf("Read after server exit = %v, want an error wrapping io.EOF and the exit status 3", err)
	}
	if code := exitCode(p.ExitErr()); code != 3 {
		t.Fatalf("ExitErr = %v", p.ExitErr())
	}
	if err := p.Close(); exitCode(err) != 3 {
		t.Fatalf("Close = %v, want the exit status 3 wrapped", err)
	}
	checkGoroutines(t, before)
}

func TestCommandContextCancel(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs POSIX signals")
	}
	before := runtime.NumGoroutine()
	ctx := testCtx(t)
	cctx, cancel := context.WithCancel(ctx)
	p, err := Command(cctx, helperCmd("term"), WithGrace(100*time.Millisecond), WithStderr(nil))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := p.Read(ctx); err != nil || string(m) != "ready" {
		t.Fatalf("Read = %q, %v", m, err)
	}
	cancel()
	select {
	case <-p.Done():
	case <-ctx.Done():
		t.Fatal("cancelling ctx did not shut the server down")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close after cancel = %v", err)
	}
	if sig := exitSignal(p.ExitErr()); sig != syscall.SIGTERM {
		t.Fatalf("ExitErr = %v", p.ExitErr())
	}
	checkGoroutines(t, before)
}

func TestCommandErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		cmd  func() *exec.Cmd
	}{
		{"cancelled ctx", cancelled, func() *exec.Cmd { return helperCmd("echo") }},
		{"stdin set", context.Background(), func() *exec.Cmd {
			c := helperCmd("echo")
			c.Stdin = strings.NewReader("")
			return c
		}},
		{"stdout set", context.Background(), func() *exec.Cmd {
			c := helperCmd("echo")
			c.Stdout = io.Discard
			return c
		}},
		{"no such program", context.Background(), func() *exec.Cmd {
			return exec.Command("/nonexistent/mcpgen-test-server")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Command(tt.ctx, tt.cmd())
			if err == nil {
				p.Close()
				t.Fatal("Command succeeded")
			}
		})
	}
}
