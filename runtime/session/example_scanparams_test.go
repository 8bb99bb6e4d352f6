package session_test

import (
	"context"
	"fmt"

	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A transport scans a stateless request's params once, checks what it
// mirrors (the revision, the tool's name) and hands the scan on, so that
// the request is served without reading its params again.
func ExampleScanParams() {
	srv := m26.NewServer(m26.Implementation{Name: "example", Version: "1"})
	x := session.NewStateless(srv.Handler(), session.Options{})
	defer x.Close()
	m := &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: "tools/list", Params: []byte(`{"_meta":{"` +
		session.MetaProtocolVersion + `":"2026-07-28","` + session.MetaClientCapabilities + `":{}}}`)}

	sp := session.ScanParams(m)
	rev, _ := sp.ProtocolVersion()
	name, _ := sp.Mirrored()
	fmt.Println(sp.ClaimsModern(), rev, name == nil)

	resp, status := x.ServeParams(context.Background(), m, sp, nil)
	fmt.Println(status, resp.Error == nil)
	// Output:
	// true 2026-07-28 true
	// 200 true
}
