package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The modern round trips: protocol 2026-07-28, stateless, no initialize.
// mcpgen has no 2026 client yet, so one raw client drives every server: it
// sends the same pre-encoded request bytes (only the id varies) with the
// headers of 2026-07-28, and checks the answer minimally (its resultType and
// the echoed text). The rows therefore differ only by server.

// modernVersion is the revision every modern request names.
const modernVersion = "2026-07-28"

// The _meta of every modern request (V-1, V-2): the revision, the client's
// capabilities (none for the echo, elicitation for the MRTR round) and the
// client's identity.
const (
	modernMetaStart = `"_meta":{"` + session.MetaProtocolVersion + `":"` + modernVersion + `","` +
		session.MetaClientInfo + `":{"name":"bench-client","version":"1.0.0"},"` +
		session.MetaClientCapabilities + `":`
	modernEchoMeta = modernMetaStart + `{}}`
	modernMRTRMeta = modernMetaStart + `{"elicitation":{}}}`
)

// The modern echo request: floorReqPrefix, the id, modernEchoSuffix. It
// starts like the floor's request, so floorID finds its id.
const modernEchoSuffix = `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"},` + modernEchoMeta + `}}`

// The MRTR round: a tools/call of "confirm", whose handler asks for one
// elicitation answer (key mrtrKey) before it echoes its text argument, and
// the retry carrying that answer and the requestState of the first answer.
const (
	mrtrKey        = "confirm"
	mrtrCallSuffix = `,"method":"tools/call","params":{"name":"confirm","arguments":{"text":"hello, world"},` + modernMRTRMeta
	mrtrAskSuffix  = mrtrCallSuffix + `}}`
	mrtrRetryMid   = mrtrCallSuffix + `,"inputResponses":{"` + mrtrKey + `":{"action":"accept","content":{"ok":true}}},"requestState":"`
	mrtrRetryEnd   = `"}}`
	// peerState is the requestState the peers' handlers hand out and
	// expect back: neither go-sdk nor mcp-go seals it (mcpgen's runtime
	// does, with AES-GCM bound to the request).
	peerState = "confirm=1"
)

func modernEchoRequest(buf []byte, id int64) []byte {
	buf = append(buf, floorReqPrefix...)
	buf = strconv.AppendInt(buf, id, 10)
	return append(buf, modernEchoSuffix...)
}

func mrtrAskRequest(buf []byte, id int64) []byte {
	buf = append(buf, floorReqPrefix...)
	buf = strconv.AppendInt(buf, id, 10)
	return append(buf, mrtrAskSuffix...)
}

// mrtrRetryRequest writes the retry; state is the requestState of the first
// answer as it was encoded there (a JSON string's contents), echoed as is.
func mrtrRetryRequest(buf []byte, id int64, state []byte) []byte {
	buf = append(buf, floorReqPrefix...)
	buf = strconv.AppendInt(buf, id, 10)
	buf = append(buf, mrtrRetryMid...)
	buf = append(buf, state...)
	return append(buf, mrtrRetryEnd...)
}

// The fragments the timed loop looks for in an answer (every server here
// writes compact JSON; verifyAnswer checks the full shape once before
// timing, so a server that did not would fail loudly there or here).
var (
	completeTag      = []byte(`"resultType":"complete"`)
	inputRequiredTag = []byte(`"resultType":"input_required"`)
	echoTextTag      = []byte(`"text":"hello, world"`)
	stateTag         = []byte(`"requestState":"`)
)

// checkComplete is the timed loop's check of an echo answer.
func checkComplete(ans []byte) error {
	if !bytes.Contains(ans, completeTag) || !bytes.Contains(ans, echoTextTag) {
		return fmt.Errorf("modern echo: not a complete result echoing %q: %s", echoText, ans)
	}
	return nil
}

