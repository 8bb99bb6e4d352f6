package cache_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/cache"
)

// A client stores the results it receives, answers repeated requests from
// the cache while they are fresh, and drops entries when the server says
// they changed. The fake clock stands in for time.Now.
func Example() {
	now := time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)
	c := cache.New(cache.Options{Now: func() time.Time { return now }})

	params := jsontext.Value(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	result := jsontext.Value(`{"resultType":"complete","ttlMs":60000,"cacheScope":"public","tools":[{"name":"weather","inputSchema":{"type":"object"}}]}`)
	if err := c.Put("token-hash-1", "tools/list", params, result); err != nil {
		fmt.Println("not stored:", err)
	}

	// Another authorization context, other _meta: a public answer serves.
	e, ok := c.Get("token-hash-2", "tools/list", jsontext.Value(`{"_meta":{"progressToken":7}}`))
	fmt.Println(ok, e.Fresh, e.Scope)

	// After the TTL the entry is stale, kept for a failed re-fetch.
	now = now.Add(time.Minute)
	e, ok = c.Get("token-hash-2", "tools/list", params)
	fmt.Println(ok, e.Fresh)

	// A list_changed notification drops every page of the listing.
	fmt.Println(c.Invalidate("notifications/tools/list_changed", nil))
	_, ok = c.Get("token-hash-1", "tools/list", params)
	fmt.Println(ok)

	// Results the rules leave out are refused with ErrNotCacheable.
	err := c.Put("", "resources/read", jsontext.Value(`{"uri":"file:///a","requestState":"opaque"}`), result)
	fmt.Println(errors.Is(err, cache.ErrNotCacheable))
	// Output:
	// true true public
	// true false
	// 1
	// false
	// true
}

func ExampleKey() {
	a, _ := cache.Key("tools/list", jsontext.Value(`{"cursor":"page-2","_meta":{"progressToken":1}}`))
	b, _ := cache.Key("tools/list", jsontext.Value(` { "_meta": {}, "cursor": "page-2" } `))
	fmt.Println(a)
	fmt.Println(a == b)
	// Output:
	// tools/list {"cursor":"page-2"}
	// true
}

// A client that polls a result anyway waits at least its TTL, longer after
// every poll that found nothing new, and at random a little more.
func ExampleBackoff_Next() {
	b := cache.Backoff{Rand: func() float64 { return 0.5 }} // a fixed draw, for the example
	for attempt := range 4 {
		fmt.Println(b.Next(30*time.Second, attempt))
	}
	// Output:
	// 37.5s
	// 1m15s
	// 2m30s
	// 5m0s
}
