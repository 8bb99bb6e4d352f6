package stdio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// checkGoroutines fails t if the goroutine count does not come back down to
// before within a few seconds.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const (
	eof      = "<EOF>"
	tooLarge = "<too large>"
)

// readAll reads until a final error and describes each result.
func readAll(ctx context.Context, tr *Transport) []string {
	var got []string
	for {
		m, err := tr.Read(ctx)
		switch {
		case err == nil:
			got = append(got, string(m))
		case errors.Is(err, ErrMessageTooLarge):
			got = append(got, tooLarge)
		case err == io.EOF:
			return append(got, eof)
		default:
			return append(got, "<"+err.Error()+">")
		}
	}
}

func TestReadFraming(t *testing.T) {
	long := strings.Repeat("y", 100_000)
	tests := []struct {
		name  string
		max   int
		input []string // written in these chunks
		want  []string
	}{
		{"empty input", 0, nil, []string{eof}},
		{"several", 0, []string{"{\"a\":1}\n[2]\n\"three\"\n"}, []string{`{"a":1}`, `[2]`, `"three"`, eof}},
		{"split across writes", 0, []string{"{\"a\"", ":1}\n{\"b\":", "2}\n"}, []string{`{"a":1}`, `{"b":2}`, eof}},
		{"crlf", 0, []string{"a\r\nb\r\n"}, []string{"a", "b", eof}},
		{"blank lines skipped", 0, []string{"\n\na\n\r\n \t\n\r\nb\n\n"}, []string{"a", "b", eof}},
		{"inner cr kept", 0, []string{"a\rb\n"}, []string{"a\rb", eof}},
		{"last line without newline", 0, []string{"a\nb"}, []string{"a", "b", eof}},
		{"blank last line", 0, []string{"a\n  "}, []string{"a", eof}},
		{"exactly max", 8, []string{"12345678\n12345678\r\n"}, []string{"12345678", "12345678", eof}},
		{"oversize then recovery", 8, []string{"123456789\nok\n"}, []string{tooLarge, "ok", eof}},
		{"oversize with crlf", 8, []string{"123456789\r\nok\n"}, []string{tooLarge, "ok", eof}},
		{"oversize many chunks", 8, []string{"a\n", long, long, "\nok\n"}, []string{"a", tooLarge, "ok", eof}},
		{"oversize large limit", 1000, []string{long + "\n" + long[:1000] + "\n"}, []string{tooLarge, long[:1000], eof}},
		{"oversize at eof", 8, []string{"ok\n123456789"}, []string{"ok", tooLarge, eof}},
		{"oversize unterminated", 8, []string{"ok\n", long}, []string{"ok", tooLarge, eof}},
		// A blank line over the limit is too large whether or not it fits
		// in the read buffer (found by FuzzReadFraming).
		{"blank oversize in buffer", 8, []string{"         \nok\n"}, []string{tooLarge, "ok", eof}},
		{"blank oversize past buffer", 8, []string{"a\n" + strings.Repeat(" ", 100) + "\nok\n"}, []string{"a", tooLarge, "ok", eof}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			pr, pw := io.Pipe()
			tr := New(pr, io.Discard, WithMaxMessageSize(tt.max))
			defer tr.Close()
			go func() {
				for _, c := range tt.input {
					if _, err := pw.Write([]byte(c)); err != nil {
						return
					}
				}
				pw.Close()
			}()
			got := readAll(ctx, tr)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got  %q\nwant %q", abbrev(got), abbrev(tt.want))
			}
			// EOF is sticky.
			if _, err := tr.Read(ctx); err != io.EOF {
				t.Fatalf("Read after EOF = %v", err)
			}
		})
	}
}

func abbrev(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		if len(v) > 40 {
			v = fmt.Sprintf("%s…(%d bytes)", v[:20], len(v))
		}
		out[i] = v
	}
	return out
}

func TestTooLargeErrorNamesLimit(t *testing.T) {
	ctx := testCtx(t)
	tr := New(strings.NewReader("0123456789abcdef\n"), io.Discard, WithMaxMessageSize(10))
	_, err := tr.Read(ctx)
	if !errors.Is(err, ErrMessageTooLarge) || !strings.Contains(err.Error(), "10 bytes") {
		t.Fatalf("Read error = %v; want ErrMessageTooLarge naming 10 bytes", err)
	}
}

func TestReadReturnsCopies(t *testing.T) {
	ctx := testCtx(t)
	tr := New(strings.NewReader("aaaa\nbbbb\n"), io.Discard)
	first, err := tr.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if string(first) != "aaaa" {
		t.Fatalf("first message changed to %q by the next Read", first)
	}
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		wantErr error
	}{
		{"object", `{"jsonrpc":"2.0","method":"ping","id":1}`, nil},
		{"escaped newline is fine", `"a\nb"`, nil},
		{"empty", ``, ErrInvalidMessage},
		{"raw newline", "{\"a\":\n1}", ErrInvalidMessage},
		{"raw cr", "{\"a\":\r1}", ErrInvalidMessage},
		{"trailing newline", "{}\n", ErrInvalidMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			pr, pw := io.Pipe()
			tr := New(strings.NewReader(""), pw)
			defer tr.Close()
			lines := make(chan string, 1)
			go func() {
				br := bufio.NewReader(pr)
				s, _ := br.ReadString('\n')
				lines <- s
			}()
			err := tr.Write(ctx, []byte(tt.payload))
			if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Fatalf("Write = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				return
			}
			select {
			case got := <-lines:
				if got != tt.payload+"\n" {
					t.Fatalf("wrote %q, want %q", got, tt.payload+"\n")
				}
			case <-ctx.Done():
				t.Fatal("timeout")
			}
		})
	}
}

