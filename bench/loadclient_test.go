package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The raw client of the load and memory benchmarks: net/http and byte
// scans, so that every server is driven by the same bytes and the client
// costs as little as it can (it shares the machine with the server).

// loadHTTPClient returns a client whose one Transport keeps an idle
// connection for each of conns concurrent callers.
func loadHTTPClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        conns + 16,
			MaxIdleConnsPerHost: conns + 16,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
	}
}

// streamHTTPClient returns a client for long-lived streams: no overall
// timeout (a stream is ended by closing its body), no pooling limit.
func streamHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

// The legacy messages.
const (
	legacyInitRequest = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacyVersion + `","capabilities":{},"clientInfo":{"name":"bench-load","version":"1.0.0"}}}`
	sseInitRequest    = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"bench-load","version":"1.0.0"}}}`
	initializedNote   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// postMCP POSTs body to u with the headers set, and returns the answer's
// JSON-RPC message (the data of the last SSE event when the server
// streamed it) and headers. want is the status expected.
func postMCP(ctx context.Context, hc *http.Client, u string, body []byte, want int, set func(http.Header)) (http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if set != nil {
		set(req.Header)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("POST: reading the answer: %w", err)
	}
	if resp.StatusCode != want && !(want == http.StatusAccepted && resp.StatusCode/100 == 2) {
		return nil, nil, fmt.Errorf("POST %.60s: %s, want %d: %s", body, resp.Status, want, out)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		out = lastSSEData(out)
	}
	return resp.Header, out, nil
}

// legacySession is a Streamable HTTP session at legacyVersion.
type legacySession struct {
	hc  *http.Client
	url string
	id  string // Mcp-Session-Id
}

func (s *legacySession) headers(h http.Header) {
	h.Set("Mcp-Session-Id", s.id)
	h.Set("Mcp-Protocol-Version", legacyVersion)
}

// openLegacy initializes a session (initialize, then
// notifications/initialized) and checks the revision agreed.
func openLegacy(ctx context.Context, hc *http.Client, u string) (*legacySession, error) {
	h, ans, err := postMCP(ctx, hc, u, []byte(legacyInitRequest), http.StatusOK, nil)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := checkInitialized(ans, 0, legacyVersion); err != nil {
		return nil, err
	}
	s := &legacySession{hc: hc, url: u, id: h.Get("Mcp-Session-Id")}
	if s.id == "" {
		return nil, errors.New("initialize: the answer has no Mcp-Session-Id")
	}
	if _, _, err := postMCP(ctx, hc, u, []byte(initializedNote), http.StatusAccepted, s.headers); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return s, nil
}

// call makes the echo call with request id and checks the answer.
func (s *legacySession) call(ctx context.Context, id int64) ([]byte, error) {
	_, ans, err := postMCP(ctx, s.hc, s.url, floorRequest(make([]byte, 0, 160), id), http.StatusOK, s.headers)
	if err != nil {
		return nil, err
	}
	return ans, checkEcho(ans, id)
}

// close ends the session with DELETE.
func (s *legacySession) close(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return err
	}
	s.headers(req.Header)
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("DELETE: %w", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE: %s: %s", resp.Status, body)
	}
	return nil
}

// openGET opens the session's GET stream and returns it once the server
// answered it with an event stream.
func (s *legacySession) openGET(ctx context.Context, hc *http.Client) (*sseStream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	s.headers(req.Header)
	return openSSE(hc, req)
}

// statelessCall makes the 2026-07-28 echo call with request id through c
// and checks the answer.
func statelessCall(ctx context.Context, c *httpRaw, id int64) ([]byte, error) {
	ans, err := c.do(ctx, id, modernEchoRequest(make([]byte, 0, 384), id))
	if err != nil {
		return nil, err
	}
	if got, ok := answerID(ans); !ok || got != id {
		return nil, fmt.Errorf("the answer to request %d is not its response: %s", id, ans)
	}
	return ans, checkComplete(ans)
}

var (
	errorTag   = []byte(`"error":`)
	isErrorTag = []byte(`"isError":true`)
)

// checkEcho is the timed loop's check of an echo answer: the response to
// request id, no error, the echoed text. verifyEcho checks the whole
// shape of each client's first answer.
func checkEcho(ans []byte, id int64) error {
	if got, ok := answerID(ans); !ok || got != id {
		return fmt.Errorf("the answer to request %d is not its response: %s", id, ans)
	}
	if bytes.Contains(ans, errorTag) || bytes.Contains(ans, isErrorTag) {
		return fmt.Errorf("request %d failed: %s", id, ans)
	}
	if !bytes.Contains(ans, echoTextTag) {
		return fmt.Errorf("request %d: the answer does not echo %q: %s", id, echoText, ans)
	}
	return nil
}

// verifyEcho decodes an echo answer in full: the response to request id,
// a result of one text block holding echoText, not an error.
func verifyEcho(ans []byte, id int64) error {
	var a struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   json.RawMessage `json:"error"`
		Result  *struct {
			Content []struct{ Type, Text string } `json:"content"`
			IsError bool                          `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(ans, &a); err != nil {
		return fmt.Errorf("answer is not JSON (%v): %s", err, ans)
	}
	switch {
	case a.JSONRPC != "2.0" || string(a.ID) != strconv.FormatInt(id, 10):
		return fmt.Errorf("answer is not the response to request %d: %s", id, ans)
	case a.Error != nil || a.Result == nil || a.Result.IsError:
		return fmt.Errorf("request %d failed: %s", id, ans)
	case len(a.Result.Content) != 1 || a.Result.Content[0].Type != "text" || a.Result.Content[0].Text != echoText:
		return fmt.Errorf("echo answered %s", ans)
	}
	return nil
}

