package session_test

import (
	"bytes"
	"context"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/cache"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// optionsHandler is a handler that carries session options of its own.
type optionsHandler struct {
	session.Handler
	opts session.Options
}

func (h optionsHandler) SessionOptions() session.Options { return h.opts }

// seenMu guards the slices tagged appends to: a session runs middleware
// on the goroutines of its requests and of its notifications.
var seenMu sync.Mutex

// tagged returns a middleware that appends tag to *seen for every message.
func tagged(tag string, seen *[]string) session.Middleware {
	return func(next session.HandlerFunc) session.HandlerFunc {
		return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
			seenMu.Lock()
			*seen = append(*seen, tag)
			seenMu.Unlock()
			return next(ctx, r)
		}
	}
}

// everyField returns Options with every field set to a non-zero value,
// each made from n so that two calls differ; the test fails when Options
// has a field it does not know, so that MergeOptions cannot forget one.
func everyField(t *testing.T, n int, seen *[]string) session.Options {
	o := session.Options{
		Revisions:             []string{"2025-11-25"},
		MaxInFlight:           n,
		CallTimeout:           time.Duration(n),
		DrainTimeout:          time.Duration(n),
		StallTimeout:          time.Duration(n),
		Logger:                slog.New(slog.DiscardHandler),
		RejectUnknownVariants: true,
		Sealer:                session.SealWith(&reqstate.Sealer{Ring: reqstate.NewEphemeralRing()}),
		StateAudience:         "audience" + itoa(n),
		ProbeTimeout:          time.Duration(n),
		Cache:                 cache.New(cache.Options{}),
		Middleware:            []session.Middleware{tagged(itoa(n), seen)},
		Extensions:            []session.ClientExtension{&ticketClient{id: "io.example/ext" + itoa(n), rt: "r"}},
		OnLegacyState: func(session.LegacyState) {
			seenMu.Lock()
			*seen = append(*seen, "state "+itoa(n))
			seenMu.Unlock()
		},
	}
	v := reflect.ValueOf(o)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("everyField does not set Options.%s: set it, and check that MergeOptions merges it", v.Type().Field(i).Name)
		}
	}
	return o
}

func TestMergeOptions(t *testing.T) {
	var seen []string
	server := everyField(t, 1, &seen)
	transport := everyField(t, 2, &seen)
	h := mcp.NewServerHandler(mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}))
	withOpts := optionsHandler{Handler: h, opts: server}
	for _, tt := range []struct {
		name      string
		h         session.Handler
		opts      session.Options
		want      session.Options
		wantOrder []string // the middleware tags a message passes, then the OnLegacyState called, in order
	}{
		{"a plain handler runs with the transport's", h, transport, transport, []string{"2", "state 2"}},
		{"the handler's, when the transport gives none", withOpts, session.Options{}, server, []string{"1", "state 1"}},
		{"the transport's fields win; middleware and OnLegacyState of both, the handler's first", withOpts, transport, func() session.Options {
			o := transport
			o.Middleware, o.OnLegacyState = nil, nil // compared apart
			return o
		}(), []string{"1", "2", "state 1", "state 2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := session.MergeOptions(tt.h, tt.opts)
			seen = nil
			hf := func(context.Context, *session.Request) (jsontext.Value, error) { return nil, nil }
			run := session.HandlerFunc(hf)
			for i := len(got.Middleware) - 1; i >= 0; i-- {
				run = got.Middleware[i](run)
			}
			run(context.Background(), &session.Request{})
			got.OnLegacyState(session.LegacyState{})
			if !reflect.DeepEqual(seen, tt.wantOrder) {
				t.Errorf("middleware ran %v, want %v", seen, tt.wantOrder)
			}
			got.Middleware, tt.want.Middleware = nil, nil
			gv, wv := reflect.ValueOf(got), reflect.ValueOf(tt.want)
			for i := range gv.NumField() {
				name := gv.Type().Field(i).Name
				if name == "Middleware" || name == "OnLegacyState" {
					continue
				}
				if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
					t.Errorf("Options.%s = %v, want %v", name, gv.Field(i).Interface(), wv.Field(i).Interface())
				}
			}
		})
	}
	// RejectUnknownVariants: either side sets it.
	if !session.MergeOptions(optionsHandler{Handler: h, opts: session.Options{RejectUnknownVariants: true}}, session.Options{}).RejectUnknownVariants {
		t.Error("RejectUnknownVariants of the handler was lost")
	}
}

// A session of a server whose handler carries options runs with them: its
// middleware sees the requests.
func TestNewUsesHandlerOptions(t *testing.T) {
	var seen []string
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	h := optionsHandler{Handler: mcp.NewServerHandler(srv), opts: session.Options{Middleware: []session.Middleware{tagged("server", &seen)}}}
	a, b := transport.Pipe()
	s := session.New(session.Server, a, h, session.Options{})
	defer s.Close()
	p := &peer{t: t, tr: b}
	p.initialize("2025-11-25")
	seenMu.Lock()
	got := append([]string(nil), seen...)
	seenMu.Unlock()
	if len(got) == 0 || got[0] != "server" {
		t.Errorf("the handler's middleware saw %v, want the initialize and more", got)
	}
}

// An initialize a server has no revision for is refused with a message
// that states the fact to the client; what to configure goes to the
// server's log only.
func TestInitializeNoRevision(t *testing.T) {
	for _, tt := range []struct {
		name      string
		revisions []string
		peer      string
		log       []string
	}{
		// 2099-01-01 is linked nowhere: the server allows only it.
		{"none linked", []string{"2099-01-01"}, `initialize: unsupported protocol version "2025-06-18": this server supports no revision that begins with initialize`,
			[]string{"(the client asked for", "the server's revisions (WithRevisions or session.Options.Revisions: 2099-01-01)", "2025-11-25", "leave them nil"}},
		{"stateless only", []string{"2026-07-28"}, `initialize: unsupported protocol version "2025-06-18": this server supports no revision that begins with initialize (it supports 2026-07-28)`,
			[]string{"session.Options.Revisions: 2026-07-28) allow none of those linked into it (2025-11-25"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logged bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logged, nil))
			srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
			p, s := serve(t, srv, session.Options{Revisions: tt.revisions, Logger: log})
			m := p.call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
			if code := errorCode(t, m); code != -32603 {
				t.Fatalf("code = %d, want -32603: %v", code, m)
			}
			if msg := errorMessage(m); msg != tt.peer {
				t.Errorf("the client got %q, want %q", msg, tt.peer)
			}
			p.tr.Close()
			select {
			case <-s.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the session did not end")
			}
			for _, want := range tt.log {
				if !contains(logged.String(), want) {
					t.Errorf("log %q does not say %q", logged.String(), want)
				}
			}
		})
	}
}