// requestState returns the contents of the requestState string of an
// InputRequiredResult, as encoded (escapes kept), and checks its resultType.
func requestState(ans []byte) ([]byte, error) {
	if !bytes.Contains(ans, inputRequiredTag) {
		return nil, fmt.Errorf("MRTR: first answer is not input_required: %s", ans)
	}
	i := bytes.Index(ans, stateTag)
	if i < 0 {
		return nil, fmt.Errorf("MRTR: first answer has no requestState: %s", ans)
	}
	rest := ans[i+len(stateTag):]
	for j := 0; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			j++
		case '"':
			return rest[:j], nil
		}
	}
	return nil, fmt.Errorf("MRTR: unterminated requestState in %s", ans)
}

// modernAnswer is the full shape verifyAnswer checks.
type modernAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   json.RawMessage `json:"error"`
	Result  *struct {
		ResultType    string                        `json:"resultType"`
		Content       []struct{ Type, Text string } `json:"content"`
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState *string `json:"requestState"`
	} `json:"result"`
}

// verifyAnswer decodes ans in full and checks that it answers request id at
// 2026-07-28 with resultType want: for "complete", one text block echoing
// echoText; for "input_required", one elicitation under mrtrKey and a
// requestState.
func verifyAnswer(ans []byte, id int64, want string) error {
	var a modernAnswer
	if err := json.Unmarshal(ans, &a); err != nil {
		return fmt.Errorf("answer is not JSON (%v): %s", err, ans)
	}
	switch {
	case a.JSONRPC != "2.0" || string(a.ID) != strconv.FormatInt(id, 10):
		return fmt.Errorf("answer is not the response to request %d: %s", id, ans)
	case a.Error != nil || a.Result == nil:
		return fmt.Errorf("request %d failed: %s", id, ans)
	case a.Result.ResultType != want:
		return fmt.Errorf("resultType %q, want %q (a server that does not speak %s leaves it out): %s", a.Result.ResultType, want, modernVersion, ans)
	}
	switch want {
	case "complete":
		if len(a.Result.Content) != 1 || a.Result.Content[0].Type != "text" || a.Result.Content[0].Text != echoText {
			return fmt.Errorf("echo answered %s", ans)
		}
	case "input_required":
		if r, ok := a.Result.InputRequests[mrtrKey]; !ok || len(a.Result.InputRequests) != 1 || r.Method != "elicitation/create" || a.Result.RequestState == nil {
			return fmt.Errorf("want one elicitation under %q and a requestState: %s", mrtrKey, ans)
		}
	}
	return nil
}

// ---- the raw client ----

// rawClient sends one encoded request with id and returns the answer to it.
type rawClient interface {
	do(ctx context.Context, id int64, body []byte) ([]byte, error)
}

// httpRaw POSTs each request with the headers of 2026-07-28 (T-N7): the
// revision, the method and the tool's name.
type httpRaw struct {
	url  string
	hc   *http.Client
	name string // Mcp-Name
}

func (c *httpRaw) do(ctx context.Context, _ int64, body []byte) ([]byte, error) {
	_, out, err := c.post(ctx, body)
	return out, err
}

// post sends body and returns the answer's headers and its JSON-RPC
// message (the data of the last SSE event when the server streamed it).
func (c *httpRaw) post(ctx context.Context, body []byte) (http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", modernVersion)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", c.name)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("POST: %s: %s", resp.Status, out)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		out = lastSSEData(out)
	}
	return resp.Header, out, nil
}

// lastSSEData returns the data of the last event of an SSE stream (one
// data line per event, as every server here writes).
func lastSSEData(stream []byte) []byte {
	var last []byte
	for line := range bytes.Lines(stream) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			last = bytes.TrimSpace(d)
		}
	}
	return last
}

// stdioRaw writes newline-delimited requests to a server's stdin and hands
// each answer line to the caller waiting for its id, so that 8 callers can
// share the connection.
type stdioRaw struct {
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	waiting map[int64]chan []byte
	readErr chan error // receives the reader's error, once
	stall   time.Duration
}

