package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

// Process is the client side of the stdio transport: a server running as a
// child process, spoken to over its stdin and stdout. It implements
// transport.Transport; Read and Write behave as those of Transport, except
// that once the server has closed its stdout (usually: exited), Read
// returns an error that wraps io.EOF and says how the server ended (see
// Read), which a session passes on to the calls it had in flight.
type Process struct {
	t      *Transport
	cmd    *exec.Cmd
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	grace  time.Duration

	done    chan struct{} // closed when cmd.Wait has returned
	waitErr error         // cmd.Wait's result, set before done is closed
	stopCtx func() bool
	eofErr  error // what Read returns once the server closed its stdout (Read only)

	closeOnce sync.Once
	closeErr  error

	stderr     *os.File      // our end of the child's stderr
	tail       *tail         // the end of what the child wrote there
	stderrDone chan struct{} // closed when forwardStderr has returned
}

var (
	_ transport.Transport = (*Process)(nil)
	_ transport.Describer = (*Process)(nil)
)

// Describe implements transport.Describer as Transport.Describe does: the
// network is "pipe".
func (p *Process) Describe() transport.Info { return pipeInfo }

// Command starts cmd as an MCP server speaking over its stdin and stdout.
// cmd must not have been started and must leave Stdin and Stdout nil; they
// are set to pipes. The server's stderr is forwarded to cmd.Stderr, or if
// that is nil to the WithStderr writer (default os.Stderr), through a pipe
// of the Process's own: it keeps the last StderrTailSize bytes, which the
// error of a server that exits quotes (see Read and StderrTail). Stderr is
// never read as a sign of failure: what the server writes there, and a
// writer that fails, change nothing. If cmd.WaitDelay is zero it is set to
// the grace period.
//
// ctx bounds the lifetime of the process: if it is done before Close, the
// process is shut down as by Close, and a later Close returns the result of
// that shutdown. A ctx already done when Command is called starts nothing.
func Command(ctx context.Context, cmd *exec.Cmd, opts ...Option) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch {
	case cmd.Process != nil:
		return nil, errors.New("stdio: Command: process already started")
	case cmd.Stdin != nil:
		return nil, errors.New("stdio: Command: cmd.Stdin already set")
	case cmd.Stdout != nil:
		return nil, errors.New("stdio: Command: cmd.Stdout already set")
	}
	c := newConfig(opts)

	// Our own pipes rather than cmd.StdinPipe/StdoutPipe: Wait closes those,
	// which would lose output still buffered in the pipe when the process
	// exits; and *os.File ends are handed to the child without copying
	// goroutines.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: Command: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdio: Command: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("stdio: Command: %w", err)
	}
	// The child writes to an *os.File, so that exec.Cmd starts no copying
	// goroutine of its own and Wait does not wait for the pipe to close
	// (descendants of the server may hold it open).
	forward := cmd.Stderr
	if forward == nil {
		forward = os.Stderr
		if c.stderrSet {
			forward = c.stderr // nil: nowhere
		}
	}
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = errW
	if cmd.WaitDelay == 0 && c.grace > 0 {
		cmd.WaitDelay = c.grace
	}
	err = cmd.Start()
	// The child has its copies; ours would keep its stdin from reaching EOF
	// and our reads of its stdout and stderr from ending.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("stdio: Command: %w", err)
	}

	p := &Process{
		t:      newTransport(outR, inW, c),
		cmd:    cmd,
		stdin:  inW,
		stdout: outR,
		grace:  c.grace,
		done:   make(chan struct{}),

		stderr:     errR,
		tail:       &tail{},
		stderrDone: make(chan struct{}),
	}
	go forwardStderr(errR, forward, p.tail, p.stderrDone)
	p.t.drain = true
	ready := make(chan struct{})
	p.stopCtx = context.AfterFunc(ctx, func() {
		<-ready // p.stopCtx is set
		_ = p.Close()
	})
	close(ready)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
		p.stopCtx()
	}()
	return p, nil
}

