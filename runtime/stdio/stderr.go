package stdio

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// StderrTailSize is how much of the end of a server process's standard
// error a Process keeps (see Process.StderrTail).
const StderrTailSize = 4 << 10

// tail keeps the last StderrTailSize bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	cut bool // bytes were dropped from the front
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= StderrTailSize {
		t.buf = append(t.buf[:0], p[len(p)-StderrTailSize:]...)
		t.cut = true
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - StderrTailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String returns the text kept: whole lines (a line cut at the front is
// left out), valid UTF-8, without control characters other than newlines
// and tabs, and without a final newline.
func (t *tail) String() string {
	t.mu.Lock()
	b := bytes.Clone(t.buf)
	cut := t.cut
	t.mu.Unlock()
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
		// Without a newline the one long line is kept as it is.
	}
	s := strings.ToValidUTF8(string(b), string(utf8.RuneError))
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
	return strings.TrimRight(s, "\r\n\t ")
}

// forwardStderr copies the server's stderr, r, to w (nil: nowhere) and
// into t until r ends, then closes done. A failing w is not the server's
// failure: its errors are ignored and copying goes on.
func forwardStderr(r *os.File, w io.Writer, t *tail, done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			t.Write(buf[:n])
			if w != nil {
				_, _ = w.Write(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}
