package streamhttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// TestClientQueueBounded: a server that streams faster than the session
// reads (its notification handler is slow, so its reader waits) must not
// make the Client buffer without bound. The stream's reader waits for room
// instead (TCP pushes back on the server), and once the session reads,
// every message arrives, in order.
func TestClientQueueBounded(t *testing.T) {
	const notes = 3000
	pad := strings.Repeat("x", 500)
	tests := []struct {
		name        string
		opts        streamhttp.ClientOptions
		maxPayloads int
		maxBytes    int
	}{
		{"payloads", streamhttp.ClientOptions{MaxQueued: 50}, 50, 1 << 30},
		{"bytes", streamhttp.ClientOptions{MaxQueuedBytes: 32 << 10}, notes, 32 << 10},
		{"a payload larger than the limit fits an empty queue", streamhttp.ClientOptions{MaxQueuedBytes: 100}, 1, 1 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leak := clGoroutines(t)
			ctx := clCtx(t)
			f, srv := clNewFake(t)
			f.sse = true
			f.getStatus = http.StatusMethodNotAllowed
			sent := make(chan struct{})
			f.post = func(w http.ResponseWriter, m clFakeMsg, stream string) bool {
				if m.Method != "tools/call" {
					return false
				}
				defer close(sent)
				for i := 1; i <= notes; i++ {
					f.sendEvent(w, stream, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"n":%d,"pad":%q}}}`, i, pad))
				}
				return false // and the response
			}
			opts := tt.opts
			opts.DefaultRetry = 20 * time.Millisecond
			c := streamhttp.NewClient(srv.URL, opts)
			clHandshake(ctx, t, c)
			if err := c.Write(ctx, []byte(clCall)); err != nil {
				t.Fatal(err)
			}

			// Nothing is read until the stream's reader waits for room, or
			// the queue holds more than the limits allow.
			var q streamhttp.Queued
			clWaitFor(t, "a full queue", func() bool {
				q = streamhttp.QueuedBy(c)
				return q.Waiting > 0 || q.Payloads > tt.maxPayloads || q.Bytes > max(tt.maxBytes, 1024)
			})
			if q.Payloads > tt.maxPayloads || q.Bytes > max(tt.maxBytes, 1024) {
				t.Errorf("the Client holds %d payloads, %d bytes; want at most %d payloads, %d bytes", q.Payloads, q.Bytes, tt.maxPayloads, tt.maxBytes)
			}

			// Reading: every notification, in order, then the response.
			type summary struct {
				Notes, OutOfOrder int
				Response          bool
			}
			var got summary
			for range notes + 1 {
				data, err := c.Read(ctx)
				if err != nil {
					t.Fatalf("Read after %d notifications: %v", got.Notes, err)
				}
				var m struct {
					ID     *int `json:"id"`
					Params struct {
						Data struct {
							N int `json:"n"`
						} `json:"data"`
					} `json:"params"`
				}
				if err := json.Unmarshal(data, &m); err != nil {
					t.Fatalf("Read %q: %v", data, err)
				}
				if m.ID != nil {
					got.Response = *m.ID == 3
					continue
				}
				got.Notes++
				if m.Params.Data.N != got.Notes {
					got.OutOfOrder++
				}
			}
			if diff := cmp.Diff(summary{Notes: notes, Response: true}, got); diff != "" {
				t.Errorf("what Read gave (-want +got):\n%s", diff)
			}
			select {
			case <-sent:
			case <-ctx.Done():
				t.Fatal("the server could not send everything")
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			srv.Close()
			leak()
		})
	}
}