// newStdioRaw starts the reader of r, which ends when r does.
func newStdioRaw(w io.Writer, r io.Reader) *stdioRaw {
	c := &stdioRaw{w: w, waiting: map[int64]chan []byte{}, readErr: make(chan error, 1), stall: 10 * time.Second}
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				c.readErr <- fmt.Errorf("stdio: reading answers: %w", err)
				return
			}
			id, ok := answerID(line)
			if !ok {
				continue // a notification or a message for no caller
			}
			c.mu.Lock()
			ch := c.waiting[id]
			delete(c.waiting, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- bytes.Clone(line)
			}
		}
	}()
	return c
}

// answerID finds the top-level id of an answer line: the number after the
// first "id": (echo answers and input-required answers carry no other "id"
// member; verifyAnswer checks the shape once before timing).
func answerID(line []byte) (int64, bool) {
	i := bytes.Index(line, []byte(`"id":`))
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(`"id":`):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func (c *stdioRaw) do(ctx context.Context, id int64, body []byte) ([]byte, error) {
	ch := make(chan []byte, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	c.wmu.Lock()
	_, err := c.w.Write(append(body, '\n'))
	c.wmu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("stdio: writing request %d: %w", id, err)
	}
	t := time.NewTimer(c.stall)
	defer t.Stop()
	select {
	case ans := <-ch:
		return bytes.TrimSpace(ans), nil
	case err := <-c.readErr:
		c.readErr <- err // for the other callers
		return nil, err
	case <-t.C:
		return nil, fmt.Errorf("stdio: no answer to request %d in %v", id, c.stall)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// modernEcho returns the echo call of c: verified in full once, before
// timing, then checked minimally.
func modernEcho(b *testing.B, c rawClient) caller {
	b.Helper()
	var next atomic.Int64
	ctx := context.Background()
	ans, err := c.do(ctx, 1, modernEchoRequest(nil, 1))
	if err == nil {
		err = verifyAnswer(ans, 1, "complete")
	}
	if err != nil {
		b.Fatalf("the server does not answer a %s tools/call without initialize: %v", modernVersion, err)
	}
	next.Store(1)
	return func(ctx context.Context) error {
		id := next.Add(1)
		ans, err := c.do(ctx, id, modernEchoRequest(make([]byte, 0, 384), id))
		if err != nil {
			return err
		}
		return checkComplete(ans)
	}
}

// mrtrRound returns the MRTR round of c (the call, the input-required
// answer, the retry with the answer and the state, the complete answer):
// verified in full once, before timing, then checked minimally.
func mrtrRound(b *testing.B, c rawClient) caller {
	b.Helper()
	ctx := context.Background()
	ans, err := c.do(ctx, 1, mrtrAskRequest(nil, 1))
	if err == nil {
		err = verifyAnswer(ans, 1, "input_required")
	}
	var state []byte
	if err == nil {
		state, err = requestState(ans)
	}
	if err == nil {
		ans, err = c.do(ctx, 2, mrtrRetryRequest(nil, 2, state))
	}
	if err == nil {
		err = verifyAnswer(ans, 2, "complete")
	}
	if err != nil {
		b.Fatalf("the server does not complete a %s MRTR round: %v", modernVersion, err)
	}
	var next atomic.Int64
	next.Store(2)
	return func(ctx context.Context) error {
		id := next.Add(1)
		ans, err := c.do(ctx, id, mrtrAskRequest(make([]byte, 0, 384), id))
		if err != nil {
			return err
		}
		state, err := requestState(ans)
		if err != nil {
			return err
		}
		id = next.Add(1)
		ans, err = c.do(ctx, id, mrtrRetryRequest(make([]byte, 0, 512+len(state)), id, state))
		if err != nil {
			return err
		}
		return checkComplete(ans)
	}
}

// modernHTTPClient is httpClient with a bound on each POST, so that a
// server that stops answering fails the benchmark instead of hanging it.
func modernHTTPClient() *http.Client {
	hc := httpClient()
	hc.Timeout = 10 * time.Second
	return hc
}

// ---- the benchmarks ----

// BenchmarkModern: BenchmarkModern/<http|stdio>/<seq|par8>/<impl>, one
// tools/call of the echo tool at 2026-07-28 per op, no initialize. Each
// sub-benchmark starts its own server outside the timed loop and checks,
// before timing, that it really answers at 2026-07-28.
func BenchmarkModern(b *testing.B) {
	type impl struct {
		name string
		s    func(b *testing.B) (rawClient, func())
	}
	transports := []struct {
		name  string
		impls []impl
	}{
		{"http", []impl{{"mcpgen", modernHTTP(mcpgenModernHandler)}, {"gosdk", modernHTTP(sdkModernHandler)}, {"mcpgo", modernHTTP(mcpgoModernHandler)}, {"floor", modernHTTP(floorModernHandler)}}},
		{"stdio", []impl{{"mcpgen", mcpgenModernStdio}, {"gosdk", sdkModernStdio}, {"mcpgo", mcpgoModernStdio}, {"floor", floorModernStdio}}},
	}
	for _, tr := range transports {
		for _, mode := range []struct {
			name    string
			workers int
		}{{"seq", 1}, {"par8", 8}} {
			for _, im := range tr.impls {
				b.Run(tr.name+"/"+mode.name+"/"+im.name, func(b *testing.B) {
					c, cleanup := im.s(b)
					defer cleanup()
					benchCalls(b, mode.workers, modernEcho(b, c))
					b.StopTimer()
				})
			}
		}
	}
}

// BenchmarkModernMRTR: BenchmarkModernMRTR/http/<impl>, one MRTR round per
// op over stateless HTTP: two POSTs, the second carrying the elicitation
// answer and the requestState of the first answer.
func BenchmarkModernMRTR(b *testing.B) {
	for _, im := range []struct {
		name string
		h    func(b *testing.B) http.Handler
	}{
		{"mcpgen", mcpgenModernHandler},
		{"gosdk", sdkModernHandler},
		{"mcpgo", mcpgoModernHandler},
		{"floor", floorMRTRHandler},
	} {
		b.Run("http/"+im.name, func(b *testing.B) {
			url, stop := listen(b, im.h(b))
			hc := modernHTTPClient()
			defer func() {
				hc.CloseIdleConnections()
				stop()
			}()
			benchCalls(b, 1, mrtrRound(b, &httpRaw{url: url, hc: hc, name: mrtrKey}))
			b.StopTimer()
		})
	}
}

// modernHTTP serves the handler newHandler makes on 127.0.0.1 and returns
// the raw client of its echo tool.
func modernHTTP(newHandler func(b *testing.B) http.Handler) func(b *testing.B) (rawClient, func()) {
	return func(b *testing.B) (rawClient, func()) {
		url, stop := listen(b, newHandler(b))
		hc := modernHTTPClient()
		return &httpRaw{url: url, hc: hc, name: "echo"}, func() {
			hc.CloseIdleConnections()
			stop()
		}
	}
}

// ---- mcpgen ----

// newMcpgenModernServer returns mcpgen's 2026-07-28 StandardServer with the
// echo tool and the confirm tool (which asks for one elicitation answer
// through mcp20260728.Elicit before echoing), with the middleware mw (none
// but in the Tracing rows).
func newMcpgenModernServer(mw ...session.Middleware) *m26.StandardServer {
	srv := m26.NewServer(m26.Implementation{Name: "bench", Version: "1.0.0"}, m26.WithMiddleware(mw...))
	srv.MustAddTool(m26.Tool{Name: "echo", InputSchema: []byte(echoSchema)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			text, _ := wire.MemberString(p.Arguments, "text")
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: text}}}}, nil
		})
	srv.MustAddTool(m26.Tool{Name: "confirm", InputSchema: []byte(echoSchema)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			res, err := m26.Elicit(ctx, mrtrKey, &m26.ElicitRequestParams{Value: &m26.ElicitRequestFormParams{
				Message: "Echo it?",
				RequestedSchema: m26.ElicitRequestFormParamsRequestedSchema{Properties: map[string]m26.PrimitiveSchemaDefinition{
					"ok": {Value: &m26.BooleanSchema{}},
				}},
			}})
			if err != nil {
				return nil, err
			}
			if res.Action != m26.ElicitResultActionAccept {
				return nil, fmt.Errorf("confirm: the user answered %q", res.Action)
			}
			text, _ := wire.MemberString(p.Arguments, "text")
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: text}}}}, nil
		})
	return srv
}

