package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// child is a server running in a process of its own (see serveChild).
type child struct {
	name     string // impl/kind
	cmd      *exec.Cmd
	url      string // the MCP endpoint, for the HTTP kinds
	statsURL string
	stdin    io.WriteCloser
	stdout   io.ReadCloser // the protocol stream, for the stdio kind
	tail     *tailBuffer   // the end of its stderr
	sc       *http.Client  // for the stats listener
	exited   chan struct{}
	waitErr  error
}

// startChild starts the server impl/kind in a process of its own with
// GOMAXPROCS=1 and the environment env ("KEY=value"), and waits until it
// listens.
func startChild(impl, kind string, env ...string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c := &child{name: impl + "/" + kind, tail: &tailBuffer{}, exited: make(chan struct{})}
	c.cmd = exec.Command(exe)
	c.cmd.Env = append(os.Environ(), envServer+"="+c.name, "GOMAXPROCS=1")
	c.cmd.Env = append(c.cmd.Env, env...)
	killWithParent(c.cmd)
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if kind == "stdio" {
		if c.stdout, err = c.cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the %s server: %w", c.name, err)
	}
	want := 2
	if kind == "stdio" {
		want = 1
	}
	type addrs struct {
		stats, url string
		err        error
	}
	got := make(chan addrs, 1)
	go func() {
		s, u, err := readChildLines(stderr, want, c.tail)
		got <- addrs{s, u, err}
	}()
	var a addrs
	select {
	case a = <-got:
	case <-time.After(30 * time.Second):
		a.err = fmt.Errorf("no address in 30 s; its stderr: %s", c.tail.String())
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		close(c.exited)
	}()
	if a.err != nil {
		c.stop()
		return nil, fmt.Errorf("the %s server: %w", c.name, a.err)
	}
	c.statsURL, c.url = "http://"+a.stats, a.url
	c.sc = &http.Client{Timeout: 60 * time.Second}
	return c, nil
}

// stop ends the child: its stdin closes (it exits), and after 5 s it is
// killed.
func (c *child) stop() {
	_ = c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	if c.sc != nil {
		c.sc.CloseIdleConnections()
	}
}

// get fetches path from the stats listener.
func (c *child) get(path string) ([]byte, error) {
	resp, err := c.sc.Get(c.statsURL + path)
	if err != nil {
		return nil, fmt.Errorf("the %s server's %s: %w", c.name, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", resp.Status, body)
	}
	if err != nil {
		return nil, fmt.Errorf("the %s server's %s: %w", c.name, path, err)
	}
	return body, nil
}

// stats collects the garbage in the child and returns its heap and
// goroutines.
func (c *child) stats() (serverStats, error) {
	var s serverStats
	body, err := c.get("/stats")
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(body, &s); err != nil {
		return s, fmt.Errorf("the %s server's /stats: %w: %s", c.name, err, body)
	}
	return s, nil
}

// settle waits until the child's goroutine count holds still (the
// connections and sessions that were closing have ended), at most 5 s,
// and returns its stats then.
func (c *child) settle() (serverStats, error) {
	prev, err := c.stats()
	if err != nil {
		return prev, err
	}
	same := 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && same < 3; {
		time.Sleep(25 * time.Millisecond)
		s, err := c.stats()
		if err != nil {
			return s, err
		}
		if s.Goroutines == prev.Goroutines {
			same++
		} else {
			same = 0
		}
		prev = s
	}
	return prev, nil
}

// rss returns the child's resident set size, in bytes.
func (c *child) rss() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("the %s server's RSS (this benchmark reads Linux's /proc): %w", c.name, err)
	}
	return parseVmRSS(b)
}

// cpu returns the CPU time the child used so far (user and system).
func (c *child) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("the %s server's CPU time (this benchmark reads Linux's /proc): %w", c.name, err)
	}
	return parseCPUTime(b)
}

// parseVmRSS returns the VmRSS of a /proc/<pid>/status, in bytes.
func parseVmRSS(status []byte) (int64, error) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := strings.Fields(string(rest))
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("/proc status: VmRSS line %q: want <n> kB", bytes.TrimSpace(line))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc status: VmRSS line %q: %w", bytes.TrimSpace(line), err)
		}
		return kb << 10, nil
	}
	return 0, errors.New("/proc status: no VmRSS line")
}

// userHZ is the unit of the times in /proc/<pid>/stat (USER_HZ, 100 on
// Linux).
const userHZ = 100

// parseCPUTime returns utime+stime of a /proc/<pid>/stat (fields 14 and
// 15, counted from the pid; the command, field 2, is in parentheses and may
// hold spaces).
func parseCPUTime(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc stat %q: no command in parentheses", stat)
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (the state): utime is f[11], stime f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat %q: %d fields after the command, want at least 13", stat, len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("/proc stat %q: utime or stime %q is not a count of ticks", stat, s)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / userHZ), nil
}

// quickRun reports whether the benchmarks run with -benchtime=1x (as
// scripts/test runs every benchmark once, to check that it works): the
// load and memory benchmarks then use small counts, still starting the real
// servers and checking every answer.
func quickRun() bool {
	f := flagValue("test.benchtime")
	return f == "1x"
}

// envInt returns the integer in the environment variable name, or def.
func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// withTimeout runs f with a context that ends after d.
func withTimeout(d time.Duration, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return f(ctx)
}

// flagValue returns the value of the flag name ("" when there is none).
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
