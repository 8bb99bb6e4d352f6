package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// clientTimeout bounds the whole client run.
const clientTimeout = 30 * time.Second

// client shows each kind of request through the fleet at url: both eras,
// a question asked of the user, a subscription.
func client(ctx context.Context, url string, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	info := mcp.Implementation{Name: "fleet-example-client", Version: "1.0.0"}

	// 2026-07-28: no session; each request lands where the proxy sends it.
	modern, err := mcp.Connect(ctx, streamhttp.NewClient(url, streamhttp.ClientOptions{}), &mcp.ClientOptions{Info: info, Handler: modernUser{}})
	if err != nil {
		return fmt.Errorf("connecting at 2026-07-28: %w", err)
	}
	defer modern.Close()
	seen := map[string]bool{}
	for range 3 {
		res, err := modern.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whoami"})
		if err != nil {
			return fmt.Errorf("2026-07-28 whoami: %w", err)
		}
		seen[textOf(res.Content)] = true
	}
	fmt.Fprintf(out, "2026-07-28, stateless: 3 calls answered by %s\n", instances(len(seen)))
	res, err := modern.CallTool(ctx, &mcp.CallToolRequestParams{Name: "greet"})
	if err != nil {
		return fmt.Errorf("2026-07-28 greet: %w", err)
	}
	fmt.Fprintf(out, "2026-07-28, a question and its answer: %q\n", before(textOf(res.Content), " (asked by"))

	// 2025-11-25: a session, owned by one instance; the proxy still
	// spreads its requests over all of them.
	updated := make(chan string, 1)
	legacy, err := m25.Connect(ctx, streamhttp.NewClient(url, streamhttp.ClientOptions{}), &m25.ClientOptions{
		Info: m25.Implementation{Name: info.Name, Version: info.Version}, Handler: legacyUser{updated: updated}})
	if err != nil {
		return fmt.Errorf("connecting at 2025-11-25: %w", err)
	}
	defer legacy.Close()
	seen = map[string]bool{}
	for range 3 {
		res, err := legacy.CallTool(ctx, &m25.CallToolRequestParams{Name: "whoami"})
		if err != nil {
			return fmt.Errorf("2025-11-25 whoami: %w", err)
		}
		seen[legacyText(res.Content)] = true
	}
	fmt.Fprintf(out, "2025-11-25, a session: 3 calls answered by %s, its owner, whichever took them\n", instances(len(seen)))
	lres, err := legacy.CallTool(ctx, &m25.CallToolRequestParams{Name: "greet"})
	if err != nil {
		return fmt.Errorf("2025-11-25 greet: %w", err)
	}
	fmt.Fprintf(out, "2025-11-25, the server asks the client: %q\n", before(legacyText(lres.Content), " (asked by"))

	if _, err := legacy.Subscribe(ctx, &m25.SubscribeRequestParams{URI: counterURI}); err != nil {
		return fmt.Errorf("2025-11-25 subscribe: %w", err)
	}
	// The change goes through the stateless client: whichever instance
	// makes it, the Bus tells the session's owner.
	if _, err := modern.CallTool(ctx, &mcp.CallToolRequestParams{Name: "bump"}); err != nil {
		return fmt.Errorf("2026-07-28 bump: %w", err)
	}
	select {
	case uri := <-updated:
		fmt.Fprintf(out, "2025-11-25, a resource subscription: told of the change to %s made through another instance\n", uri)
	case <-ctx.Done():
		return fmt.Errorf("2025-11-25: no notice of the change to %s: %w", counterURI, ctx.Err())
	}

	// HTTP+SSE: the stream stays on one instance; the POSTs land anywhere.
	sseURL := strings.TrimSuffix(url, "/mcp") + "/sse"
	old, err := m25.Connect(ctx, ssehttp.NewClient(sseURL, ssehttp.ClientOptions{}), &m25.ClientOptions{Info: m25.Implementation{Name: info.Name, Version: info.Version}})
	if err != nil {
		return fmt.Errorf("connecting over HTTP+SSE: %w", err)
	}
	defer old.Close()
	seen = map[string]bool{}
	for range 3 {
		res, err := old.CallTool(ctx, &m25.CallToolRequestParams{Name: "whoami"})
		if err != nil {
			return fmt.Errorf("HTTP+SSE whoami: %w", err)
		}
		seen[legacyText(res.Content)] = true
	}
	fmt.Fprintf(out, "HTTP+SSE, a session: 3 calls answered by %s, the one holding its stream\n", instances(len(seen)))
	return nil
}

// modernUser answers the server's questions at 2026-07-28.
type modernUser struct{ mcp.UnimplementedClient }

func (modernUser) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return mcp.Accept(map[string]any{"name": "Ada"})
}

// legacyUser answers them in a 2025-11-25 session, and hears of updates.
type legacyUser struct {
	m25.UnimplementedClient
	updated chan string
}

func (legacyUser) Elicit(ctx context.Context, p *m25.ElicitRequestParams) (*m25.ElicitResult, error) {
	return m25.Accept(map[string]any{"name": "Ada"})
}

func (u legacyUser) ResourceUpdated(ctx context.Context, p *m25.ResourceUpdatedNotificationParams) {
	select {
	case u.updated <- p.URI:
	default:
	}
}

func textOf(c []mcp.ContentBlock) string {
	if len(c) > 0 {
		if t, ok := c[0].Value.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

func legacyText(c []m25.ContentBlock) string {
	if len(c) > 0 {
		if t, ok := c[0].Value.(*m25.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

func before(s, sep string) string {
	b, _, _ := strings.Cut(s, sep)
	return b
}

func instances(n int) string {
	if n == 1 {
		return "1 instance"
	}
	return fmt.Sprintf("%d instances", n)
}
