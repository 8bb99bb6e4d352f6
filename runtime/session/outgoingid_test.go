package session_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// outgoing is an outgoing request as a middleware saw it once next
// returned.
type outgoing struct {
	method string
	id     string // the Request's ID then; "" for none
}

// idRecorder is a client middleware that records the ID of each outgoing
// request once next has returned.
type idRecorder struct {
	mu   sync.Mutex
	seen []outgoing
}

func (rec *idRecorder) mw(next session.HandlerFunc) session.HandlerFunc {
	return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
		res, err := next(ctx, r)
		if r.Outgoing && !r.Notification {
			id := ""
			if r.ID.IsValid() {
				id = r.ID.String()
			}
			rec.mu.Lock()
			rec.seen = append(rec.seen, outgoing{r.Method, id})
			rec.mu.Unlock()
		}
		return res, err
	}
}

func (rec *idRecorder) all() []outgoing {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]outgoing(nil), rec.seen...)
}

// sentRequests returns the requests r wrote, in order, with their ids.
func sentRequests(t *testing.T, r *recorder) []outgoing {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []outgoing
	for _, b := range r.sent {
		items, _, err := jsonrpc.Decode(b, false)
		if err != nil {
			t.Fatalf("decoding what the client sent, %s: %v", b, err)
		}
		for _, it := range items {
			if m := it.Msg; m != nil && m.Kind == jsonrpc.Request {
				out = append(out, outgoing{m.Method, m.ID.String()})
			}
		}
	}
	return out
}

// TestOutgoingRequestID checks that a client middleware finds the id of an
// outgoing request on its Request once next has returned: the id sent, the
// first one for a call of the stateless era that took several rounds, none
// for a result the cache gave.
func TestOutgoingRequestID(t *testing.T) {
	legacy := m25.NewServer(m25.Implementation{Name: "old", Version: "1"})
	legacy.MustAddTool(m25.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m25.CallToolRequestParams) (*m25.CallToolResult, error) {
		return &m25.CallToolResult{Content: []m25.ContentBlock{{Value: &m25.TextContent{Text: "hi"}}}}, nil
	})
	modern, _ := modernServer(t) // tools/list cached 5 s; greet asks for input first
	for _, tc := range []struct {
		name string
		h    session.Handler
		// run makes the calls; want says, from the requests sent in
		// order, what the middleware must have seen.
		run  func(ctx context.Context, cs *m26.ClientSession) error
		want func(sent []outgoing) []outgoing
	}{
		{
			name: "legacy call",
			h:    m25.NewServerHandler(legacy),
			run: func(ctx context.Context, cs *m26.ClientSession) error {
				_, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "echo"})
				return err
			},
			// server/discover (refused), initialize, tools/call: each
			// with the id it was sent with.
			want: func(sent []outgoing) []outgoing { return sent },
		},
		{
			name: "stateless call of two rounds",
			h:    modern.Handler(),
			run: func(ctx context.Context, cs *m26.ClientSession) error {
				_, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "greet"})
				return err
			},
			// server/discover, then tools/call twice on the wire (the
			// round asking for input, its retry), once through the
			// middleware, with the first round's id.
			want: func(sent []outgoing) []outgoing {
				if len(sent) != 3 || sent[1].id == sent[2].id {
					t.Fatalf("sent %v, want server/discover and two tools/call of different ids", sent)
				}
				return sent[:2]
			},
		},
		{
			name: "stateless cache hit",
			h:    modern.Handler(),
			run: func(ctx context.Context, cs *m26.ClientSession) error {
				for range 2 {
					if _, err := cs.ListTools(ctx, nil); err != nil {
						return err
					}
				}
				return nil
			},
			// The second tools/list, from the cache, sent nothing: no id.
			want: func(sent []outgoing) []outgoing { return append(sent, outgoing{"tools/list", ""}) },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids := &idRecorder{}
			cs, rec := connect26(t, tc.h, &inputClient{changed: make(chan struct{}, 1)}, session.Options{Middleware: []session.Middleware{ids.mw}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tc.run(ctx, cs); err != nil {
				t.Fatal(err)
			}
			want := tc.want(sentRequests(t, rec))
			if diff := cmp.Diff(want, ids.all(), cmp.AllowUnexported(outgoing{})); diff != "" {
				t.Errorf("outgoing requests and their ids as the middleware saw them (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListenThroughMiddleware checks that Listen passes through a client
// middleware as one outgoing subscriptions/listen request, whose next
// returns once the subscription is closed, with the id it was sent with.
func TestListenThroughMiddleware(t *testing.T) {
	srv, _ := modernServer(t)
	var (
		mu       sync.Mutex
		listenR  *session.Request
		returned = make(chan struct{})
	)
	mw := func(next session.HandlerFunc) session.HandlerFunc {
		return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
			if r.Method != "subscriptions/listen" {
				return next(ctx, r)
			}
			if !r.Outgoing || r.Notification || r.Era != session.EraModern {
				t.Errorf("subscriptions/listen passed as outgoing %v, notification %v, era %v; want an outgoing request of the stateless era", r.Outgoing, r.Notification, r.Era)
			}
			res, err := next(ctx, r)
			mu.Lock()
			listenR = r
			mu.Unlock()
			close(returned)
			return res, err
		}
	}
	cs, rec := connect26(t, srv.Handler(), &inputClient{changed: make(chan struct{}, 1)}, session.Options{Middleware: []session.Middleware{mw}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub, err := cs.Listen(ctx, &m26.SubscriptionsListenRequestParams{Notifications: m26.SubscriptionFilter{ToolsListChanged: ptr(true)}})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	select {
	case <-returned:
		t.Fatal("the middleware's next returned while the subscription was open")
	default:
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-returned:
	case <-ctx.Done():
		t.Fatal("the middleware's next did not return after the subscription was closed")
	}
	var sentID string
	for _, o := range sentRequests(t, rec) {
		if o.method == "subscriptions/listen" {
			sentID = o.id
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !listenR.ID.IsValid() || listenR.ID.String() != sentID {
		t.Errorf("the Request's ID after next = %v, want %s, the id it was sent with", listenR.ID, sentID)
	}
}