// mcpgenModernHandler serves the StandardServer's handler with
// runtime/streamhttp: requests that carry their revision in _meta take its
// stateless POST path.
func mcpgenModernHandler(b *testing.B) http.Handler {
	srv := newMcpgenModernServer()
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{JSONResponse: true})
	b.Cleanup(h.Close)
	return h
}

// mcpgenModernStdio serves the StandardServer over runtime/stdio: the
// session answers requests that carry their revision in _meta statelessly,
// with no initialize.
func mcpgenModernStdio(b *testing.B) (rawClient, func()) {
	sr, sw, cr, cw := osPipes(b)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = newMcpgenModernServer().Serve(ctx, stdio.New(sr, sw), session.Options{})
	}()
	return newStdioRaw(cw, cr), func() {
		cw.Close()
		cancel()
		waitDone(served)
		closeAll(sr, sw, cr)
	}
}

// ---- go-sdk ----

// sdkConfirmSchema is the requested schema of the confirm tool's
// elicitation (go-sdk takes any JSON-marshalable value).
var sdkConfirmSchema = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)

// sdkConfirm is go-sdk's confirm tool, in its MRTR style: the first call
// returns the input request, the retry finds the answer in InputResponses.
func sdkConfirm(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
	if len(req.Params.InputResponses) == 0 {
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{mrtrKey: &sdk.ElicitParams{Message: "Echo it?", RequestedSchema: sdkConfirmSchema}},
			RequestState:  peerState,
		}, nil, nil
	}
	r, ok := req.Params.InputResponses[mrtrKey].(*sdk.ElicitResult)
	if !ok || r.Action != "accept" || req.Params.RequestState != peerState {
		return nil, nil, fmt.Errorf("confirm: unexpected answer %#v, state %q", req.Params.InputResponses[mrtrKey], req.Params.RequestState)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
}

