package sse

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testMax is the limit of the readers of these tests: streamhttp's.
const testMax = 64 << 20

// sseStep is what one call of Reader.Next gave, and the reader's state
// after it.
type sseStep struct {
	Type     string
	Data     string
	HasData  bool
	LastID   string
	Retry    time.Duration
	RetrySet bool
	EOF      bool
}

// readSSE reads every event of r, a stream continuing after lastID.
func readSSE(t *testing.T, r io.Reader, lastID string) []sseStep {
	t.Helper()
	rd := NewReader(r, lastID, testMax)
	var steps []sseStep
	for range 1 << 16 { // more than the events of any fuzzed input
		ev, err := rd.Next()
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("next: %v", err)
		}
		retry, retrySet := rd.Retry()
		steps = append(steps, sseStep{Type: ev.Type, Data: string(ev.Data), HasData: ev.Data != nil, LastID: rd.LastID(), Retry: retry, RetrySet: retrySet, EOF: err != nil})
		if err != nil {
			return steps
		}
	}
	t.Fatal("no end of stream")
	return nil
}

// chunkReader returns its data in chunks whose sizes cycle through sizes
// (each at least 1).
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.i%len(c.sizes)])%64 + 1
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// referenceSSE parses a text/event-stream as the WHATWG algorithm says,
// with the reader's rule that only an event with at least one known field
// is returned: a model for Reader, written for clarity.
func referenceSSE(in []byte, lastID string) []sseStep {
	var lines [][]byte
	for len(in) > 0 {
		i := bytes.IndexAny(in, "\r\n")
		if i < 0 {
			lines = append(lines, in)
			break
		}
		lines = append(lines, in[:i])
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
	}
	var (
		steps           []sseStep
		typ, data       string
		hasData, fields bool
		idBuf           = lastID
		retry           time.Duration
		retrySet        bool
	)
	for n, line := range lines {
		if n == 0 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(line) == 0 {
			lastID = idBuf
			if fields {
				d := data
				if hasData {
					d = data[:len(data)-1]
				}
				steps = append(steps, sseStep{Type: typ, Data: d, HasData: hasData, LastID: lastID, Retry: retry, RetrySet: retrySet})
			}
			typ, data, hasData, fields = "", "", false, false
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "event":
			typ = string(value)
		case "data":
			data += string(value) + "\n"
			hasData = true
		case "id":
			if !bytes.Contains(value, []byte{0}) {
				idBuf = string(value)
			}
		case "retry":
			digits := len(value) > 0
			ms := int64(0)
			for _, c := range value {
				if c < '0' || c > '9' {
					digits = false
					break
				}
				ms = min(ms*10+int64(c-'0'), int64(time.Hour/time.Millisecond))
			}
			if digits {
				retry, retrySet = time.Duration(ms)*time.Millisecond, true
			}
		default:
			continue
		}
		fields = true
	}
	return append(steps, sseStep{LastID: lastID, Retry: retry, RetrySet: retrySet, EOF: true})
}

// FuzzReader feeds arbitrary bytes to the SSE reader, whole and
// in arbitrary chunks: it never panics, reads the same events and state
// either way (a line ending or BOM cut between two reads changes nothing),
// and agrees with a plain model of the WHATWG algorithm.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		// What the server sends: a priming event with retry, then messages.
		"id: s-1_0\nretry: 1000\ndata: \n\nid: s-1_1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"before\"}}\n\nid: s-1_2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n",
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\n\n",
		// Other servers: CRLF, CR, comments, multi-line data, a BOM, no space.
		"\uFEFFdata:{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n",
		": keep-alive\r\rid:x\rdata:a\rdata:b\r\r",
		"data\n\nid\n\nid: a\x00b\nretry: 12x\nretry: 99999999999\ndata: y\n\nevent: ping\n\n",
		"data: cut off at the end",
		"id: 1\n\n\n\nretry:5\n",
	} {
		f.Add([]byte(s), []byte{0, 7, 1, 63}, "")
	}
	f.Add([]byte("data: x\n\n"), []byte(nil), "s-1_4")
	f.Fuzz(func(t *testing.T, stream, sizes []byte, lastID string) {
		whole := readSSE(t, bytes.NewReader(stream), lastID)
		chunked := readSSE(t, &chunkReader{data: stream, sizes: sizes}, lastID)
		if diff := cmp.Diff(whole, chunked); diff != "" {
			t.Fatalf("%q read in chunks %v differs from reading it whole (-whole +chunked):\n%s", stream, sizes, diff)
		}
		if diff := cmp.Diff(referenceSSE(stream, lastID), whole); diff != "" {
			t.Fatalf("%q: the reader differs from the model (-model +reader):\n%s", stream, diff)
		}
	})
}