// countingWriter records the size of each Write call.
type countingWriter struct {
	mu    sync.Mutex
	calls []int
	buf   strings.Builder
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, len(p))
	return w.buf.Write(p)
}

func TestConcurrentWritesWholeLines(t *testing.T) {
	const writers, each = 8, 50
	ctx := testCtx(t)

	t.Run("io.Pipe", func(t *testing.T) {
		pr, pw := io.Pipe()
		tr := New(strings.NewReader(""), pw)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					// Payloads big enough for io.Pipe to hand them over in
					// several reads.
					p := fmt.Sprintf("%d:%d:%s", w, i, strings.Repeat(string(rune('a'+w)), 1000*(i%20)))
					if err := tr.Write(ctx, []byte(p)); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		go func() { wg.Wait(); tr.Close() }()
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			n++
			var w, i int
			line := sc.Text()
			parts := strings.SplitN(line, ":", 3)
			if len(parts) != 3 {
				t.Fatalf("bad line %.40q", line)
			}
			if _, err := fmt.Sscanf(parts[0]+" "+parts[1], "%d %d", &w, &i); err != nil {
				t.Fatalf("bad line %.40q: %v", line, err)
			}
			rest := parts[2]
			if want := strings.Repeat(string(rune('a'+w)), 1000*(i%20)); rest != want {
				t.Fatalf("line %d:%d mangled: %d bytes of body, want %d", w, i, len(rest), len(want))
			}
		}
		if n != writers*each {
			t.Fatalf("%d lines, want %d", n, writers*each)
		}
	})

	t.Run("one Write call each", func(t *testing.T) {
		cw := &countingWriter{}
		tr := New(strings.NewReader(""), cw)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					if err := tr.Write(ctx, []byte(strings.Repeat("x", w+1))); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if len(cw.calls) != writers*each {
			t.Fatalf("%d Write calls, want %d", len(cw.calls), writers*each)
		}
		for _, line := range strings.SplitAfter(cw.buf.String(), "\n") {
			if line != "" && strings.Trim(line, "x") != "\n" {
				t.Fatalf("bad line %q", line)
			}
		}
	})
}

func TestReadCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx := testCtx(t)
	pr, pw := io.Pipe()
	tr := New(pr, io.Discard)

	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := tr.Read(cctx)
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Read = %v, want context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("Read not cancelled")
	}

	// A line that arrives after the cancelled Read goes to the next one.
	go pw.Write([]byte("after\n"))
	if m, err := tr.Read(ctx); err != nil || string(m) != "after" {
		t.Fatalf("Read = %q, %v", m, err)
	}

	// A line read by the goroutine while nobody was reading is not lost
	// when a Read is cancelled.
	go pw.Write([]byte("pending\n"))
	time.Sleep(20 * time.Millisecond)
	cctx2, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := tr.Read(cctx2); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with cancelled ctx = %v", err)
	}
	if m, err := tr.Read(ctx); err != nil || string(m) != "pending" {
		t.Fatalf("Read = %q, %v", m, err)
	}

	tr.Close()
	checkGoroutines(t, before)
}

func TestClose(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx := testCtx(t)
	inR, _ := io.Pipe()
	outR, outW := io.Pipe()
	tr := New(inR, outW)

	errc := make(chan error, 1)
	go func() {
		_, err := tr.Read(ctx)
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := tr.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if err := tr.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	select {
	case err := <-errc:
		if err != io.EOF {
			t.Fatalf("blocked Read after Close = %v, want io.EOF", err)
		}
	case <-ctx.Done():
		t.Fatal("Close did not unblock Read")
	}
	if _, err := tr.Read(ctx); err != io.EOF {
		t.Fatalf("Read after Close = %v, want io.EOF", err)
	}
	if err := tr.Write(ctx, []byte("{}")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close = %v, want net.ErrClosed", err)
	}
	// The writer was closed: the peer sees the end of its input.
	if n, err := outR.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("peer Read = %d, %v; want EOF", n, err)
	}
	checkGoroutines(t, before)
}

func TestWriteCancelWhileAnotherWriteBlocks(t *testing.T) {
	ctx := testCtx(t)
	pr, pw := io.Pipe() // nobody reads pr: the first Write blocks
	tr := New(strings.NewReader(""), pw)
	defer pr.Close()
	first := make(chan error, 1)
	go func() { first <- tr.Write(ctx, []byte("first")) }()
	for len(tr.sem) == 0 { // until the first Write holds the lock
		time.Sleep(time.Millisecond)
	}

	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := tr.Write(cctx, []byte("second")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Write = %v, want deadline exceeded", err)
	}
	tr.Close() // closes pw, which unblocks the first Write
	select {
	case err := <-first:
		if err == nil {
			t.Fatal("first Write succeeded with nobody reading")
		}
	case <-ctx.Done():
		t.Fatal("Close did not unblock Write")
	}
}
