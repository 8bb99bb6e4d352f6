package session

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The notifications a server announces changes with, to the legacy
// sessions that may receive them and to the subscriptions/listen streams
// that asked for them.
const (
	ToolsListChanged     = "notifications/tools/list_changed"
	PromptsListChanged   = "notifications/prompts/list_changed"
	ResourcesListChanged = "notifications/resources/list_changed"
	ResourceUpdated      = "notifications/resources/updated"
)

const methodListen = "subscriptions/listen"

// Event is a change a server announces.
type Event struct {
	// Method is the notification: ToolsListChanged, PromptsListChanged,
	// ResourcesListChanged or ResourceUpdated.
	Method string
	// URI is the resource that changed, for ResourceUpdated.
	URI string
	// Data is what an event an extension publishes carries (such as
	// notifications/tasks of the Tasks extension), in a form of the
	// extension's own, so that a Bus shared by several instances carries
	// it: the runtime hands it to the extension's listen streams
	// (ListenExtension), never to a client as it is. nil for the events
	// above.
	Data jsontext.Value
}

// same reports whether ev and o announce the same change.
func (ev Event) same(o Event) bool {
	return ev.Method == o.Method && ev.URI == o.URI && bytes.Equal(ev.Data, o.Data)
}

// Bus carries a server's events to the sessions and listen streams that
// want them. NewBus returns one that works within a process; a Bus shared
// by several server instances (over a message broker) can take its place.
// A handler offers its Bus by implementing interface{ Bus() Bus }; the
// runtime then serves subscriptions/listen itself, and tells legacy
// sessions of changes they may hear of.
type Bus interface {
	// Publish announces ev to every subscriber. It does not wait for them.
	Publish(ev Event)
	// Subscribe calls fn for every event published until cancel is called.
	// fn must not block: it runs on the publisher's goroutine.
	Subscribe(fn func(Event)) (cancel func())
}

type busHolder interface{ Bus() Bus }

// BusChecker is implemented by a Bus that can be cut off from the other
// instances that share it, such as one over a message broker. Before it
// acknowledges a subscriptions/listen stream, the runtime calls Check (for
// at most five seconds): an error refuses the stream with -32603, and is
// logged rather than sent, so that the client learns at once that the
// server cannot tell it of every change now, instead of listening on a
// stream that would miss the changes made on the other instances.
type BusChecker interface {
	// Check returns nil when the events published on any instance reach
	// this instance's subscribers, or an error saying why they do not.
	Check(ctx context.Context) error
}

// busCheckTimeout bounds a BusChecker's Check before a listen stream.
const busCheckTimeout = 5 * time.Second

// checkBus refuses a listen stream, with the error to answer, when bus is a
// BusChecker whose Check fails.
func checkBus(ctx context.Context, bus Bus, log *slog.Logger) *jsonrpc.Error {
	c, ok := bus.(BusChecker)
	if !ok {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, busCheckTimeout)
	defer cancel()
	err := c.Check(cctx)
	if err == nil || ctx.Err() != nil { // the client went away: listen answers that
		return nil
	}
	log.Warn("mcp: subscriptions/listen refused: the Bus does not carry the other instances' changes now", "err", err)
	return &jsonrpc.Error{Code: jsonrpc.InternalError, Message: "subscriptions/listen: the server cannot deliver the changes made on its other instances now (its event bus is unavailable); listen again later"}
}

// NewBus returns a Bus for one process.
func NewBus() Bus { return &localBus{subs: map[uint64]func(Event){}} }

type localBus struct {
	mu   sync.Mutex
	next uint64
	subs map[uint64]func(Event)
}

