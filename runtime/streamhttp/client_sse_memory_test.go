package streamhttp

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClientSSEBigLineNotKept: a stream (a GET stream lasts as long as the
// session) that once carried a big line must not keep a buffer of that
// size while it stays open: after the line's event was read and dropped,
// the reader holds little.
func TestClientSSEBigLineNotKept(t *testing.T) {
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
			r := newClientSSE(pr, "")
			var got []string
			for range tt.want {
				ev, err := r.next()
				if err != nil {
					t.Fatalf("next: %v", err)
				}
				s := string(ev.data)
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

// TestClientSSELongLines: lines around and beyond the reader's 4 KiB
// buffer, with every line end cut anywhere, read as the model says, whole
// and in chunks.
func TestClientSSELongLines(t *testing.T) {
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
