package stdio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// chunkReader returns at most n bytes per Read, as a pipe may.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// framing is what the framing rules (T-IO2, see the package doc) make of
// data with the line limit max: each line without its "\n" and one "\r"
// before it; a line longer than max is tooLarge, else one of only blanks is
// skipped; a last line without "\n" counts; then eof.
func framing(data []byte, max int) []string {
	var want []string
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		line = bytes.TrimSuffix(line, []byte{'\r'})
		switch {
		case len(line) > max:
			want = append(want, tooLarge)
		case len(bytes.Trim(line, " \t\r")) == 0:
		default:
			want = append(want, string(line))
		}
	}
	return append(want, eof)
}

// FuzzReadFraming reads arbitrary input, delivered in chunks of a fuzzed
// size, through a transport with a fuzzed line limit and read buffer (so
// that long lines span several buffer fills). Invariants: the messages and
// errors are exactly what the framing rules say, whatever the chunking; a
// message is never empty and holds no "\n"; and every message Write accepts
// reads back the same.
func FuzzReadFraming(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		"\n\n \t\r\n{}\n\r\n",
		"a\rb\n\r\r\n",
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + string(bytes.Repeat([]byte("x"), 300)) + `"}]}}` + "\nok\n",
		"12345678\n123456789\r\n\r",
		"   \n  \t  \t  \t  \t  \t  \t\n",
		"",
	} {
		f.Add([]byte(s), uint16(64), uint8(7), uint8(0))
		f.Add([]byte(s), uint16(8), uint8(1), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxSize uint16, chunk, buf uint8) {
		max := 1 + int(maxSize)%512
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tr := newTransport(&chunkReader{bytes.NewReader(data), 1 + int(chunk)%64}, io.Discard, config{maxSize: max, bufSize: 16 + int(buf)})
		defer tr.Close()
		got := readAll(ctx, tr)
		if diff := cmp.Diff(framing(data, max), got); diff != "" {
			t.Fatalf("max %d, chunk %d, buffer %d: %q read as (-want +got):\n%s", max, 1+int(chunk)%64, 16+int(buf), data, diff)
		}
		if _, err := tr.Read(ctx); err != io.EOF {
			t.Fatalf("Read after the end: %v, want io.EOF", err)
		}

		// Every message read is written back as one line, or refused
		// (ErrInvalidMessage) for a raw "\r"; the lines written read the same.
		var out bytes.Buffer
		w := New(bytes.NewReader(nil), &out)
		var sent []string
		for _, m := range got[:len(got)-1] {
			if m == tooLarge {
				continue
			}
			err := w.Write(ctx, []byte(m))
			if bytes.IndexByte([]byte(m), '\r') >= 0 {
				if !errors.Is(err, ErrInvalidMessage) {
					t.Fatalf("Write(%q) = %v, want ErrInvalidMessage", m, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Write(%q): %v", m, err)
			}
			sent = append(sent, m)
		}
		back := newTransport(&out, io.Discard, config{maxSize: max})
		defer back.Close()
		if diff := cmp.Diff(append(sent, eof), readAll(ctx, back)); diff != "" {
			t.Fatalf("written and read back (-want +got):\n%s", diff)
		}
	})
}