func (b *localBus) Publish(ev Event) {
	b.mu.Lock()
	fns := make([]func(Event), 0, len(b.subs))
	for _, fn := range b.subs {
		fns = append(fns, fn)
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}

func (b *localBus) Subscribe(fn func(Event)) func() {
	b.mu.Lock()
	b.next++
	id := b.next
	b.subs[id] = fn
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

// params returns the notification params of ev: the uri of a resource
// update, nothing else.
func (ev Event) params() jsontext.Value {
	p := jsontext.Value(`{}`)
	if ev.Method == ResourceUpdated {
		u, _ := jsontext.AppendQuote(nil, ev.URI)
		p, _ = wire.SetMember(p, "uri", u)
	}
	return p
}

// eventQueue holds the events a subscriber has not sent yet, each once: a
// change announced twice before it was sent is sent once, so a slow client
// costs at most one entry per kind of change (and per resource it watches).
// It also holds the notifications of the extensions' listen streams
// (ListenExtension), in order, at most maxListenBacklog of them: past that
// the oldest is dropped, so that a client that does not read costs a
// bounded amount.
type eventQueue struct {
	mu      sync.Mutex
	pending []Event
	notes   []extNote
	ready   chan struct{} // has a value while pending or notes is not empty
}

// extNote is a notification of an extension for a listen stream.
type extNote struct {
	method string
	params jsontext.Value
}

// maxListenBacklog bounds the notifications of extensions that a listen
// stream holds for a client that does not read them fast enough.
const maxListenBacklog = 256

func newEventQueue() *eventQueue { return &eventQueue{ready: make(chan struct{}, 1)} }

func (q *eventQueue) put(ev Event) {
	q.mu.Lock()
	if !slices.ContainsFunc(q.pending, ev.same) {
		q.pending = append(q.pending, ev)
	}
	q.mu.Unlock()
	q.wake()
}

// putNote queues an extension's notification, dropping the oldest one past
// maxListenBacklog.
func (q *eventQueue) putNote(n extNote) {
	q.mu.Lock()
	if len(q.notes) >= maxListenBacklog {
		q.notes = slices.Delete(q.notes, 0, len(q.notes)-maxListenBacklog+1)
	}
	q.notes = append(q.notes, n)
	q.mu.Unlock()
	q.wake()
}

func (q *eventQueue) wake() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *eventQueue) take() ([]Event, []extNote) {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs, notes := q.pending, q.notes
	q.pending, q.notes = nil, nil
	return evs, notes
}

// filter is what a subscriptions/listen stream asked for, or was granted.
type filter struct {
	Tools     bool     `json:"toolsListChanged,omitzero"`
	Prompts   bool     `json:"promptsListChanged,omitzero"`
	Resources bool     `json:"resourcesListChanged,omitzero"`
	URIs      []string `json:"resourceSubscriptions,omitzero"`
}

func (f *filter) wants(ev Event) bool {
	switch ev.Method {
	case ToolsListChanged:
		return f.Tools
	case PromptsListChanged:
		return f.Prompts
	case ResourcesListChanged:
		return f.Resources
	case ResourceUpdated:
		return slices.Contains(f.URIs, ev.URI)
	}
	return false
}

// serverCapabilities asks the handler's server/discover for the server's
// capabilities, with the _meta of a stateless request.
func serverCapabilities(ctx context.Context, h Handler, s *Session, params jsontext.Value) jsontext.Value {
	meta, _ := wire.Member(params, "_meta")
	p := jsontext.Value(`{}`)
	if meta != nil {
		p, _ = wire.SetMember(p, "_meta", meta)
	}
	res, err := h.HandleRequest(ctx, s, "server/discover", p)
	if err != nil || res == nil {
		return nil
	}
	b, err := res.AppendJSON(nil)
	if err != nil {
		return nil
	}
	caps, _ := wire.Member(b, "capabilities")
	return caps
}

// listen serves subscriptions/listen from the handler's Bus:
// the acknowledgement first, with the subset of the filter the server
// supports, then the events that match it, each with the subscription's
// id in _meta, until the client goes away (an error: nothing to answer) or
// the server ends (a SubscriptionsListenResult).
func listen(ctx context.Context, h Handler, s *Session, bus Bus, md *wire.Method, params jsontext.Value) (jsontext.Value, error) {
	ri := ctx.Value(requestKey{}).(*requestInfo)
	var asked filter
	raw, ok := wire.Member(params, "notifications")
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /notifications: missing, but required", md.Name)
	}
	if err := wire.DecodeValue(raw, &asked); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /notifications: %v", md.Name, err)
	}
	caps := serverCapabilities(ctx, h, s, params)
	granted := filter{
		Tools:     asked.Tools && HasCapability(caps, "tools.listChanged"),
		Prompts:   asked.Prompts && HasCapability(caps, "prompts.listChanged"),
		Resources: asked.Resources && HasCapability(caps, "resources.listChanged"),
	}
	if HasCapability(caps, "resources.subscribe") {
		granted.URIs = asked.URIs
	}
	subID, err := ri.id.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	meta, _ := wire.SetMember(jsontext.Value(`{}`), MetaSubscriptionID, subID)
	q := newEventQueue()
	cancel := bus.Subscribe(func(ev Event) {
		if granted.wants(ev) {
			q.put(ev)
		}
	})
	defer cancel()
	f, err := wire.EncodeValue(granted)
	if err != nil {
		return nil, err
	}
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	if f, err = listenExtensions(lctx, h, raw, f, q); err != nil {
		return nil, err
	}
	ack, _ := wire.SetMember(jsontext.Value(`{}`), "notifications", f)
	ack, _ = wire.SetMember(ack, "_meta", meta)
	if err := ri.notifyModern(ctx, "notifications/subscriptions/acknowledged", ack); err != nil {
		return nil, err
	}
	ending := ri.mod().ending
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ending:
			res, _ := wire.SetMember(jsontext.Value(`{"resultType":"complete"}`), "_meta", meta)
			return res, nil
		case <-q.ready:
		}
		evs, notes := q.take()
		for _, ev := range evs {
			p, _ := wire.SetMember(ev.params(), "_meta", meta)
			if err := ri.notifyModern(ctx, ev.Method, p); err != nil {
				return nil, err
			}
		}
		for _, n := range notes {
			p, err := wire.SetMember(n.params, "_meta", meta)
			if err != nil {
				return nil, fmt.Errorf("%s: the params an extension sent on the stream: %w", n.method, err)
			}
			if err := ri.notifyModern(ctx, n.method, p); err != nil {
				return nil, err
			}
		}
	}
}

