package stdio

import (
	"context"
	"errors"
	"os/exec"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

// CommandTransport is a server command that is started when a client
// connects: the transport of a client that starts its server, as a value
// that can be made before there is a context to start it in. Its Start
// (which a generated Connect calls, see transport.Starter) starts the
// command as Command does, with the options given to NewCommand; its
// Read, Write and Close are then the Process's. A Read or Write before
// Start starts it first; a Close before Start starts nothing.
type CommandTransport struct {
	cmd  *exec.Cmd
	opts []Option

	mu     sync.Mutex
	p      *Process
	err    error // of the start
	closed bool
}

var (
	_ transport.Transport = (*CommandTransport)(nil)
	_ transport.Starter   = (*CommandTransport)(nil)
	_ transport.Describer = (*CommandTransport)(nil)
)

// Describe implements transport.Describer as Transport.Describe does: the
// network is "pipe", started or not.
func (c *CommandTransport) Describe() transport.Info { return pipeInfo }

// NewCommand returns the transport that starts cmd when a client connects
// (see CommandTransport); opts are those of Command.
func NewCommand(cmd *exec.Cmd, opts ...Option) *CommandTransport {
	return &CommandTransport{cmd: cmd, opts: opts}
}

// errClosedBeforeStart is the error of a start after Close.
var errClosedBeforeStart = errors.New("stdio: the command's transport was closed before it was started")

// Start starts the command, once: later calls return the first one's
// result. ctx bounds the start only: the process lives until Close, or
// until it exits. A failure names the program, as in `stdio: Command:
// exec: "weathr": executable file not found in $PATH`.
func (c *CommandTransport) Start(ctx context.Context) error {
	_, err := c.process(ctx)
	return err
}

// process starts the command unless it was, and returns its Process.
func (c *CommandTransport) process(ctx context.Context) (*Process, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.p != nil || c.err != nil:
		return c.p, c.err
	case c.closed:
		return nil, errClosedBeforeStart
	}
	if err := ctx.Err(); err != nil {
		return nil, err // not started: a later call may try again
	}
	c.p, c.err = Command(context.WithoutCancel(ctx), c.cmd, c.opts...)
	return c.p, c.err
}

// Process returns the started Process, or nil before Start (or when it
// failed).
func (c *CommandTransport) Process() *Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.p
}

// Read is the Process's Read (see Process.Read).
func (c *CommandTransport) Read(ctx context.Context) ([]byte, error) {
	p, err := c.process(ctx)
	if err != nil {
		return nil, err
	}
	return p.Read(ctx)
}

// Write is the Process's Write.
func (c *CommandTransport) Write(ctx context.Context, data []byte) error {
	p, err := c.process(ctx)
	if err != nil {
		return err
	}
	return p.Write(ctx, data)
}

// InputEnded is the Process's (see Transport.InputEnded); before Start it
// starts the command, and a channel that is closed at once stands for one
// that could not be started.
func (c *CommandTransport) InputEnded() <-chan struct{} {
	p, err := c.process(context.Background())
	if err != nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return p.InputEnded()
}

// ReadAhead is the Process's (see Transport.ReadAhead).
func (c *CommandTransport) ReadAhead() {
	if p := c.Process(); p != nil {
		p.ReadAhead()
	}
}

// Close shuts the server down as Process.Close does, and returns its
// result; before Start it only makes sure nothing is started.
func (c *CommandTransport) Close() error {
	c.mu.Lock()
	p := c.p
	c.closed = true
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Close()
}

// String names the server for messages, as Process.String does.
func (c *CommandTransport) String() string { return commandName(c.cmd) }
