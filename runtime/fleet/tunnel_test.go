package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// pair is two instances on one relay: a forwards to b.
type pair struct {
	a, b   *Node
	ta, tb *Tunnel
}

func newPair(t *testing.T, serve ServeFunc) *pair {
	t.Helper()
	relay := NewMemoryRelay()
	store := NewMemorySessionStore()
	p := &pair{a: NewNode(store, relay), b: NewNode(store, relay)}
	var err error
	if p.ta, err = NewTunnel(context.Background(), p.a, func(http.ResponseWriter, *http.Request, string) {
		t.Error("a served a request")
	}, TunnelOptions{Heartbeat: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if p.tb, err = NewTunnel(context.Background(), p.b, serve, TunnelOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.ta.Close(); p.tb.Close() })
	return p
}

// front is the HTTP server of instance a, which forwards everything to b.
func (p *pair) front(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := p.ta.Forward(w, r, body, p.b.ID, "alice"); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestTunnelCarriesRequestAndStreamedAnswer(t *testing.T) {
	type seen struct {
		method, target, body, principal, auth, custom, host string
		remote                                              bool
	}
	got := make(chan seen, 1)
	p := newPair(t, func(w http.ResponseWriter, r *http.Request, principal string) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.RequestURI(), string(body), principal, r.Header.Get("Authorization"), r.Header.Get("X-Custom"), r.Host, strings.HasPrefix(r.RemoteAddr, "127.0.0.1:")}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Mcp-Session-Id", "s1")
		w.WriteHeader(http.StatusOK)
		for i := range 3 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
		}
	})
	srv := p.front(t)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp?x=1", strings.NewReader(`{"jsonrpc":"2.0"}`))
	req.Header.Set("Authorization", "Bearer secret")
	req.Header.Set("X-Custom", "v")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "s1" || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	if want := "data: 0\n\ndata: 1\n\ndata: 2\n\n"; string(b) != want {
		t.Errorf("body %q, want %q", b, want)
	}
	s := <-got
	want := seen{"POST", "/mcp?x=1", `{"jsonrpc":"2.0"}`, "alice", "", "v", strings.TrimPrefix(srv.URL, "http://"), true}
	if s != want {
		t.Errorf("owner saw %+v, want %+v (credentials never cross)", s, want)
	}
}

func TestTunnelOwnerGone(t *testing.T) {
	p := newPair(t, func(w http.ResponseWriter, r *http.Request, _ string) {})
	p.tb.Close()
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	w := httptest.NewRecorder()
	err := p.ta.Forward(w, r, nil, p.b.ID, "")
	if !errors.Is(err, ErrOwnerGone) {
		t.Fatalf("Forward to a closed owner: %v, want ErrOwnerGone", err)
	}
	if w.Code != http.StatusOK || w.Body.Len() != 0 || w.Flushed {
		t.Errorf("something was written: %d %q", w.Code, w.Body)
	}
}

func TestTunnelClientGoneCancelsOwner(t *testing.T) {
	cancelled := make(chan struct{})
	started := make(chan struct{})
	p := newPair(t, func(w http.ResponseWriter, r *http.Request, _ string) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
		close(cancelled)
	})
	srv := p.front(t)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	cancel()
	resp.Body.Close()
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the owner's request context did not end when the client went away")
	}
}

