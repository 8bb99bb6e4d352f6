// Package redis holds the Redis implementations of the seams that let
// several instances of one mcpgen server run as a fleet behind a plain
// load balancer, with no session affinity. It is a module of its own, so
// that a program that does not use Redis does not compile a Redis client.
//
// Every implementation takes a client of github.com/redis/go-redis/v9,
// which the caller owns and closes, and a prefix that names the fleet:
// every key and channel of the fleet starts with the prefix and a colon,
// so that several fleets can share one Redis.
//
//   - Bus: a session.Bus on Redis Pub/Sub, so that a change announced on
//     any instance reaches the subscriptions/listen streams and the legacy
//     sessions of every instance.
//   - TaskStore: a tasks.Store (the state of the tasks of the MCP Tasks
//     extension), so that a task created on one instance is answered,
//     cancelled, polled and waited on through any other.
//   - SessionStore: a fleet.SessionStore, the records of the legacy
//     sessions (revisions 2025-03-26 to 2025-11-25), so that a request for
//     a session reaches it through any instance, and another instance
//     takes the session over when its owner is gone.
//   - Relay: a fleet.Relay on Redis Pub/Sub, which carries a message to
//     the instance that listens at an address (the owner of a session or
//     of a stream).
//   - EventStore: a streamhttp.EventStore on Redis Streams, so that a
//     client resumes a broken SSE stream with Last-Event-ID on any
//     instance.
//   - ReplayCache: a dpop.ReplayCache, so that a DPoP proof accepted by
//     one instance's resource server is refused as a replay by all the
//     others.
//
// Session and stream ids appear in no key, channel, error or log: keys
// hold their SHA-256 instead.
package redis
