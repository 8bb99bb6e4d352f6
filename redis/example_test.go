package redis_test

import (
	"context"
	"log"
	"log/slog"

	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/runtime/session"
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
