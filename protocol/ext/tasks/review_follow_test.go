package tasks_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// FuzzFollow: a hostile server answers tools/call and tasks/get with
// arbitrary JSON; the follower never panics and always returns (its polls
// are bounded here by the sleeper).
func FuzzFollow(f *testing.F) {
	f.Add(task1, get("working", ""), get("completed", `,"result":{"content":[]}`))
	f.Add(task1, get("input_required", `,"inputRequests":{"a":`+elicit("x")+`}`), get("completed", `,"result":{}`))
	f.Add(task1, get("input_required", `,"inputRequests":{"a":{"method":"elicitation/create"}}`), get("failed", `,"error":{"code":1,"message":"m"}`))
	f.Add(task1, `{"resultType":"input_required","inputRequests":{"a":`+elicit("x")+`}}`, get("cancelled", ""))
	f.Add(`{"resultType":"task"}`, `null`, `[]`)
	f.Add(task1, get("input_required", `,"inputRequests":null`), get("input_required", `,"inputRequests":{"a":7}`))
	f.Fuzz(func(t *testing.T, create, get1, get2 string) {
		if !jsontext.Value(create).IsValid() || !jsontext.Value(get1).IsValid() || !jsontext.Value(get2).IsValid() {
			return
		}
		sc := &scripted{create: jsontext.Value(create), gets: []string{get1, get2}}
		srv := scriptedServer(sc)
		var polls atomic.Int32
		fl := tasks.FollowerSleeping(func(ctx context.Context, d time.Duration) error {
			if polls.Add(1) > 5 {
				return errors.New("enough polls")
			}
			return ctx.Err()
		})
		cs := connectors[0].connect(t, srv.Handler, &mcp.ClientOptions{Handler: &elicitor{}, Extensions: []mcp.ClientExtension{fl}})
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		_, _ = cs.CallTool(ctx, call("x", nil))
		if ctx.Err() != nil {
			t.Fatalf("the call did not return before its deadline")
		}
	})
}