// checkInitialized checks an initialize answer: the response to request
// id, agreeing on version.
func checkInitialized(ans []byte, id int64, version string) error {
	var a struct {
		ID     json.RawMessage `json:"id"`
		Error  json.RawMessage `json:"error"`
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal(ans, &a); err != nil {
		return fmt.Errorf("initialize: the answer is not JSON (%v): %s", err, ans)
	}
	switch {
	case string(a.ID) != strconv.FormatInt(id, 10) || a.Error != nil || a.Result == nil:
		return fmt.Errorf("initialize failed: %s", ans)
	case a.Result.ProtocolVersion != version:
		return fmt.Errorf("initialize: the server agreed on %q, want %q", a.Result.ProtocolVersion, version)
	}
	return nil
}

// ---- SSE streams ----

// sseEvent is one event of an SSE stream.
type sseEvent struct {
	Event, Data string
}

// readSSE parses an SSE stream, calling emit for each event (the data
// lines joined by "\n"; comments and the id and retry fields are
// dropped), until r ends or emit returns false.
func readSSE(r io.Reader, emit func(sseEvent) bool) error {
	br := bufio.NewReaderSize(r, 4096)
	var ev sseEvent
	var data []string
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 || err == nil {
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "":
				if len(data) > 0 || ev.Event != "" {
					ev.Data = strings.Join(data, "\n")
					if ev.Event == "" {
						ev.Event = "message"
					}
					if !emit(ev) {
						return nil
					}
				}
				ev, data = sseEvent{}, data[:0]
			case strings.HasPrefix(line, ":"):
			default:
				field, value, _ := strings.Cut(line, ":")
				value = strings.TrimPrefix(value, " ")
				switch field {
				case "event":
					ev.Event = value
				case "data":
					data = append(data, value)
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// sseStream is an open SSE stream whose events a goroutine reads.
type sseStream struct {
	resp   *http.Response
	events chan sseEvent
	ended  chan error
}

// openSSE sends req and returns its stream once the server answered 200
// with text/event-stream.
func openSSE(hc *http.Client, req *http.Request) (*sseStream, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Method, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %s (%s), want 200 and an event stream: %s", req.Method, resp.Status, resp.Header.Get("Content-Type"), body)
	}
	s := &sseStream{resp: resp, events: make(chan sseEvent, 64), ended: make(chan error, 1)}
	go func() {
		s.ended <- readSSE(resp.Body, func(ev sseEvent) bool {
			select {
			case s.events <- ev:
			default: // nobody waits for it: dropped
			}
			return true
		})
	}()
	return s, nil
}

// next returns the next event whose Event is kind, waiting at most d.
func (s *sseStream) next(kind string, d time.Duration) (sseEvent, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case ev := <-s.events:
			if ev.Event == kind {
				return ev, nil
			}
		case err := <-s.ended:
			s.ended <- err
			return sseEvent{}, fmt.Errorf("the stream ended before a %q event (%v)", kind, err)
		case <-t.C:
			return sseEvent{}, fmt.Errorf("no %q event in %v", kind, d)
		}
	}
}

// close ends the stream.
func (s *sseStream) close() { s.resp.Body.Close() }

// openSSESession opens an HTTP+SSE (2024-11-05) session at sseURL: the
// GET, its endpoint event, initialize (answered on the stream) and
// notifications/initialized.
func openSSESession(ctx context.Context, streams, posts *http.Client, sseURL string) (*sseStream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sseURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	s, err := openSSE(streams, req)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*sseStream, error) {
		s.close()
		return nil, err
	}
	ev, err := s.next("endpoint", 10*time.Second)
	if err != nil {
		return fail(err)
	}
	base, _ := url.Parse(sseURL)
	ep, err := base.Parse(strings.TrimSpace(ev.Data))
	if err != nil {
		return fail(fmt.Errorf("endpoint event %q: %w", ev.Data, err))
	}
	if _, _, err := postMCP(ctx, posts, ep.String(), []byte(sseInitRequest), http.StatusAccepted, nil); err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	ev, err = s.next("message", 10*time.Second)
	if err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	if err := checkInitialized([]byte(ev.Data), 0, "2024-11-05"); err != nil {
		return fail(err)
	}
	if _, _, err := postMCP(ctx, posts, ep.String(), []byte(initializedNote), http.StatusAccepted, nil); err != nil {
		return fail(fmt.Errorf("notifications/initialized: %w", err))
	}
	return s, nil
}

// The 2026-07-28 subscriptions/listen request: floorReqPrefix, the id,
// listenSuffix.
const listenSuffix = `,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernEchoMeta + `}}`

// openListen opens a subscriptions/listen stream at 2026-07-28 and
// returns it once the server acknowledged it.
func openListen(ctx context.Context, hc *http.Client, u string, id int64) (*sseStream, error) {
	body := append(strconv.AppendInt([]byte(floorReqPrefix), id, 10), listenSuffix...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", modernVersion)
	h.Set("Mcp-Method", "subscriptions/listen")
	s, err := openSSE(hc, req)
	if err != nil {
		return nil, fmt.Errorf("subscriptions/listen: %w", err)
	}
	ev, err := s.next("message", 10*time.Second)
	if err == nil && !strings.Contains(ev.Data, `"notifications/subscriptions/acknowledged"`) {
		err = fmt.Errorf("the first event is not the acknowledgement: %s", ev.Data)
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("subscriptions/listen: %w", err)
	}
	return s, nil
}