// TestBigLineNotKept: a stream (a GET stream lasts as long as the
// session) that once carried a big line must not keep a buffer of that
// size while it stays open: after the line's event was read and dropped,
// the reader holds little.
func TestBigLineNotKept(t *testing.T) {
	const big = 8 << 20
	tests := []struct {
		name   string
		stream func(payload string) string
		want   []string // the data of the events read
	}{
		{"data line", func(p string) string { return "data: " + p + "\n\ndata: small\n\n" }, []string{"<big>", "small"}},
		{"comment", func(p string) string { return ": " + p + "\r\ndata: small\r\n\r\n" }, []string{"small"}},
		{"unknown field, CR line ends", func(p string) string { return "x-big: " + p + "\rdata: small\r\r" }, []string{"small"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := heapAlloc()
			pr, pw := io.Pipe()
			t.Cleanup(func() { pw.Close() })
			written := make(chan struct{})
			go func() {
				defer close(written)
				// The connection stays open after these events.
				io.WriteString(pw, tt.stream(strings.Repeat("x", big)))
			}()
			r := NewReader(pr, "", testMax)
			var got []string
			for range tt.want {
				ev, err := r.Next()
				if err != nil {
					t.Fatalf("next: %v", err)
				}
				s := string(ev.Data)
				if len(s) == big {
					s = "<big>"
				}
				got = append(got, s)
			}
			<-written
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			got = nil
			held := int64(heapAlloc()) - int64(before)
			runtime.KeepAlive(r)
			if held > 1<<20 {
				t.Errorf("the reader holds %d bytes after a %d-byte line was read; want at most 1 MiB", held, big)
			}
		})
	}
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestLongLines: lines around and beyond the reader's 4 KiB
// buffer, with every line end cut anywhere, read as the model says, whole
// and in chunks.
func TestLongLines(t *testing.T) {
	var streams []string
	for _, n := range []int{4088, 4089, 4090, 4091, 4095, 4096, 4097, 8190, 8191, 10000} {
		for _, end := range []string{"\n", "\r", "\r\n"} {
			x := strings.Repeat("y", n)
			streams = append(streams,
				"data: "+x+end+end+"data: after"+end+end,
				": "+x+end+"id: "+x[:10]+end+"data: z"+end+end,
				"data: a"+end+"data:"+x+end+end,
				"data: "+x, // cut off
			)
		}
	}
	for i, s := range streams {
		want := referenceSSE([]byte(s), "")
		for _, sizes := range [][]byte{nil, {63}, {5, 63, 0, 17}} {
			var r io.Reader = strings.NewReader(s)
			if sizes != nil {
				r = &chunkReader{data: []byte(s), sizes: sizes}
			}
			if diff := cmp.Diff(want, readSSE(t, r, "")); diff != "" {
				t.Errorf("stream %d (%d bytes) in chunks %v: the reader differs from the model (-model +reader):\n%s", i, len(s), sizes, diff)
			}
		}
	}
}

// BenchmarkReader measures the SSE reader on what a server
// sends for one call: a priming event, a progress notification and the
// response (a 1 KiB text), read in the chunks a connection gives.
func BenchmarkReader(b *testing.B) {
	text := strings.Repeat("lorem ipsum ", 85)
	stream := []byte("id: s-1_0\nretry: 1000\ndata: \n\n" +
		"id: s-1_1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
		"id: s-1_2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}}\n\n")
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(&chunkReader{data: stream, sizes: []byte{255}}, "", testMax)
		n := 0
		for {
			_, err := r.Next()
			if err != nil {
				break
			}
			n++
		}
		if n != 3 {
			b.Fatalf("%d events, want 3", n)
		}
	}
}