// coreFilter lists the members of the notifications filter of
// subscriptions/listen that the runtime serves itself.
var coreFilter = []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions"}

// listenExtensions starts the part of a listen stream that the handler's
// extensions serve (ListenExtension): each one whose filter members asked
// has is given those members, and what it grants is added to the
// acknowledged filter granted. A member neither the core nor a served
// extension defines is ignored, as unknown members are in every params,
// and is not acknowledged. Their notifications go to q until ctx ends.
func listenExtensions(ctx context.Context, h Handler, asked, granted jsontext.Value, q *eventQueue) (jsontext.Value, error) {
	eh, ok := h.(ExtensionHandler)
	if !ok {
		return granted, nil
	}
	claimed := slices.Clone(coreFilter)
	for _, x := range eh.Extensions() {
		lx, ok := x.(ListenExtension)
		if !ok {
			continue
		}
		var names []string
		mine := jsontext.Value(`{}`)
		for _, n := range lx.ListenFilter() {
			v, ok := wire.Member(asked, n)
			if !ok || slices.Contains(claimed, n) {
				continue
			}
			claimed = append(claimed, n)
			names = append(names, n)
			mine, _ = wire.SetMember(mine, n, v)
		}
		if len(names) == 0 {
			continue
		}
		g, err := lx.Listen(ctx, mine, func(method string, params jsontext.Value) {
			if params == nil {
				params = jsontext.Value(`{}`)
			}
			q.putNote(extNote{method: method, params: params})
		})
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if v, ok := wire.Member(g, n); ok {
				if granted, err = wire.SetMember(granted, n, v); err != nil {
					return nil, fmt.Errorf("subscriptions/listen: what extension %s granted for %s: %w", x.ID(), n, err)
				}
			}
		}
	}
	return granted, nil
}