func TestTunnelOwnerDiesMidAnswer(t *testing.T) {
	started := make(chan struct{})
	p := newPair(t, func(w http.ResponseWriter, r *http.Request, _ string) {
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	})
	srv := p.front(t)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-started
	p.tb.Close() // the owner goes: a's heartbeat finds no listener
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(resp.Body); done <- b }()
	select {
	case b := <-done:
		if string(b) != "data: first\n\n" {
			t.Errorf("body %q", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the response did not end once the owner was gone")
	}
}

func FuzzDecodeFrame(f *testing.F) {
	for _, fr := range []*frame{
		{Op: opRequest, Key: "a.1", Method: "POST", Target: "/mcp", Header: http.Header{"A": {"b"}}, payload: []byte(`{}`)},
		{Op: opHead, Key: "a.1", Status: 200},
		{Op: opData, Key: "a.1", Seq: 1, payload: []byte("data: x\n\n")},
	} {
		b, _ := fr.encode()
		f.Add(b)
	}
	f.Add([]byte("\n"))
	f.Add([]byte(`{"op":"head","key":"k","status":0}` + "\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		fr, err := decodeFrame(msg)
		if err != nil {
			return
		}
		b, err := fr.encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeFrame(b); err != nil {
			t.Fatalf("re-decoding an encoded frame: %v", err)
		}
	})
}

// Two transports on one Node (Streamable HTTP and HTTP+SSE, say) each
// serve their own requests only.
func TestTunnelServices(t *testing.T) {
	relay := NewMemoryRelay()
	a, b := NewNode(nil, relay), NewNode(nil, relay)
	got := make(chan string, 4)
	for _, svc := range []string{"", "sse"} {
		tb, err := NewTunnel(context.Background(), b, func(w http.ResponseWriter, r *http.Request, _ string) {
			got <- svc
		}, TunnelOptions{Service: svc})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tb.Close)
	}
	ta, err := NewTunnel(context.Background(), a, nil, TunnelOptions{Service: "sse"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ta.Close)
	w := httptest.NewRecorder()
	if err := ta.Forward(w, httptest.NewRequest(http.MethodPost, "/sse", nil), nil, b.ID, ""); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "sse" || len(got) != 0 {
		t.Errorf("served by service %q (and %d more), want sse only", s, len(got))
	}
	if _, err := NewTunnel(context.Background(), a, nil, TunnelOptions{Service: "a.b"}); err == nil {
		t.Error("a service with a dot was taken")
	}
}

// An owner serving an idle stream for an instance that dies finds out by
// its heartbeat, and ends the request: nothing holds it forever.
func TestTunnelForwarderGoneEndsOwnerRequest(t *testing.T) {
	relay := NewMemoryRelay()
	a, b := NewNode(nil, relay), NewNode(nil, relay)
	started, ended := make(chan struct{}), make(chan struct{})
	tb, err := NewTunnel(context.Background(), b, func(w http.ResponseWriter, r *http.Request, _ string) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done() // an idle stream: it writes nothing more
		close(ended)
	}, TunnelOptions{Heartbeat: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tb.Close)
	ta, err := NewTunnel(context.Background(), a, nil, TunnelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ta.Forward(w, r, nil, b.ID, "")
	}))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-started
	ta.Close() // a dies; its client's connection stays open here
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the owner still serves a request for an instance that is gone")
	}
}

