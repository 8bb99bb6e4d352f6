package redis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/runtime/fleet"
	goredis "github.com/redis/go-redis/v9"
)

// FleetOptions configure NewFleet. The zero value is a sound default.
type FleetOptions struct {
	// InstanceID names this instance in the fleet (ASCII letters and
	// digits); "" makes one at random, which is right unless something
	// else names instances (a StatefulSet's ordinal, say). Two instances
	// that run at once must never share one.
	InstanceID string
	// Timeout bounds each call to Redis on a request's path: while Redis
	// is away, a request that needs it fails within it with a clear
	// error. 0 means 5 seconds.
	Timeout time.Duration
	// Logger receives what goes wrong with Redis; nil means no logging.
	Logger *slog.Logger

	// The options of each part; their Logger, when nil, is Logger.
	Bus      BusOptions
	Tasks    TaskStoreOptions
	Sessions SessionStoreOptions
	Relay    RelayOptions
	Events   EventStoreOptions
	Replay   ReplayCacheOptions
}

// Fleet is what one instance of a fleet shares with the others through
// Redis: give each part to the server it configures.
//
//	mcp.WithBus(f.Bus)                    // listen streams and legacy sessions hear every instance's changes
//	tasks.Options{Store: f.Tasks, Bus: f.Bus} // tasks (the Tasks extension)
//	mcp.HTTPOptions{Fleet: f.Node, EventStore: f.Events} // legacy sessions and their GET streams
//	mcp.SSEOptions{Fleet: f.Node}          // HTTP+SSE sessions
//	dpop.VerifierOptions{Replay: f.Replay} // DPoP proofs, in bearer.DPoPOptions.Proofs
//
// The stateless era (2026-07-28) needs none of it but for listen streams
// and tasks: its requests carry their state, sealed with keys the
// instances share (see reqstate.OpenKeyFile).
type Fleet struct {
	// Prefix names the fleet: every key and channel starts with it and a
	// colon.
	Prefix string
	// Node is this instance: its ID, the SessionStore and the Relay.
	Node *fleet.Node
	// Bus carries changes to every instance.
	Bus *Bus
	// Tasks keeps the tasks of the Tasks extension.
	Tasks *TaskStore
	// Events keeps the events of the GET streams of legacy sessions.
	Events *EventStore
	// Replay remembers the DPoP proofs every instance accepted, so that
	// none is accepted twice anywhere in the fleet.
	Replay *ReplayCache

	client goredis.UniversalClient
	relay  *Relay
}

// NewFleet joins the fleet prefix on the Redis of client: it builds the
// Bus (subscribing to its channel, which needs Redis now), the TaskStore,
// the SessionStore, the Relay, the EventStore and the ReplayCache, all on client, which
// the caller owns and closes after Close.
func NewFleet(ctx context.Context, client goredis.UniversalClient, prefix string, opts FleetOptions) (*Fleet, error) {
	if opts.Logger != nil {
		for _, l := range []**slog.Logger{&opts.Bus.Logger, &opts.Relay.Logger, &opts.Events.Logger} {
			if *l == nil {
				*l = opts.Logger
			}
		}
	}
	if opts.Events.Timeout == 0 {
		opts.Events.Timeout = opts.Timeout
	}
	if opts.Replay.Timeout == 0 {
		opts.Replay.Timeout = opts.Timeout
	}
	f := &Fleet{Prefix: prefix, client: client}
	var err error
	if f.Tasks, err = NewTaskStore(client, prefix, opts.Tasks); err != nil {
		return nil, fmt.Errorf("redis fleet: %w", err)
	}
	sessions, err := NewSessionStore(client, prefix, opts.Sessions)
	if err != nil {
		return nil, fmt.Errorf("redis fleet: %w", err)
	}
	if f.Events, err = NewEventStore(client, prefix, opts.Events); err != nil {
		return nil, fmt.Errorf("redis fleet: %w", err)
	}
	if f.Replay, err = NewReplayCache(client, prefix, opts.Replay); err != nil {
		return nil, fmt.Errorf("redis fleet: %w", err)
	}
	if f.relay, err = NewRelay(client, prefix, opts.Relay); err != nil {
		return nil, fmt.Errorf("redis fleet: %w", err)
	}
	if f.Bus, err = NewBus(ctx, client, prefix, opts.Bus); err != nil {
		f.relay.Close()
		return nil, fmt.Errorf("redis fleet: %w", err)
	}
	f.Node = fleet.NewNode(sessions, f.relay)
	if opts.InstanceID != "" {
		f.Node.ID = opts.InstanceID
	}
	f.Node.Timeout = opts.Timeout
	return f, nil
}

// Client returns the go-redis client the fleet runs on, for the
// application's own data.
func (f *Fleet) Client() goredis.UniversalClient { return f.client }

// Close stops what NewFleet started: the Bus's subscription, the Relay's
// connection and the TaskStore's waiters. Close the servers that use the
// Fleet first, and the client after.
func (f *Fleet) Close() error {
	return errors.Join(f.Bus.Close(), f.relay.Close(), f.Tasks.Close())
}
