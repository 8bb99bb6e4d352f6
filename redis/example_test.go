package redis_test

import (
	"context"
	"log"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	goredis "github.com/redis/go-redis/v9"
)

// Each instance of the fleet "weather" creates its Bus on the same Redis;
// a change announced on any of them reaches the listen streams and legacy
// sessions of all.
func ExampleNewBus() {
	ctx := context.Background()
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	bus, err := redis.NewBus(ctx, client, "weather", redis.BusOptions{Logger: slog.Default()})
	if err != nil {
		log.Fatal(err)
	}
	defer bus.Close()
	// Offer bus to the runtime as the handler's Bus() (see session.Bus),
	// then announce changes on it:
	bus.Publish(session.Event{Method: session.ToolsListChanged})
}

// Each instance of the fleet "weather" makes its TaskStore on the same
// Redis: a task created on one instance is read, answered and waited on
// from any other.
func ExampleNewTaskStore() {
	ctx := context.Background()
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	store, err := redis.NewTaskStore(client, "weather", redis.TaskStoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	// A single server makes writes durable with appendonly yes and
	// appendfsync always; say so at start-up if it does not.
	if err := store.CheckDurability(ctx); err != nil {
		log.Print(err)
	}
	// Give store to the task engine as its tasks.Store.
}

// Each instance of the fleet "weather" makes its SessionStore on the same
// Redis and gives it to its fleet.Node: a legacy session initialized on
// one instance is found, and if its owner is gone claimed, by any other.
func ExampleNewSessionStore() {
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	sessions, err := redis.NewSessionStore(client, "weather", redis.SessionStoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	relay, err := redis.NewRelay(client, "weather", redis.RelayOptions{Logger: slog.Default()})
	if err != nil {
		log.Fatal(err)
	}
	defer relay.Close()
	node := fleet.NewNode(sessions, relay)
	// Give node to the transport (streamhttp.ServerOptions.Fleet).
	_ = node
}

// A Relay carries messages to the instance that listens at an address:
// here this instance listens at its own, and any instance sends to it.
func ExampleNewRelay() {
	ctx := context.Background()
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	relay, err := redis.NewRelay(client, "weather", redis.RelayOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer relay.Close()
	stop, err := relay.Listen(ctx, "instance-1", func(msg []byte) {
		log.Printf("got %d bytes", len(msg)) // must not block
	})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	delivered, err := relay.Send(ctx, "instance-1", []byte("hello"))
	if err != nil {
		log.Fatal(err)
	}
	if !delivered {
		log.Print("no instance listens at instance-1: it is gone")
	}
}

// The instances of the fleet "weather" keep the events of their SSE
// streams in Redis, so that a client resumes a broken stream with
// Last-Event-ID on any instance.
func ExampleNewEventStore() {
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer client.Close()
	events, err := redis.NewEventStore(client, "weather", redis.EventStoreOptions{
		MaxLen: 1024,      // at least ServerOptions.ReplayEvents
		TTL:    time.Hour, // a stream nobody appends to goes after an hour
	})
	if err != nil {
		log.Fatal(err)
	}
	opts := streamhttp.ServerOptions{EventStore: events}
	_ = opts // give opts to streamhttp.NewServer
}

// Check says whether the Bus hears the other instances now; the runtime
// calls it before it acknowledges a subscriptions/listen stream, and a
// readiness probe may call it too.
func ExampleBus_Check() {
	ctx := context.Background()
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	bus, err := redis.NewBus(ctx, client, "weather", redis.BusOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer bus.Close()
	if err := bus.Check(ctx); err != nil {
		log.Printf("not ready: %v", err)
	}
}