// Read returns the next message from the server's stdout; see
// Transport.Read. Once the server has closed its stdout, Read waits up to
// a second (or the grace period, if shorter) for the process to exit and
// returns an error that wraps io.EOF and says how it ended, followed by
// the end of its stderr if it wrote any (see StderrTail): `stdio: the
// server process "./weather" exited: exit status 3; the end of its
// stderr:` and the lines, each indented by a tab, also wrapping the
// *exec.ExitError; or, if it has not exited, `stdio: the server process
// "./weather" closed its stdout`. After Close, Read returns io.EOF itself.
func (p *Process) Read(ctx context.Context) ([]byte, error) {
	data, err := p.t.Read(ctx)
	if err != io.EOF || p.t.isClosed() {
		return data, err
	}
	if p.eofErr == nil {
		err := p.ended(ctx)
		if err == nil {
			return nil, ctx.Err() // the next Read tries again
		}
		p.eofErr = err
	}
	return nil, p.eofErr
}

// exitWait bounds how long Read waits for the server process to exit once
// it has closed its stdout, to say how it ended.
const exitWait = time.Second

// ended says how the server ended, once it closed its stdout: how it
// exited, if it does within exitWait (or the grace period, if shorter).
// It returns nil if ctx ended first.
func (p *Process) ended(ctx context.Context) error {
	timer := time.NewTimer(min(exitWait, p.grace))
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
	case <-ctx.Done():
	case <-p.t.done:
	}
	select {
	case <-p.done:
	default:
		if ctx.Err() != nil {
			return nil
		}
		return &endError{msg: "stdio: " + p.String() + " closed its stdout" + p.stderrQuote(), errs: []error{io.EOF}}
	}
	return p.exitError(ctx, io.EOF)
}

// exitError says how the server exited, once it has (Done is closed),
// quoting the end of its stderr; the error wraps cause and the
// *exec.ExitError of a non-zero status.
func (p *Process) exitError(ctx context.Context, cause error) *endError {
	// What the server wrote to stderr before it exited is in the pipe:
	// give the forwarding a moment to reach its end.
	wait := time.NewTimer(min(exitWait, p.grace))
	defer wait.Stop()
	select {
	case <-p.stderrDone:
	case <-wait.C:
	case <-ctx.Done():
	}
	if p.waitErr != nil {
		return &endError{msg: "stdio: " + p.String() + " exited: " + p.waitErr.Error() + p.stderrQuote(), errs: []error{cause, p.waitErr}}
	}
	return &endError{msg: "stdio: " + p.String() + " exited: " + p.cmd.ProcessState.String() + p.stderrQuote(), errs: []error{cause}}
}

// StderrTail returns the end of what the server process wrote to its
// stderr so far: at most its last StderrTailSize bytes, in whole lines, as
// valid UTF-8 without control characters other than newlines and tabs.
// Everything it writes there is also forwarded (see Command).
func (p *Process) StderrTail() string { return p.tail.String() }

// stderrQuote is the end of the server's stderr for an error message:
// "; the end of its stderr:" and the lines, each on a line of its own
// after a tab; "" when it wrote nothing.
func (p *Process) stderrQuote() string {
	t := p.StderrTail()
	if t == "" {
		return ""
	}
	return "; the end of its stderr:\n\t" + strings.ReplaceAll(t, "\n", "\n\t")
}

// String names the server for messages: `the server process "./weather"`,
// after the program as cmd.Args[0] gives it (without the arguments, which
// may hold secrets).
func (p *Process) String() string { return commandName(p.cmd) }

// commandName names the server process of cmd for messages.
func commandName(cmd *exec.Cmd) string {
	name := cmd.Path
	if len(cmd.Args) > 0 && cmd.Args[0] != "" {
		name = cmd.Args[0]
	}
	return fmt.Sprintf("the server process %q", name)
}

// endError is the error Read returns once the server has closed its
// stdout: it wraps io.EOF, and how the process exited.
type endError struct {
	msg  string
	errs []error
}

func (e *endError) Error() string   { return e.msg }
func (e *endError) Unwrap() []error { return e.errs }

