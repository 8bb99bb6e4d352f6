package stdio

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

func TestStderrTail(t *testing.T) {
	long := strings.Repeat("x", StderrTailSize)
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"one line", []string{"boom\n"}, "boom"},
		{"lines in pieces", []string{"first li", "ne\nsecond\n"}, "first line\nsecond"},
		{"no final newline", []string{"a\nb"}, "a\nb"},
		{"a cut line is left out", []string{"dropped\n" + long[:StderrTailSize-8] + "\n", "last\n"}, long[:StderrTailSize-8] + "\nlast"},
		{"one write longer than the tail", []string{"old\n" + long + "\nend\n"}, "end"},
		{"one cut line, no newline, is kept", []string{long + "yz"}, long[2:] + "yz"},
		{"control characters are dropped, tabs kept", []string{"\x1b[31mred\x1b[0m\tok\r\n"}, "[31mred[0m\tok"},
		{"invalid UTF-8 is replaced", []string{"a\xffb\n"}, "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tl tail
			for _, w := range tt.writes {
				if n, err := tl.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := tl.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", abbrevOne(got), abbrevOne(tt.want))
			}
		})
	}
}

func abbrevOne(s string) string {
	if len(s) > 40 {
		return s[:20] + "…" + s[len(s)-20:]
	}
	return s
}

// TestCommandExitQuotesStderr runs a server that writes why it fails to
// stderr and exits 3: Read's error names the program, the exit status and
// the end of its stderr, which was forwarded all the same.
func TestCommandExitQuotesStderr(t *testing.T) {
	ctx := testCtx(t)
	forwarded := &syncBuffer{}
	cmd := helperCmd("boom3")
	p, err := Command(ctx, cmd, WithStderr(forwarded))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Read(ctx)
	var ee *exec.ExitError
	if !errors.Is(err, io.EOF) || !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Read = %v, want an error wrapping io.EOF and exit status 3", err)
	}
	want := `stdio: the server process "` + cmd.Args[0] + `" exited: exit status 3; the end of its stderr:` + "\n\tloading config\n\tboom: no config file"
	if err.Error() != want {
		t.Errorf("Read = %q\nwant   %q", err, want)
	}
	if got := p.StderrTail(); got != "loading config\nboom: no config file" {
		t.Errorf("StderrTail = %q", got)
	}
	if got := forwarded.String(); got != "loading config\nboom: no config file\n" {
		t.Errorf("forwarded stderr = %q", got)
	}
}

func TestCommandTransport(t *testing.T) {
	t.Run("a program that does not exist", func(t *testing.T) {
		c := NewCommand(exec.Command("mcpgen-no-such-program"))
		err := c.Start(testCtx(t))
		if err == nil || !strings.Contains(err.Error(), "mcpgen-no-such-program") {
			t.Fatalf("Start = %v, want an error naming the program", err)
		}
		if err2 := c.Start(testCtx(t)); err2 != err {
			t.Errorf("a second Start = %v, want the first one's error", err2)
		}
		if _, rerr := c.Read(testCtx(t)); rerr != err {
			t.Errorf("Read = %v, want the start's error %v", rerr, err)
		}
		if c.Process() != nil {
			t.Error("Process is not nil after a failed start")
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
	t.Run("closed before it starts", func(t *testing.T) {
		c := NewCommand(helperCmd("echo"))
		if err := c.Close(); err != nil {
			t.Fatalf("Close = %v", err)
		}
		if err := c.Start(testCtx(t)); !errors.Is(err, errClosedBeforeStart) {
			t.Errorf("Start after Close = %v", err)
		}
		if c.Process() != nil {
			t.Error("a process was started after Close")
		}
	})
	t.Run("a context already done starts nothing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(testCtx(t))
		cancel()
		c := NewCommand(helperCmd("echo"))
		if err := c.Start(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Start = %v, want context.Canceled", err)
		}
		if c.Process() != nil {
			t.Error("a process was started")
		}
	})
	t.Run("Write starts it, and the process outlives Start's context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(testCtx(t))
		c := NewCommand(helperCmd("echo"), WithStderr(nil))
		defer c.Close()
		if err := c.Write(ctx, []byte(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
		cancel()
		got, err := c.Read(testCtx(t))
		if err != nil || string(got) != `{"n":1}` {
			t.Fatalf("Read = %q, %v", got, err)
		}
		if s := c.String(); !strings.HasPrefix(s, "the server process ") {
			t.Errorf("String = %q", s)
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
}
