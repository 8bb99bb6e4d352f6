package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A setup starts a server and a connected, initialized client, and returns
// the echo call and a cleanup.
type setup func(b *testing.B) (caller, func())

// Round trips: BenchmarkRoundTrip/<transport>/<seq|par8>/<impl>. Each
// sub-benchmark starts its own server and client outside the timed loop.
func BenchmarkRoundTrip(b *testing.B) {
	transports := []struct {
		name  string
		impls []struct {
			name string
			s    setup
		}
	}{
		{"mem", []struct {
			name string
			s    setup
		}{{"mcpgen", mcpgenMem}, {"gosdk", sdkMem}, {"mcpgo", mcpgoMem}}},
		{"stdio", []struct {
			name string
			s    setup
		}{{"mcpgen", mcpgenStdio}, {"gosdk", sdkStdio}, {"mcpgo", mcpgoStdio}, {"floor", floorStdio}}},
		{"http", []struct {
			name string
			s    setup
		}{{"mcpgen", mcpgenHTTP}, {"gosdk", sdkHTTP}, {"mcpgo", mcpgoHTTP}, {"floor", floorHTTP}}},
	}
	for _, tr := range transports {
		for _, mode := range []struct {
			name    string
			workers int
		}{{"seq", 1}, {"par8", 8}} {
			for _, impl := range tr.impls {
				b.Run(tr.name+"/"+mode.name+"/"+impl.name, func(b *testing.B) {
					call, cleanup := impl.s(b)
					defer cleanup()
					benchCalls(b, mode.workers, call)
					b.StopTimer()
				})
			}
		}
	}
}

// checkText checks that an echo answered echoText.
func checkText(got string) error {
	if got != echoText {
		return fmt.Errorf("echo answered %q", got)
	}
	return nil
}

// ---- mcpgen ----

var mcpgenArgs = []byte(`{"text":"hello, world"}`)

// mcpgenSession pins the sessions of the benchmarks to the revision of the
// package they are written against (2025-06-18): the binary links every
// revision (protocol/mcp20260728 links the older ones), and without the pin
// client and server would negotiate the newest and convert each message to
// it and back, which is not the work being measured.
var mcpgenSession = session.Options{Revisions: []string{mcp.Revision}}

// mcpgenClient serves the echo server on serverEnd and connects a client on
// clientEnd; mw (none in the RoundTrip rows, otelmcp in the Tracing rows)
// goes to both sides.
func mcpgenClient(b *testing.B, serverEnd, clientEnd transport.Transport, mw ...session.Middleware) (caller, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = mcp.Serve(ctx, serverEnd, newMcpgenServer(mw...), mcpgenSession)
	}()
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "bench-client", Version: "1.0.0"}, Session: mcpgenSession, Middleware: mw})
	if err != nil {
		cancel()
		b.Fatal(err)
	}
	call := func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: mcpgenArgs})
		if err != nil {
			return err
		}
		t, ok := res.Content[0].Value.(*mcp.TextContent)
		if !ok {
			return fmt.Errorf("echo answered %T", res.Content[0].Value)
		}
		return checkText(t.Text)
	}
	return call, func() {
		cs.Close()
		cancel()
		<-served
	}
}

func mcpgenMem(b *testing.B) (caller, func()) { return mcpgenMemWith(b) }

func mcpgenMemWith(b *testing.B, mw ...session.Middleware) (caller, func()) {
	s, c := transport.Pipe()
	return mcpgenClient(b, s, c, mw...)
}

// osPipes returns the two ends of a stdio connection over two os.Pipe pairs:
// the server reads sr and writes sw, the client reads cr and writes cw.
func osPipes(b *testing.B) (sr, sw, cr, cw *os.File) {
	var err error
	if sr, cw, err = os.Pipe(); err != nil {
		b.Fatal(err)
	}
	if cr, sw, err = os.Pipe(); err != nil {
		b.Fatal(err)
	}
	return
}

func mcpgenStdio(b *testing.B) (caller, func()) { return mcpgenStdioWith(b) }

func mcpgenStdioWith(b *testing.B, mw ...session.Middleware) (caller, func()) {
	sr, sw, cr, cw := osPipes(b)
	return mcpgenClient(b, stdio.New(sr, sw), stdio.New(cr, cw), mw...)
}

func mcpgenHTTP(b *testing.B) (caller, func()) { return mcpgenHTTPWith(b) }

