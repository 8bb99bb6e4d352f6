package ssehttp_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// The Client logs no sessionId, nor puts one in its errors: the query of
// the endpoint names the session, and is shown as "?…" (the log has its
// tag).
func TestClientLogsHoldNoSessionID(t *testing.T) {
	const sid = "5e55105e55105e55105e55105e55105e"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"session not found"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: /post?sessionId="+sid+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer hs.Close()
	logs := &syncBuffer{}
	c := ssehttp.NewClient(hs.URL+"/sse", ssehttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if ssehttp.StatusCode(err) != http.StatusNotFound {
		t.Fatalf("Write: %v; want a 404", err)
	}
	if strings.Contains(err.Error(), sid) || !strings.Contains(err.Error(), hs.URL+"/post?…") {
		t.Errorf("Write's error %q; want the endpoint without its query", err)
	}
	if out := logs.String(); strings.Contains(out, sid) || !strings.Contains(out, "endpointTag="+httpmsg.Tag(hs.URL+"/post?sessionId="+sid)) {
		t.Errorf("the log holds the session id, or not the endpoint's tag:\n%s", out)
	}
	hs.CloseClientConnections()
	hs.Close()
	if err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)); err == nil || strings.Contains(err.Error(), sid) {
		t.Errorf("Write to a server that went away: %v; want an error without the session id", err)
	}
}

// No log line of the Server, at any level, holds a sessionId or a token:
// not the warning of a POST in another user's session (with an explicit
// ServerOptions.Principal too), not a session's opening nor its end. Lines
// name a session by its tag.
func TestLogsHoldNoSessionID(t *testing.T) {
	_, url, logs := protectedServer(t, ssehttp.ServerOptions{Principal: bearer.PrincipalOf})
	s := openStream(t, url+"/sse", bearerOf(tokenAlice)...)
	s.initializeWith(bearerOf(tokenAlice)...)
	if code, body := post(t, s.endpoint, bobCall, bearerOf(tokenBob)...); code != http.StatusNotFound {
		t.Errorf("bob's POST in alice's session: %d %s; want 404", code, body)
	}
	s.resp.Body.Close()
	eventually(t, "the session's end logged", func() bool { return strings.Contains(logs.String(), "session ended") })
	out := logs.String()
	for _, v := range []string{s.sid, tokenAlice, tokenBob} {
		if strings.Contains(out, v) {
			t.Errorf("the log holds %q:\n%s", v, out)
		}
	}
	tag := httpmsg.Tag(s.sid)
	for _, want := range []string{
		"session opened\" sessionTag=" + tag,
		"another principal; answered as if it did not exist\" sessionTag=" + tag,
		"session ended\" sessionTag=" + tag,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log has no line with %s:\n%s", want, out)
		}
	}
}

// An endpoint event the Client refuses (of another origin, or not one URL)
// is named in the error without its query, which names the session: the
// error goes into logs (here the Client's, at debug level) and to callers.
func TestClientRefusedEndpointHidesSessionID(t *testing.T) {
	const sid = "5e55105e55105e55105e55105e55105e"
	base, _ := url.Parse("http://127.0.0.1:8080/sse")
	for _, data := range []string{
		"http://evil.example/messages?sessionId=" + sid,
		"//127.0.0.1:1/messages?sessionId=" + sid,
		"/messages?sessionId=" + sid + "\n/other",
	} {
		_, err := ssehttp.ResolveEndpoint(base, []byte(data))
		if err == nil || strings.Contains(err.Error(), sid) || !strings.Contains(err.Error(), "?…") {
			t.Errorf("ResolveEndpoint(%q): %v; want an error naming the endpoint without its query", data, err)
		}
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: http://evil.example/messages?sessionId="+sid+"\n\n")
	}))
	defer hs.Close()
	logs := &syncBuffer{}
	c := ssehttp.NewClient(hs.URL+"/sse", ssehttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := c.Open(ctx); err == nil || strings.Contains(err.Error(), sid) {
		t.Errorf("Open with an endpoint of another origin: %v; want an error without the session id", err)
	}
	if out := logs.String(); strings.Contains(out, sid) {
		t.Errorf("the log holds the session id:\n%s", out)
	}
}

// A server whose refusal of a POST names the session id (in its message)
// does not get it into the error of the Client's Write, nor its log: the
// id is shown by its tag.
func TestClientPOSTRefusalHidesSessionID(t *testing.T) {
	const sid = "5e55105e55105e55105e55105e55105e"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"session `+sid+` not found"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: /post?sessionId="+sid+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer hs.Close()
	logs := &syncBuffer{}
	c := ssehttp.NewClient(hs.URL+"/sse", ssehttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	var rpc *jsonrpc.Error
	if ssehttp.StatusCode(err) != http.StatusNotFound || !errors.As(err, &rpc) {
		t.Fatalf("Write: %v; want a 404 wrapping the server's JSON-RPC error", err)
	}
	for _, s := range []string{err.Error(), rpc.Message} {
		if strings.Contains(s, sid) || !strings.Contains(s, "session "+httpmsg.Tag(sid)+" not found") {
			t.Errorf("%q holds the session id, or not its tag", s)
		}
	}
	if out := logs.String(); strings.Contains(out, sid) {
		t.Errorf("the log holds the session id:\n%s", out)
	}
}