// InputEnded returns a channel that is closed once the server's stdout
// has ended (see Transport.InputEnded).
func (p *Process) InputEnded() <-chan struct{} { return p.t.InputEnded() }

// ReadAhead makes the transport read the server's stdout ahead of Read
// until the next Read (see Transport.ReadAhead).
func (p *Process) ReadAhead() { p.t.ReadAhead() }

// Write sends a message to the server's stdin; see Transport.Write.
//
// A Write that fails because the server no longer reads its stdin (EPIPE)
// waits up to a second (or the grace period, if shorter) for the process
// to exit, and then fails with the error Read gives for a server that
// exited, which also wraps the error of the write.
func (p *Process) Write(ctx context.Context, data []byte) error {
	err := p.t.Write(ctx, data)
	if err == nil || !errors.Is(err, syscall.EPIPE) || ctx.Err() != nil || p.t.isClosed() {
		return err
	}
	timer := time.NewTimer(min(exitWait, p.grace))
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		return err
	case <-ctx.Done():
		return err
	}
	return p.exitError(ctx, err)
}

// Done returns a channel closed when the process has exited and been
// waited for.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr returns the result of waiting for the process (see exec.Cmd.Wait):
// nil for a zero exit status, an *exec.ExitError otherwise. It is nil until
// Done is closed.
func (p *Process) ExitErr() error {
	select {
	case <-p.done:
		return p.waitErr
	default:
		return nil
	}
}

// Close shuts the server down as the stdio shutdown sequence says:
// it closes the server's stdin, waits up to the grace period for it to exit,
// then sends SIGTERM and waits up to the grace period again, then sends
// SIGKILL and waits for the exit. (Where SIGTERM cannot be sent, as on
// Windows, it goes straight to killing.) Meanwhile pending and later Reads
// return io.EOF, Writes fail, and whatever the server still writes to its
// stdout is read and discarded so that it cannot block on a full pipe.
//
// Close returns once the process has exited and the goroutines reading its
// output and waiting for it have ended. If the process exited on its own,
// before or after its stdin was closed, Close returns its exit error (a
// non-zero status) wrapped, or nil. If Close had to signal it, the exit
// caused by that is expected and Close returns nil; ExitErr still tells how
// it ended. Close is idempotent: later calls return the first one's result.
func (p *Process) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.shutdown() })
	return p.closeErr
}

func (p *Process) shutdown() error {
	p.stopCtx()
	p.t.start() // drain the server's output from now on
	_ = p.t.Close()
	_ = p.stdin.Close()

	signalled := false
	if !p.waitExit(p.grace) {
		err := p.cmd.Process.Signal(syscall.SIGTERM)
		switch {
		case err == nil:
			signalled = true
			p.waitExit(p.grace)
		case errors.Is(err, os.ErrProcessDone):
			<-p.done
		}
		select {
		case <-p.done:
		default:
			signalled = true
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}

	// The child is gone; a descendant may still hold its stdout open, so
	// stop reading it. os.Pipe files are pollable where it matters, and
	// closing one interrupts a blocked Read; the bound is a safety net.
	_ = p.stdout.Close()
	timer := time.NewTimer(max(p.grace, time.Second))
	select {
	case <-p.t.readerDone:
	case <-timer.C:
	}
	timer.Stop()
	// The same for stderr, once what the server wrote there before it
	// exited had a moment to be forwarded.
	timer = time.NewTimer(min(exitWait, max(p.grace, 0)))
	select {
	case <-p.stderrDone:
	case <-timer.C:
	}
	timer.Stop()
	_ = p.stderr.Close()
	timer = time.NewTimer(max(p.grace, time.Second))
	select {
	case <-p.stderrDone:
	case <-timer.C: // forwarding blocked on a writer that does not take it
	}
	timer.Stop()

	if signalled || p.waitErr == nil {
		return nil
	}
	return fmt.Errorf("stdio: server process %s: %w", p.cmd.Path, p.waitErr)
}

// waitExit waits up to d for the process to exit and reports whether it did.
func (p *Process) waitExit(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.done:
		return true
	case <-timer.C:
		return false
	}
}