func newSDKModernServer() *sdk.Server {
	srv := newSDKServer()
	sdk.AddTool(srv, &sdk.Tool{Name: "confirm"}, sdkConfirm)
	return srv
}

// sdkModernHandler is go-sdk's streamable HTTP handler in its stateless
// mode, the only one in which it serves 2026-07-28 (its stateful handler
// refuses such requests); JSON answers, as for mcpgen.
func sdkModernHandler(b *testing.B) http.Handler {
	srv := newSDKModernServer()
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// sdkModernStdio connects go-sdk's server to an IOTransport: its session
// serves requests that carry their revision in _meta without initialize.
func sdkModernStdio(b *testing.B) (rawClient, func()) {
	sr, sw, cr, cw := osPipes(b)
	ss, err := newSDKModernServer().Connect(context.Background(), &sdk.IOTransport{Reader: sr, Writer: sw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return newStdioRaw(cw, cr), func() {
		cw.Close()
		ss.Close()
		closeAll(sr, sw, cr)
	}
}

// ---- mcp-go ----

// mcpgoConfirm is mcp-go's confirm tool, in its MRTR style: the first call
// returns the input request, the retry finds the answer in InputResponses.
func mcpgoConfirm(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if a := mcpgoserver.ElicitationResponse(req.Params.InputResponses, mrtrKey); a != nil {
		if a.Action != mcpgo.ElicitationResponseActionAccept || req.Params.RequestState != peerState {
			return mcpgo.NewToolResultError(fmt.Sprintf("confirm: unexpected answer %#v, state %q", a, req.Params.RequestState)), nil
		}
		text, err := req.RequireString("text")
		if err != nil {
			return mcpgo.NewToolResultError(err.Error()), nil
		}
		return mcpgo.NewToolResultText(text), nil
	}
	return mcpgoserver.NewInputRequestBuilder(peerState).
		Elicit(mrtrKey, mcpgo.ElicitationParams{
			Message: "Echo it?",
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
			},
		}).
		ToolResult(), nil
}

func newMcpgoModernServer() *mcpgoserver.MCPServer {
	srv := newMcpgoServer()
	srv.AddTool(mcpgo.NewTool("confirm", mcpgo.WithString("text", mcpgo.Required())), mcpgoConfirm)
	return srv
}

// mcpgoModernHandler is mcp-go's streamable HTTP server, which decides the
// era per request: one carrying 2026-07-28 in _meta is served statelessly.
func mcpgoModernHandler(b *testing.B) http.Handler {
	return mcpgoserver.NewStreamableHTTPServer(newMcpgoModernServer())
}

// mcpgoModernStdio serves mcp-go's server over its stdio server, which
// decides the era per request as its HTTP server does.
func mcpgoModernStdio(b *testing.B) (rawClient, func()) {
	sr, sw, cr, cw := osPipes(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mcpgoserver.NewStdioServer(newMcpgoModernServer()).Listen(ctx, sr, sw)
	}()
	return newStdioRaw(cw, cr), func() {
		cw.Close()
		cancel()
		sr.Close()
		sw.Close()
		waitDone(done)
		closeAll(cr)
	}
}

// ---- floor ----

// floorModernResponse is the floor's answer to the echo: floorReqPrefix,
// the id, this.
const floorModernResponse = `,"result":{"content":[{"type":"text","text":"hello, world"}],"resultType":"complete"}}`

// The floor's MRTR answers: the input-required one with a fixed state, and
// the complete one.
const floorMRTRAsk = `,"result":{"resultType":"input_required","inputRequests":{"` + mrtrKey + `":{"method":"elicitation/create","params":{"message":"Echo it?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}},"requestState":"` + peerState + `"}}`

func floorAnswer(buf, id []byte, rest string) []byte {
	buf = append(buf, floorReqPrefix...)
	buf = append(buf, id...)
	return append(buf, rest...)
}

// floorModernHandler is the bare net/http floor: it reads the body, finds
// the id by scanning bytes and answers the fixed complete result.
func floorModernHandler(b *testing.B) http.Handler {
	return floorHandler(func(body, id []byte) []byte {
		return floorAnswer(make([]byte, 0, 160), id, floorModernResponse)
	})
}

// floorMRTRHandler is the floor of an MRTR round: a POST without
// requestState gets the fixed input-required answer, one with it the
// complete result.
func floorMRTRHandler(b *testing.B) http.Handler {
	return floorHandler(func(body, id []byte) []byte {
		rest := floorMRTRAsk
		if bytes.Contains(body, stateTag) {
			rest = floorModernResponse
		}
		return floorAnswer(make([]byte, 0, 320), id, rest)
	})
}

// floorModernStdio is the bare newline-delimited floor over two os.Pipe
// pairs, answering the fixed complete result.
func floorModernStdio(b *testing.B) (rawClient, func()) {
	sr, sw, cr, cw := osPipes(b)
	go func() {
		defer sw.Close()
		br := bufio.NewReaderSize(sr, 64<<10)
		var out []byte
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			id, err := floorID(line)
			if err != nil {
				return
			}
			out = append(floorAnswer(out[:0], id, floorModernResponse), '\n')
			if _, err := sw.Write(out); err != nil {
				return
			}
		}
	}()
	return newStdioRaw(cw, cr), func() {
		cw.Close()
		closeAll(sr, sw, cr)
	}
}

// closeAll closes the pipe ends fs (some may be closed already: the
// servers close their own on the way out).
func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// waitDone waits for done, at most 5 s.
func waitDone(done <-chan struct{}) {
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}
