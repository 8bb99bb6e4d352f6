package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// fuzzEndpoint answers the Client's POST with a fuzzed status, Content-Type
// and body, without a network; a GET (resumption) gets 400, as for an
// event id that names no stream, and a DELETE 405.
type fuzzEndpoint struct {
	status int
	ct     string
	body   []byte
}

func (e *fuzzEndpoint) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	status, ct, body := e.status, e.ct, e.body
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet:
		status, ct, body = http.StatusBadRequest, "text/plain", []byte("no such stream")
	default:
		status, ct, body = http.StatusMethodNotAllowed, "", nil
	}
	return &http.Response{
		StatusCode: status,
		Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {ct}},
		Body:    io.NopCloser(bytes.NewReader(body)),
		Request: r,
	}, nil
}

// fuzzAnswers reports whether payload answers request id: a response or an
// error response with that id, valid or not (the session fails the call
// with a malformed one), as jsonrpc.Decode reads it.
func fuzzAnswers(payload []byte, id wire.ID) bool {
	items, _, err := jsonrpc.Decode(payload, true)
	if err != nil {
		return false
	}
	for _, it := range items {
		if it.ID == id && (it.Kind == jsonrpc.Response || it.Kind == jsonrpc.ErrorResponse) {
			return true
		}
	}
	return false
}

var fuzzStatuses = []int{200, 202, 204, 400, 401, 403, 404, 405, 409, 413, 415, 500, 503}

// FuzzClientAnswer gives the Client a fuzzed answer to the POST of a
// request: status, Content-Type and body. Invariants: no panic; an error
// status is Write's error, naming it, and carrying the body's JSON-RPC
// error response to the request when there is one; a JSON body is queued
// for Read as it came; and on an SSE stream, the request is answered, by
// the server or, when the stream cannot be resumed, by the Client's error
// response: an answer is never lost.
func FuzzClientAnswer(f *testing.F) {
	sse := "text/event-stream"
	for _, s := range []struct {
		status byte
		ct     string
		body   string
	}{
		{0, sse, "id: s-1_0\ndata: \n\nid: s-1_1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\nid: s-1_2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[]}}\n\n"},
		{0, sse, "id: s-1_0\ndata: \n\n"}, // closed early: resumption fails
		{0, sse, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n"},
		{0, sse + "; charset=utf-8", "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":\"no\"}}\r\n\r\n"},
		{0, sse, "data: [{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}]\n\n"},
		{0, sse, "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}"}, // cut off
		{0, "application/json", `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`},
		{0, "application/json", " \n"},
		{1, "", ""},
		{3, "application/json", `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Bad Request: unsupported MCP-Protocol-Version"}}`},
		{6, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"session not found"}}`},
		{12, "application/json", `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"the server has reached its limit of 1 sessions; try again later"}}`},
		{11, "text/plain", "internal error"},
	} {
		f.Add(s.status, s.ct, []byte(s.body))
	}
	request := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	id := wire.IntID(7)
	f.Fuzz(func(t *testing.T, statusIndex byte, ct string, body []byte) {
		status := fuzzStatuses[int(statusIndex)%len(fuzzStatuses)]
		// The server's retry field is honoured (T-P6b): keep the waits
		// short by making it an unknown field.
		body = bytes.ReplaceAll(body, []byte("retry"), []byte("rerty"))
		c := NewClient("http://127.0.0.1:1/mcp", ClientOptions{
			HTTPClient:   &http.Client{Transport: &fuzzEndpoint{status, ct, body}},
			DefaultRetry: time.Millisecond,
		})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := c.Write(ctx, request)
		mt := httpmsg.MediaType(ct)
		switch {
		case status >= 400:
			if err == nil || !strings.Contains(err.Error(), fmt.Sprint(status)) {
				t.Fatalf("%d: Write gave %v, want an error naming the status", status, err)
			}
			var rpcErr *jsonrpc.Error
			carries := errors.As(err, &rpcErr)
			want := mt == "application/json" && len(body) <= clientErrorBodyLength && clientErrorAnswer(body, []wire.ID{id}) != nil
			if carries != want {
				t.Fatalf("%d %q %q: Write's error %q carries a *jsonrpc.Error: %v, want %v", status, ct, body, err, carries, want)
			}
			if carries && !fuzzAnswersOrNoID(body, rpcErr) {
				t.Fatalf("%q: Write's error carries %v, which is no error response of the body", body, rpcErr)
			}
		case mt != "application/json" && mt != "text/event-stream":
			// 202, or another 2xx without a body (T-P4).
			if wantErr := len(body) > 0 && status != http.StatusAccepted; (err != nil) != wantErr {
				t.Fatalf("%d %q with %d bytes: Write gave %v, want an error: %v", status, ct, len(body), err, wantErr)
			}
		case err != nil:
			t.Fatalf("%d %q: Write: %v", status, ct, err)
		case mt == "application/json":
			c.mu.Lock()
			queue := c.conn.queue
			c.mu.Unlock()
			if len(bytes.TrimSpace(body)) == 0 {
				if len(queue) != 0 {
					t.Fatalf("an empty JSON body queued %q", queue)
				}
			} else if len(queue) != 1 || !bytes.Equal(queue[0], body) {
				t.Fatalf("the JSON body %q queued as %q", body, queue)
			}
		case mt == "text/event-stream":
			for {
				p, err := c.Read(ctx)
				if err != nil {
					t.Fatalf("the SSE stream %q: no answer to request 7 (%v)", body, err)
				}
				if fuzzAnswers(p, id) {
					break
				}
			}
		}
		if err := c.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if _, err := c.Read(ctx); err != io.EOF {
			t.Fatalf("Read after Close: %v, want io.EOF", err)
		}
	})
}

// fuzzAnswersOrNoID reports whether body holds an error response with
// e's code and message whose id is 7 or absent.
func fuzzAnswersOrNoID(body []byte, e *jsonrpc.Error) bool {
	items, _, err := jsonrpc.Decode(body, true)
	if err != nil {
		return false
	}
	for _, it := range items {
		if m := it.Msg; m != nil && m.Kind == jsonrpc.ErrorResponse && m.Error != nil &&
			m.Error.Code == e.Code && m.Error.Message == e.Message && (!m.ID.IsValid() || m.ID == wire.IntID(7)) {
			return true
		}
	}
	return false
}
