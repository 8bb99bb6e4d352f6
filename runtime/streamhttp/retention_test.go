package streamhttp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// bigAnswer is the text of the answers of these tests: 100 kB.
var bigAnswer = strings.Repeat("x", 100_000)

// countingStore is a MemoryStore that counts the streams dropped.
type countingStore struct {
	*streamhttp.MemoryStore
	mu      sync.Mutex
	dropped int
}

func (s *countingStore) Drop(stream string) {
	s.mu.Lock()
	s.dropped++
	s.mu.Unlock()
	s.MemoryStore.Drop(stream)
}

func (s *countingStore) Memory() *streamhttp.MemoryStore { return s.MemoryStore }

func (s *countingStore) drops() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Answers delivered to a connected client are not kept: after 40 answers
// of 100 kB, with an hour of StreamRetention, the session holds none of
// them (before, each was kept for StreamRetention: 4 MB here, 165 MiB
// after 1,600 such answers with the default 30 seconds).
func TestDeliveredAnswersNotRetained(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "big", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: bigAnswer}}}}, nil
	})
	h, ts := newBufferServer(t, streamhttp.ServerOptions{StreamRetention: time.Hour}, srv)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, c := connectClient(t, ctx, ts.URL)
	for i := range 40 {
		res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "big", Arguments: []byte(`{}`)})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if tc, ok := res.Content[0].Value.(*mcp.TextContent); !ok || tc.Text != bigAnswer {
			t.Fatalf("call %d: not the answer", i)
		}
	}
	sid := c.SessionID()
	var held streamhttp.Held
	// A stream is dropped as its connection's handler returns, which may
	// be just after the client read the answer.
	if !waitFor(10*time.Second, func() bool {
		held = heldBy(t, h, sid)
		return held.Streams == 1 && held.Bytes == 0
	}) {
		t.Errorf("after 40 delivered answers the session holds %d streams and %d bytes of events; want 1 (the GET stream) and 0", held.Streams, held.Bytes)
	}
	if n, b := streamhttp.Retained(h); n != 0 || b != 0 || held.Retained != 0 {
		t.Errorf("the server retains %d streams (%d bytes), the session %d; want none", n, b, held.Retained)
	}
}

// Streams whose connection was cut before their answer are retained
// within SessionRetentionBytes per session and ServerRetentionBytes in
// all, the oldest dropped first: 3 sessions each get 10 answers of 100 kB
// after their connections were cut; each session may keep 2 of them
// (250 kB), the server 4 (450 kB), the others are dropped as the answers
// come. Resuming one of those 4 gets its answer; resuming one of the
// others gets 410 Gone.
func TestRetentionBounded(t *testing.T) {
	const (
		sessions   = 3
		calls      = 10
		perSession = 250_000
		perServer  = 450_000
	)
	release := make(chan struct{})
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "cut", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: bigAnswer}}}}, nil
	})
	store := &countingStore{MemoryStore: streamhttp.NewMemoryStore()}
	h, ts := newBufferServer(t, streamhttp.ServerOptions{
		EventStore:            store,
		StreamRetention:       time.Hour,
		SessionRetentionBytes: perSession,
		ServerRetentionBytes:  perServer,
	}, srv)
	type cut struct{ sid, lastID string }
	var cuts []cut
	var sids []string
	for range sessions {
		sid := initSession(t, ts.URL)
		sids = append(sids, sid)
		for i := range calls {
			ctx, cancel := context.WithCancel(context.Background())
			resp := postWith(t, ctx, ts.URL, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"cut"}}`, 10+i))
			first := events(t, resp, 1) // the priming event
			cancel()                    // the connection breaks before the answer
			if len(first) != 1 || first[0].id == "" {
				t.Fatalf("first events %+v", first)
			}
			cuts = append(cuts, cut{sid, first[0].id})
		}
	}
	for _, sid := range sids {
		if !waitFor(10*time.Second, func() bool { return heldBy(t, h, sid).Attached == 0 }) {
			t.Fatal("the server did not notice the cut connections")
		}
	}
	drops := store.drops() // the initialize streams, delivered
	close(release)
	// Every answer is in once 26 of the 30 streams were dropped (without
	// the bounds, none is, and this waits in vain).
	if !waitFor(20*time.Second, func() bool { return store.drops()-drops >= sessions*calls-4 }) {
		t.Errorf("%d of %d retained streams dropped; want %d", store.drops()-drops, sessions*calls, sessions*calls-4)
	}
	total := 0
	for _, sid := range sids {
		held := heldBy(t, h, sid)
		if held.Bytes > perSession || held.RetainedBytes > perSession || held.Retained > 2 {
			t.Errorf("a session retains %d streams, %d bytes (%d bytes of events); want at most 2 and %d", held.Retained, held.RetainedBytes, held.Bytes, perSession)
		}
		total += held.Bytes
	}
	n, b := streamhttp.Retained(h)
	if n != 4 || b > perServer || total > perServer {
		t.Errorf("the server retains %d streams, %d bytes (%d bytes of events); want 4 and at most %d", n, b, total, perServer)
	}
	// The ones kept resume.
	resumed, gone := 0, 0
	for _, c := range cuts {
		resp := do(t, ts.URL, req{method: http.MethodGet, header: sessionHeaders(c.sid, map[string]string{"Last-Event-ID": c.lastID})})
		switch resp.StatusCode {
		case http.StatusOK:
			b, err := io.ReadAll(resp.Body) // an event line longer than bufio.Scanner takes
			if err != nil || bytes.Count(b, []byte("event: message\n")) != 1 || !bytes.Contains(b, []byte(bigAnswer)) {
				t.Errorf("resuming %s: %d bytes (%v); want one event, the answer", c.lastID, len(b), err)
			}
			resumed++
		case http.StatusGone:
			gone++
		default:
			t.Errorf("resuming %s: %s; want 200 or 410", c.lastID, resp.Status)
		}
	}
	if resumed != 4 || gone != sessions*calls-4 {
		t.Errorf("%d streams resumed, %d gone; want 4 and %d", resumed, gone, sessions*calls-4)
	}
	if n, b := streamhttp.Retained(h); n != 0 || b != 0 {
		t.Errorf("after the resumptions the server retains %d streams (%d bytes); want none: they were delivered", n, b)
	}
}
