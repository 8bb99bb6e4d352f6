package streamhttp

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// scanSeeds are message envelopes the client routes by.
var scanSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
	`{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":5}}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":9}}`,
	`{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}`,
	`{"jsonrpc":"2.0","id":true,"method":7}`,
	`{"result":{"content":[{"type":"text","text":"x"}]},"id":4,"jsonrpc":"2.0"}`,
	` {"jsonrpc":"2.0","id":"\u0061","result":{}} `,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo"}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools\/call"}`,
	`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
	`{"jsonrpc":"2.0","id":8,"method":"tools/calls"}`,
	`{"jsonrpc":"2.0","id":9,"method":""}`,
}

// rawServer serves a Server with an empty MCP server on 127.0.0.1.
func rawServer(t *testing.T, opts ServerOptions) (*Server, *httptest.Server) {
	t.Helper()
	srv := NewServer(NewTestHandler, opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return srv, hs
}

// rawPost POSTs body to hs, in session sid at revision rev when sid is set,
// and returns the response and its body.
func rawPost(t *testing.T, hs *httptest.Server, sid, rev, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", rev)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// rawInitialize opens a session at rev and returns its id.
func rawInitialize(t *testing.T, hs *httptest.Server, rev string) string {
	t.Helper()
	resp, body := rawPost(t, hs, "", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+rev+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, session %q: %s", resp.Status, sid, body)
	}
	rawPost(t, hs, sid, rev, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// TestClientProbe checks that probing a single message finds what reading
// it with a decoder finds.
func TestClientProbe(t *testing.T) {
	for _, s := range scanSeeds {
		d := jsontext.NewDecoder(bytes.NewReader([]byte(s)))
		var want clientMessage
		clientScanMessage(d, &want)
		if got := clientProbe([]byte(s)); got != want {
			t.Errorf("clientProbe(%s) = %+v; the decoder reads %+v", s, got, want)
		}
		if got := clientScan([]byte(s)); len(got) != 1 || got[0] != want {
			t.Errorf("clientScan(%s) = %+v; want [%+v]", s, got, want)
		}
	}
}

// Probing the payload of a POST the client writes (it does so for every
// one) allocates nothing for the usual methods.
func TestClientProbeNoAllocs(t *testing.T) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		v := []byte(s)
		if n := testing.AllocsPerRun(100, func() { _ = clientProbe(v) }); n != 0 {
			t.Errorf("clientProbe(%s): %v allocations, want 0", s, n)
		}
	}
}

func TestAcceptsType(t *testing.T) {
	tests := []struct {
		values []string
		typ    string
		want   bool
	}{
		{[]string{"application/json, text/event-stream"}, "text/event-stream", true},
		{[]string{"application/json", "text/event-stream"}, "text/event-stream", true},
		{[]string{"APPLICATION/JSON;q=0.9"}, "application/json", true},
		{[]string{" text/event-stream ; q=1 , x/y"}, "text/event-stream", true},
		{[]string{"*/*"}, "application/json", true},
		{[]string{"application/jsonx"}, "application/json", false},
		{[]string{"text/html", ""}, "application/json", false},
		{nil, "application/json", false},
	}
	for _, tc := range tests {
		if got := acceptsType(tc.values, tc.typ); got != tc.want {
			t.Errorf("acceptsType(%q, %q) = %v, want %v", tc.values, tc.typ, got, tc.want)
		}
	}
}

// TestBatchesByRevision checks that a POST batch, decoded by the server to
// route it, reaches the session only when the negotiated revision has
// batches (2025-03-26), and is answered with one array; otherwise it is a
// 400 with -32600.
func TestBatchesByRevision(t *testing.T) {
	for _, tc := range []struct {
		rev    string
		status int
		want   string
	}{
		{"2024-11-05", http.StatusBadRequest, "batches are not part of this revision"},
		{"2025-03-26", http.StatusOK, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`},
		{"2025-06-18", http.StatusBadRequest, "batches are not part of this revision"},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			_, hs := rawServer(t, ServerOptions{JSONResponse: true})
			sid := rawInitialize(t, hs, tc.rev)
			resp, body := rawPost(t, hs, sid, tc.rev, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("batch answered %s %s; want %d with %s", resp.Status, body, tc.status, tc.want)
			}
		})
	}
}

// TestJSONAnswersAreNotKept checks that a session answering with JSON bodies
// keeps no stream per POST: only its GET stream.
func TestJSONAnswersAreNotKept(t *testing.T) {
	srv, hs := rawServer(t, ServerOptions{JSONResponse: true})
	sid := rawInitialize(t, hs, "2025-11-25")
	for i := 1; i <= 20; i++ {
		if resp, body := rawPost(t, hs, sid, "2025-11-25", `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"ping"}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("ping %d: %s %s", i, resp.Status, body)
		}
	}
	srv.mu.Lock()
	c := srv.sessions[sid]
	srv.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.streams) != 0 || len(c.byReq) != 0 {
		t.Errorf("after 21 answered requests the session keeps %d streams and %d request routes; want none (the GET stream is made by its first use) and 0", len(c.streams), len(c.byReq))
	}
}

// TestFinishedStreamsAreDropped checks that complete SSE streams whose
// events all went out are not kept, whatever StreamRetention: nothing is
// left to resume.
func TestFinishedStreamsAreDropped(t *testing.T) {
	for _, retention := range []time.Duration{time.Nanosecond, time.Hour, -1} {
		t.Run(retention.String(), func(t *testing.T) {
			store := NewMemoryStore()
			srv, hs := rawServer(t, ServerOptions{StreamRetention: retention, EventStore: store})
			sid := rawInitialize(t, hs, "2025-06-18")
			for i := 1; i <= 10; i++ {
				if resp, body := rawPost(t, hs, sid, "2025-06-18", `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"ping"}`); resp.StatusCode != http.StatusOK {
					t.Fatalf("ping %d: %s %s", i, resp.Status, body)
				}
			}
			srv.mu.Lock()
			c := srv.sessions[sid]
			srv.mu.Unlock()
			streams := func() int {
				c.mu.Lock()
				defer c.mu.Unlock()
				return len(c.streams)
			}
			// The last stream is dropped once its handler returns, which
			// may be after the client read the answer.
			deadline := time.Now().Add(10 * time.Second)
			for streams() > 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := streams(); n != 0 {
				t.Errorf("after 10 delivered answers the session keeps %d streams; want none (the GET stream is made by its first use)", n)
			}
			store.mu.Lock()
			stored := len(store.streams)
			store.mu.Unlock()
			if stored != 0 {
				t.Errorf("the event store keeps %d streams; want none", stored)
			}
		})
	}
}