// An owner whose relay listens again a moment after a request was first
// sent (a Redis restart) is reached, not taken for gone.
func TestTunnelOwnerBackWithinGoneWaits(t *testing.T) {
	relay := NewMemoryRelay()
	a, b := NewNode(nil, relay), NewNode(nil, relay)
	ta, err := NewTunnel(context.Background(), a, nil, TunnelOptions{GoneWaits: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ta.Close)
	go func() {
		time.Sleep(60 * time.Millisecond) // after the first try, before the last
		tb, err := NewTunnel(context.Background(), b, func(w http.ResponseWriter, r *http.Request, _ string) {
			io.WriteString(w, "here")
		}, TunnelOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(tb.Close)
	}()
	w := httptest.NewRecorder()
	if err := ta.Forward(w, httptest.NewRequest(http.MethodGet, "/", nil), nil, b.ID, ""); err != nil {
		t.Fatalf("Forward to an owner back within the waits: %v", err)
	}
	if w.Body.String() != "here" {
		t.Errorf("answer %q", w.Body)
	}
}

// deafRelay is a Relay whose listeners at addr miss the first misses
// messages sent to it, as an instance whose connection to the engine broke
// and is being restored: Send reports that no one got them.
type deafRelay struct {
	Relay
	addr   string
	misses atomic.Int64
}

func (r *deafRelay) Send(ctx context.Context, addr string, msg []byte) (bool, error) {
	if addr == r.addr && r.misses.Add(-1) >= 0 {
		return false, nil
	}
	return r.Relay.Send(ctx, addr, msg)
}

// An owner that misses a request for a moment, its connection to the
// relay's engine being restored, is not taken for gone: Forward tries
// again, for about a second, and the request reaches it. One that stays
// deaf is gone.
func TestTunnelOwnerBackWithinGrace(t *testing.T) {
	for _, tt := range []struct {
		name   string
		misses int64
		gone   bool
	}{
		{"listens at once", 0, false},
		{"misses one", 1, false},
		{"misses every try but the last", int64(len(defaultGoneWaits)), false},
		{"misses every try", int64(len(defaultGoneWaits)) + 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			relay := &deafRelay{Relay: NewMemoryRelay()}
			store := NewMemorySessionStore()
			a, b := NewNode(store, relay), NewNode(store, relay)
			relay.addr = b.ID
			ta, err := NewTunnel(context.Background(), a, func(http.ResponseWriter, *http.Request, string) { t.Error("a served a request") }, TunnelOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer ta.Close()
			tb, err := NewTunnel(context.Background(), b, func(w http.ResponseWriter, r *http.Request, _ string) {
				io.WriteString(w, "served by b")
			}, TunnelOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer tb.Close()
			relay.misses.Store(tt.misses)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil).WithContext(ctx)
			w := httptest.NewRecorder()
			err = ta.Forward(w, r, nil, b.ID, "")
			if tt.gone {
				if !errors.Is(err, ErrOwnerGone) || w.Body.Len() != 0 {
					t.Fatalf("Forward to an owner deaf to every try: %v, body %q; want ErrOwnerGone and nothing written", err, w.Body)
				}
				return
			}
			if err != nil || w.Body.String() != "served by b" {
				t.Fatalf("Forward = %v, body %q; want b's answer", err, w.Body)
			}
		})
	}
}

// Forward stops waiting for a deaf owner when its request ends.
func TestTunnelGraceEndsWithRequest(t *testing.T) {
	relay := &deafRelay{Relay: NewMemoryRelay()}
	store := NewMemorySessionStore()
	a, b := NewNode(store, relay), NewNode(store, relay)
	relay.addr = b.ID
	relay.misses.Store(1 << 30)
	ta, err := NewTunnel(context.Background(), a, func(http.ResponseWriter, *http.Request, string) {}, TunnelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ta.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = ta.Forward(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil).WithContext(ctx), nil, b.ID, "")
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrOwnerGone) {
		t.Fatalf("Forward of a cancelled request to a deaf owner: %v, want context.Canceled", err)
	}
}

// An answer lost on its way back (the forwarding instance could not be
// reached for a moment, and the owner gave the request up) does not leave
// the forwarding instance waiting: at its next heartbeat the owner says it
// no longer serves the request, and Forward fails.
func TestTunnelLostAnswerEnds(t *testing.T) {
	relay := &deafRelay{Relay: NewMemoryRelay()}
	store := NewMemorySessionStore()
	a, b := NewNode(store, relay), NewNode(store, relay)
	relay.addr = a.ID // the answers go to a
	ta, err := NewTunnel(context.Background(), a, func(http.ResponseWriter, *http.Request, string) { t.Error("a served a request") }, TunnelOptions{Heartbeat: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ta.Close()
	served := make(chan struct{}, 1)
	tb, err := NewTunnel(context.Background(), b, func(w http.ResponseWriter, r *http.Request, _ string) {
		io.WriteString(w, "served by b")
		served <- struct{}{}
	}, TunnelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	relay.misses.Store(1) // the head of the answer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w := httptest.NewRecorder()
	err = ta.Forward(w, httptest.NewRequest(http.MethodPost, "/mcp", nil).WithContext(ctx), nil, b.ID, "")
	if ctx.Err() != nil {
		t.Fatal("Forward waited for a lost answer until its request ended")
	}
	if err == nil || errors.Is(err, ErrOwnerGone) || w.Body.Len() != 0 {
		t.Fatalf("Forward of a request whose answer was lost: %v, body %q; want an error, and nothing written", err, w.Body)
	}
	select {
	case <-served:
	default:
		t.Error("b never served the request")
	}
}
