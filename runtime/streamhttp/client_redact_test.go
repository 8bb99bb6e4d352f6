package streamhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// namingServer is a Streamable HTTP server of another make (or an older
// mcpgen) whose refusals name the session id, and the Last-Event-ID they
// were sent, in their body. Its GET streams are refused with 404 when
// refuse is "GET", else with 405 (it has none); a resumption with
// Last-Event-ID is refused with 404. A tools/call is refused with 404 when
// refuse is "POST", else answered with an SSE stream that ends after its
// priming event (id <sid>-1_0), before the answer. A DELETE is refused
// with 400 when refuse is "DELETE".
func namingServer(t *testing.T, sid, refuse string) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refused := func(status int) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"session %s not found (Last-Event-ID %q)"}}`, sid, r.Header.Get("Last-Event-ID"))
		}
		switch r.Method {
		case http.MethodGet:
			if r.Header.Get("Last-Event-ID") == "" && refuse != "GET" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			refused(http.StatusNotFound)
			return
		case http.MethodDelete:
			if refuse == "DELETE" {
				refused(http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		var m struct {
			ID     json.RawMessage
			Method string
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &m)
		switch m.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", sid)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"naming","version":"1"}}}`, m.ID)
		case "tools/call":
			if refuse == "POST" {
				refused(http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: %s-1_0\nretry: 10\ndata: \n\n", sid)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// A Client logs no session id, at any level, nor puts one in the errors
// its calls, the session's Wait and Close get, when the server's refusals
// name it: not when the GET stream is refused, nor when a stream's
// resumption is (with the Last-Event-ID that holds the id), nor a POST,
// nor the DELETE. The id, and the event id, are shown by their tags.
func TestClientHidesSessionIDInRefusals(t *testing.T) {
	const sid = "5e55105e55105e55105e55105e55105e"
	for _, tc := range []struct{ name, refuse string }{
		{"GET refused", "GET"},
		{"resumption refused", ""},
		{"POST refused", "POST"},
		{"DELETE refused", "DELETE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := namingServer(t, sid, tc.refuse)
			logs := &syncBuffer{}
			c := streamhttp.NewClient(url, streamhttp.ClientOptions{
				DefaultRetry: 10 * time.Millisecond,
				Logger:       slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := mcp.Connect(ctx, c, &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if tc.refuse == "DELETE" {
				err := cs.Close()
				if err == nil || strings.Contains(err.Error(), sid) || !strings.Contains(err.Error(), "session "+httpmsg.Tag(sid)+" not found") {
					t.Errorf("Close, whose DELETE is refused: %v; want an error quoting the refusal with the id's tag", err)
				}
				if out := logs.String(); strings.Contains(out, sid) {
					t.Errorf("the log holds the session id:\n%s", out)
				}
				return
			}
			if tc.refuse == "GET" {
				deadline := time.Now().Add(20 * time.Second)
				for !strings.Contains(logs.String(), "the GET stream was refused") {
					if time.Now().After(deadline) {
						t.Fatalf("the GET stream's refusal not logged within 20s:\n%s", logs)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "t"})
			if err == nil {
				t.Fatal("the call succeeded")
			}
			var errs []error
			errs = append(errs, err)
			if tc.refuse == "GET" {
				if !errors.Is(err, streamhttp.ErrSessionExpired) {
					t.Errorf("the call after the GET's 404: %v; want ErrSessionExpired", err)
				}
				cs.Close()
				errs = append(errs, cs.Wait())
			}
			for _, err := range errs {
				if err != nil && strings.Contains(err.Error(), sid) {
					t.Errorf("an error holds the session id: %v", err)
				}
				if err != nil && tc.refuse != "GET" && !strings.Contains(err.Error(), "session "+httpmsg.Tag(sid)+" not found") {
					t.Errorf("the error does not quote the refusal with the id's tag: %v", err)
				}
			}
			if out := logs.String(); strings.Contains(out, sid) {
				t.Errorf("the log holds the session id:\n%s", out)
			}
		})
	}
}
