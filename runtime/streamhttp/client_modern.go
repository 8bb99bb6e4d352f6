package streamhttp

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file is the Client's side of the stateless era (2026-07-28, see
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http):
// a request whose params carry a revision in _meta, sent while no
// session is open, is a stateless POST. It gets the headers that mirror
// its body, its stream is never resumed, and it is
// cancelled by closing that stream rather than by a
// notifications/cancelled POST. The Client learns the x-mcp-header
// annotations of the tools from the answers to tools/list, and drops the
// tools whose annotations break the rules from them (see
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#client-behavior).

// modernConn is what a Client keeps of the stateless era per connection.
// Its fields are guarded by Client.mu.
type modernConn struct {
	version   string                         // the revision of the last stateless request
	toolLists map[wire.ID]bool               // tools/list requests awaiting their answer
	tools     map[string]mcpheader.Params    // x-mcp-header annotations, by tool name
	streams   map[wire.ID]context.CancelFunc // open SSE streams of stateless requests
	listed    bool                           // a tools/list was answered
}

// ServerKey returns the endpoint URL: the server a session.Session
// remembers the protocol era of (session.ServerKeyer).
func (c *Client) ServerKey() string { return c.endpoint }

// modernPost is a payload to POST in the stateless era.
type modernPost struct {
	version string
	msg     clientMessage
	params  jsontext.Value
}

// modernOf reports whether data, one message to POST while no session is
// open, belongs to the stateless era: a request whose params carry a
// revision in _meta, or a notification after such requests.
func (c *Client) modernOf(g *clientConn, data []byte, msgs []clientMessage) (modernPost, bool) {
	if len(msgs) != 1 || msgs[0].method == "" || msgs[0].method == "initialize" {
		return modernPost{}, false
	}
	params, _ := wire.Member(data, "params")
	meta, _ := wire.Member(params, "_meta")
	version, ok := wire.MemberString(meta, "io.modelcontextprotocol/protocolVersion")
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok && msgs[0].kind == jsonrpc.Request {
		if g.modern == nil {
			g.modern = &modernConn{}
		}
		g.modern.version = version
		return modernPost{version: version, msg: msgs[0], params: params}, true
	}
	if msgs[0].kind == jsonrpc.Notification && g.modern != nil && g.modern.version != "" {
		return modernPost{version: g.modern.version, msg: msgs[0], params: params}, true
	}
	return modernPost{}, false
}

// modernHeaders sets the headers of a stateless POST and, for
// tools/list, notes the request so that its answer is looked into.
func (c *Client) modernHeaders(g *clientConn, h http.Header, p modernPost) error {
	if !mcpheader.Safe(p.version) {
		return fmt.Errorf("streamhttp: the protocol version %q cannot be sent as a header value", p.version)
	}
	h.Set(mcpheader.HeaderProtocolVersion, p.version)
	var tool mcpheader.Params
	c.mu.Lock()
	if p.msg.method == "tools/call" && g.modern.tools != nil {
		name, _ := wire.MemberString(p.params, "name")
		tool = g.modern.tools[name]
	}
	c.mu.Unlock()
	if err := mcpheader.Set(h, p.msg.method, p.params, tool); err != nil {
		return fmt.Errorf("streamhttp: %w", err)
	}
	if p.msg.method == "tools/list" && p.msg.id.IsValid() {
		c.mu.Lock()
		if g.modern.toolLists == nil {
			g.modern.toolLists = map[wire.ID]bool{}
		}
		g.modern.toolLists[p.msg.id] = true
		c.mu.Unlock()
	}
	return nil
}

// cancelModern ends the stream of the stateless request that a
// notifications/cancelled names, and reports whether data was such
// a notification: it is not POSTed, since the stateless era has no
// client-to-server notification over HTTP.
func (c *Client) cancelModern(g *clientConn, p modernPost) bool {
	if p.msg.kind != jsonrpc.Notification || p.msg.method != "notifications/cancelled" {
		return false
	}
	raw, _ := wire.Member(p.params, "requestId")
	var id wire.ID
	if wire.Unmarshal(raw, &id) == nil {
		c.mu.Lock()
		cancel := g.modern.streams[id]
		delete(g.modern.streams, id)
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
	return true
}

// trackStream records the cancel function of the SSE stream that answers
// the stateless request id; the returned func forgets it.
func (c *Client) trackStream(g *clientConn, id wire.ID, cancel context.CancelFunc) func() {
	c.mu.Lock()
	if g.modern.streams == nil {
		g.modern.streams = map[wire.ID]context.CancelFunc{}
	}
	g.modern.streams[id] = cancel
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(g.modern.streams, id)
		c.mu.Unlock()
	}
}

// toolsAnswer looks into data when it answers a stateless tools/list: it
// learns the x-mcp-header annotations of the tools listed, and returns data
// without the tools whose annotations break the rules, logging a
// warning for each. Anything else is returned as it is.
func (c *Client) toolsAnswer(g *clientConn, data []byte) []byte {
	c.mu.Lock()
	waiting := g.modern != nil && len(g.modern.toolLists) > 0
	c.mu.Unlock()
	if !waiting || firstByte(data) != '{' {
		return data
	}
	m := clientProbe(data)
	if m.kind != jsonrpc.Response && m.kind != jsonrpc.ErrorResponse {
		return data
	}
	c.mu.Lock()
	ours := g.modern.toolLists[m.id]
	delete(g.modern.toolLists, m.id)
	if ours {
		g.modern.listed = true
	}
	c.mu.Unlock()
	if !ours || m.kind != jsonrpc.Response {
		return data
	}
	result, _ := wire.Member(data, "result")
	tools, ok := wire.Member(result, "tools")
	if !ok {
		return data
	}
	var list []jsontext.Value
	if wire.DecodeValue(tools, &list) != nil {
		return data // the session reports the malformed result
	}
	kept := list[:0:0]
	learned := map[string]mcpheader.Params{}
	for _, t := range list {
		name, _ := wire.MemberString(t, "name")
		schema, _ := wire.Member(t, "inputSchema")
		params, err := mcpheader.ParseTool(schema)
		if err != nil {
			c.log.Warn("streamhttp: dropping a tool whose x-mcp-header annotations break the rules", "tool", name, "err", err)
			continue
		}
		learned[name] = params
		kept = append(kept, t)
	}
	c.mu.Lock()
	if g.modern.tools == nil {
		g.modern.tools = map[string]mcpheader.Params{}
	}
	for name, p := range learned {
		g.modern.tools[name] = p
	}
	c.mu.Unlock()
	if len(kept) == len(list) {
		return data
	}
	b := []byte{'['}
	for i, t := range kept {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	b = append(b, ']')
	result, err := wire.SetMember(result, "tools", b)
	if err != nil {
		return data
	}
	out, err := wire.SetMember(data, "result", result)
	if err != nil {
		return data
	}
	return out
}

// NeedsToolList reports whether the Client, in the stateless era, has seen
// no tools/list answer yet, so that it cannot know which arguments of a
// tools/call to mirror into Mcp-Param headers: a session of the
// stateless era lists the tools first (session.ToolLister).
func (c *Client) NeedsToolList() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.conn
	return g.modern != nil && !g.modern.listed && g.sessionID == ""
}
