// Package redistest starts real redis-server processes for tests: each on
// 127.0.0.1, on a port free when it starts, with its files in the test's
// temporary directory, stopped when the test ends.
//
// It is public so that the tests of a fleet of one's own run against the
// engine they will meet in production, not a fake of it. A test that calls
// Start on a machine without redis-server fails (it is not skipped),
// saying how to install it (Debian and Ubuntu: the package redis-server;
// mcpgen's scripts/test installs it).
package redistest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Options says how to run the server.
type Options struct {
	// AppendOnly turns on the append-only file with appendfsync always, so
	// that what was written survives a Restart. The default runs with no
	// persistence at all (no RDB snapshot, no AOF).
	AppendOnly bool
}

// Server is a redis-server process of a test.
type Server struct {
	t    testing.TB
	opts Options
	dir  string
	port int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// readyTimeout bounds the wait for a started server to answer PING.
const readyTimeout = 10 * time.Second

// Start starts a redis-server with no persistence, waits until it answers
// PING, and stops it when the test ends. It fails the test if
// redis-server is not installed or does not come up.
func Start(t testing.TB) *Server { return StartWith(t, Options{}) }

// StartWith is Start with opts.
func StartWith(t testing.TB, opts Options) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redistest: redis-server is not installed (%v): install it (Debian or Ubuntu: apt-get update && apt-get install -y --no-install-recommends redis-server), or run scripts/test, which installs it", err)
	}
	s := &Server{t: t, opts: opts, dir: t.TempDir()}
	t.Cleanup(s.Stop)
	// The port is free when picked but another process may take it before
	// redis-server binds it: a few tries, each with a new port.
	var err error
	for range 3 {
		if s.port, err = freePort(); err != nil {
			break
		}
		if err = s.start(); err == nil {
			return s
		}
	}
	t.Fatalf("redistest: %v", err)
	return nil
}

// Addr returns the server's address, 127.0.0.1:port. It stays the same
// across Restart.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Client returns a client of the server, closed when the test ends.
func (s *Server) Client() *goredis.Client {
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr()})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// Stop stops the server (SIGTERM, then SIGKILL if it has not exited within
// 10s) and waits for it to exit. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// Restart stops the server if it runs and starts it again on the same
// port and directory (what it held survives only with AppendOnly). It
// fails the test if the server does not come back.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restart: %v", err)
	}
}

// start runs redis-server on s.port and waits until it answers PING.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	args := []string{
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(s.port),
		"--dir", s.dir,
		"--daemonize", "no",
		"--save", "",
		"--appendonly", "no",
		"--logfile", "redis.log",
	}
	if s.opts.AppendOnly {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	}
	cmd := exec.Command("redis-server", args...)
	cmd.Dir = s.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()

	c := goredis.NewClient(&goredis.Options{Addr: s.Addr(), DialTimeout: time.Second, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := c.Ping(ctx).Err()
		if err == nil {
			s.cmd, s.done = cmd, done
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("redis-server on port %d exited before answering PING: %s%s", s.port, out.Bytes(), s.logTail())
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-done
			return fmt.Errorf("redis-server on port %d did not answer PING within %v: %w%s", s.port, readyTimeout, errors.Join(err, ctx.Err()), s.logTail())
		case <-tick.C:
		}
	}
}

// logTail returns the end of the server's log file, for an error.
func (s *Server) logTail() string {
	b, err := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "\nredis.log ends with:\n" + string(b)
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
