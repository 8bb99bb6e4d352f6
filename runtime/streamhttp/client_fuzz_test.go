package streamhttp

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// sseStep is what one call of clientSSE.next gave, and the reader's state
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
	sse := newClientSSE(r, lastID)
	var steps []sseStep
	for range 1 << 16 { // more than the events of any fuzzed input
		ev, err := sse.next()
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("next: %v", err)
		}
		steps = append(steps, sseStep{Type: ev.typ, Data: string(ev.data), HasData: ev.data != nil, LastID: sse.lastID, Retry: sse.retry, RetrySet: sse.retrySet, EOF: err != nil})
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
// is returned: a model for clientSSE, written for clarity.
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

// FuzzClientSSE feeds arbitrary bytes to the client's SSE reader, whole and
// in arbitrary chunks: it never panics, reads the same events and state
// either way (a line ending or BOM cut between two reads changes nothing),
// and agrees with a plain model of the WHATWG algorithm.
func FuzzClientSSE(f *testing.F) {
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

// FuzzClientScan checks the client's envelope scan against a full decode:
// on a payload that jsonrpc.Decode accepts message by message, clientScan
// finds each message's kind, id, method and result.protocolVersion; on a
// single valid JSON object, the probe without a decoder finds what the
// decoder does; and nothing panics.
func FuzzClientScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"no"}}]`,
		`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":2,"method":"roots/list"}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}`,
		`[1,{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`{"id":1,"id":2,"result":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := clientScan(data)
		if firstByte(data) == '{' && jsontext.Value(data).IsValid() {
			var viaDecoder clientMessage
			clientScanMessage(jsontext.NewDecoder(bytes.NewReader(data)), &viaDecoder)
			if len(got) != 1 || got[0] != viaDecoder {
				t.Fatalf("clientScan(%s) = %+v; the decoder reads %+v", data, got, viaDecoder)
			}
		}
		items, _, err := jsonrpc.Decode(data, true)
		if err != nil {
			return
		}
		var want []clientMessage
		for _, it := range items {
			if it.Err != nil {
				return // the scan may stop anywhere in an invalid message
			}
			m := clientMessage{kind: it.Msg.Kind, method: it.Msg.Method}
			if it.Msg.Kind != jsonrpc.Notification {
				m.id = it.Msg.ID
			}
			if it.Msg.Kind == jsonrpc.Response {
				if pv, ok := wire.Member(it.Msg.Result, "protocolVersion"); ok && jsontext.Value(pv).Kind() == '"' {
					m.version, _ = wire.MemberString(it.Msg.Result, "protocolVersion")
				}
			}
			want = append(want, m)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(clientMessage{}, wire.ID{})); diff != "" {
			t.Fatalf("clientScan(%s) disagrees with jsonrpc.Decode (-decode +scan):\n%s", data, diff)
		}
	})
}