func mcpgenHTTPWith(b *testing.B, mw ...session.Middleware) (caller, func()) {
	srv := newMcpgenServer(mw...)
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, streamhttp.ServerOptions{JSONResponse: true, Session: mcpgenSession})
	url, stop := listen(b, h)
	ctx, cancel := context.WithCancel(context.Background())
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(url, streamhttp.ClientOptions{HTTPClient: httpClient()}), &mcp.ClientOptions{Info: mcp.Implementation{Name: "bench-client", Version: "1.0.0"}, Session: mcpgenSession, Middleware: mw})
	if err != nil {
		b.Fatal(err)
	}
	call := func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: mcpgenArgs})
		if err != nil {
			return err
		}
		return checkText(res.Content[0].Value.(*mcp.TextContent).Text)
	}
	return call, func() {
		cs.Close()
		cancel()
		h.Close()
		stop()
	}
}

// ---- go-sdk ----

func sdkClient(b *testing.B, st, ct sdk.Transport) (caller, func()) {
	ctx := context.Background()
	ss, err := newSDKServer().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "bench-client", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != protocolVersion {
		b.Fatalf("go-sdk negotiated %s", v)
	}
	call := func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": echoText}})
		if err != nil {
			return err
		}
		t, ok := res.Content[0].(*sdk.TextContent)
		if !ok {
			return fmt.Errorf("echo answered %T", res.Content[0])
		}
		return checkText(t.Text)
	}
	return call, func() {
		cs.Close()
		if ss != nil {
			ss.Close()
		}
	}
}

func sdkMem(b *testing.B) (caller, func()) {
	st, ct := sdk.NewInMemoryTransports()
	return sdkClient(b, st, ct)
}

func sdkStdio(b *testing.B) (caller, func()) {
	sr, sw, cr, cw := osPipes(b)
	return sdkClient(b, &sdk.IOTransport{Reader: sr, Writer: sw}, &sdk.IOTransport{Reader: cr, Writer: cw})
}

func sdkHTTP(b *testing.B) (caller, func()) {
	srv := newSDKServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: true})
	url, stop := listen(b, h)
	ctx := context.Background()
	c := sdk.NewClient(&sdk.Implementation{Name: "bench-client", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient()}, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	call := func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": echoText}})
		if err != nil {
			return err
		}
		return checkText(res.Content[0].(*sdk.TextContent).Text)
	}
	return call, func() {
		cs.Close()
		stop()
	}
}

// ---- mcp-go ----

func mcpgoInit(b *testing.B, c *mcpgoclient.Client) caller {
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	var init mcpgo.InitializeRequest
	init.Params.ProtocolVersion = protocolVersion
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench-client", Version: "1.0.0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		b.Fatal(err)
	}
	if res.ProtocolVersion != protocolVersion {
		b.Fatalf("mcp-go negotiated %s", res.ProtocolVersion)
	}
	return func(ctx context.Context) error {
		var req mcpgo.CallToolRequest
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"text": echoText}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return err
		}
		t, ok := res.Content[0].(mcpgo.TextContent)
		if !ok {
			return fmt.Errorf("echo answered %T", res.Content[0])
		}
		return checkText(t.Text)
	}
}

func mcpgoMem(b *testing.B) (caller, func()) {
	c, err := mcpgoclient.NewInProcessClient(newMcpgoServer())
	if err != nil {
		b.Fatal(err)
	}
	return mcpgoInit(b, c), func() { c.Close() }
}

func mcpgoStdio(b *testing.B) (caller, func()) {
	sr, sw, cr, cw := osPipes(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mcpgoserver.NewStdioServer(newMcpgoServer()).Listen(ctx, sr, sw)
	}()
	c := mcpgoclient.NewClient(mcpgotransport.NewIO(cr, cw, nil))
	call := mcpgoInit(b, c)
	return call, func() {
		c.Close()
		cancel()
		sr.Close()
		sw.Close()
		cr.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	}
}

func mcpgoHTTP(b *testing.B) (caller, func()) {
	h := mcpgoserver.NewStreamableHTTPServer(newMcpgoServer())
	url, stop := listen(b, h)
	c, err := mcpgoclient.NewStreamableHttpClient(url, mcpgotransport.WithHTTPBasicClient(httpClient()))
	if err != nil {
		b.Fatal(err)
	}
	call := mcpgoInit(b, c)
	return call, func() {
		c.Close()
		stop()
	}
}

// ---- shared HTTP plumbing ----

// listen serves h on 127.0.0.1 at a port chosen now, under /mcp, and
// returns its URL and a stop function.
func listen(b *testing.B, h http.Handler) (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/mcp", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		_ = hs.Close()
	}
}

// httpClient returns a fresh client whose pool keeps enough idle
// connections for 8 concurrent callers (the default keeps 2 per host). Every
// implementation and the floor get the same one.
func httpClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
	}}
}
