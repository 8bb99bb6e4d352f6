// Command fleet runs one MCP server as a fleet of instances that share a
// Redis, behind a plain round-robin load balancer with no session
// affinity, and a client that shows that every kind of request works
// whichever instance it lands on.
//
// Start a Redis, then the fleet (three instances behind a round-robin
// proxy, in one process; --listen runs a single instance instead, as a
// replica of a real deployment would), then the client in another
// terminal:
//
//	$ redis-server --port 6379 --save '' --appendonly no &
//	$ cd examples/fleet
//	$ go run . serve --redis redis://127.0.0.1:6379/0
//	fleet "mcp-fleet-example": 3 instances on redis://127.0.0.1:6379/0, behind http://127.0.0.1:8080/mcp
//
//	$ go run . client --url http://127.0.0.1:8080/mcp
//	2026-07-28, stateless: 3 calls answered by 3 instances
//	2026-07-28, a question and its answer: "Hello, Ada", the rounds answered by 2 instances
//	2025-11-25, a session: 3 calls answered by 1 instance, its owner, whichever took them
//	2025-11-25, the server asks the client: "Hello, Ada"
//	2025-11-25, a resource subscription: told of the change to fleet://counter made through another instance
//	HTTP+SSE, a session: 3 calls answered by 1 instance, the one holding its stream
//
// Every instance of a real fleet reads the same requestState keys from a
// file (--keys, made with mcpgen keygen) and names the same --audience;
// without --keys, the instances of serve share keys made at start, which
// dies with the process.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/session"
	goredis "github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "fleet: %v\n", err)
		os.Exit(1)
	}
}

// options are the command line's.
type options struct {
	redisURL  string
	prefix    string
	instances int
	addr      string
	listen    string
	keys      string
	audience  string
	url       string
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var o options
	fs := pflag.NewFlagSet("fleet", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.redisURL, "redis", "redis://127.0.0.1:6379/0", "serve: the fleet's Redis, as a `URL` (redis://[user:password@]host:port/db)")
	fs.StringVar(&o.prefix, "prefix", "mcp-fleet-example", "serve: the fleet's `NAME` in Redis: every key and channel starts with it")
	fs.IntVar(&o.instances, "instances", 3, "serve: run `N` instances behind a round-robin proxy on --addr")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "serve: the proxy listens on `ADDR`")
	fs.StringVar(&o.listen, "listen", "", "serve: run one instance on `ADDR`, no proxy (a replica of a real deployment)")
	fs.StringVar(&o.keys, "keys", "", "serve: the requestState key `FILE` every instance reads (mcpgen keygen); default: keys made at start, shared by this process's instances only")
	fs.StringVar(&o.audience, "audience", "", "serve: the `URL` clients reach the fleet at, the same on every instance (default: the proxy's, or --listen's)")
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8080/mcp", "client: the fleet's `URL`")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w; see --help", err)
	}
	if *help {
		fmt.Fprintf(out, "usage: fleet serve [--redis URL] [--instances N --addr ADDR | --listen ADDR] [--keys FILE] [--audience URL]\n       fleet client [--url URL]\n\n%s", fs.FlagUsages())
		return nil
	}
	switch {
	case fs.NArg() != 1:
		return errors.New("want one command, serve or client; see --help")
	case fs.Arg(0) == "serve":
		return serve(ctx, o, out)
	case fs.Arg(0) == "client":
		return client(ctx, o.url, out)
	}
	return fmt.Errorf("unknown command %q, want serve or client; see --help", fs.Arg(0))
}

// serve runs the instances (and the proxy) until ctx ends.
func serve(ctx context.Context, o options, out io.Writer) error {
	ropts, err := goredis.ParseURL(o.redisURL)
	if err != nil {
		return fmt.Errorf("--redis %q: %w", o.redisURL, err)
	}
	ring, closeKeys, err := keyRing(ctx, o.keys)
	if err != nil {
		return err
	}
	defer closeKeys()
	if o.listen != "" {
		ln, err := net.Listen("tcp", o.listen)
		if err != nil {
			return fmt.Errorf("--listen %s: %w", o.listen, err)
		}
		aud := o.audience
		if aud == "" {
			aud = "http://" + ln.Addr().String() + "/mcp"
		}
		in, err := startInstance(ctx, ropts, o.prefix, ring, aud, ln)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "fleet %q: instance %s on %s, serving http://%s/mcp\n", o.prefix, in.name, o.redisURL, ln.Addr())
		<-ctx.Done()
		return in.stop()
	}
	if o.instances < 1 {
		return fmt.Errorf("--instances %d: want at least 1", o.instances)
	}
	front, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", o.addr, err)
	}
	aud := o.audience
	if aud == "" {
		aud = "http://" + front.Addr().String() + "/mcp"
	}
	var backends []*url.URL
	var ins []*instanceServer
	defer func() {
		for _, in := range ins {
			in.stop()
		}
	}()
	for range o.instances {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		in, err := startInstance(ctx, ropts, o.prefix, ring, aud, ln)
		if err != nil {
			return err
		}
		ins = append(ins, in)
		backends = append(backends, &url.URL{Scheme: "http", Host: ln.Addr().String()})
	}
	proxy := roundRobin(backends)
	hs := httpServer(proxy)
	fmt.Fprintf(out, "fleet %q: %d instances on %s, behind http://%s/mcp\n", o.prefix, o.instances, o.redisURL, front.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(front) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	return nil
}

// keyRing returns the requestState keys every instance seals with: those
// of file, read again every minute, or a key made now.
func keyRing(ctx context.Context, file string) (*reqstate.Ring, func(), error) {
	if file == "" {
		return reqstate.NewEphemeralRing(), func() {}, nil
	}
	kf, err := reqstate.OpenKeyFile(file, reqstate.KeyFileOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("--keys: %w", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	go kf.Watch(wctx, func(err error) { fmt.Fprintf(os.Stderr, "fleet: --keys: %v\n", err) })
	return kf.Ring(), cancel, nil
}

// roundRobin is the load balancer: each request goes to the next backend,
// with no affinity of any kind. SSE streams flow as they are written.
func roundRobin(backends []*url.URL) http.Handler {
	var next atomic.Uint64
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			b := backends[next.Add(1)%uint64(len(backends))]
			r.SetURL(b)
			r.Out.Host = r.In.Host // the instances check Host against DNS rebinding
		},
		FlushInterval: -1,
	}
}

// instanceServer is one instance: its Redis connections, its server, its
// HTTP listener.
type instanceServer struct {
	name string
	rdb  *goredis.Client
	f    *redis.Fleet
	hs   *http.Server
	h    interface{ Close() }
}

// startInstance starts an instance of the server on ln.
func startInstance(ctx context.Context, ropts *goredis.Options, prefix string, ring *reqstate.Ring, audience string, ln net.Listener) (*instanceServer, error) {
	ropts.ContextTimeoutEnabled = true // a Redis that does not answer fails a request within the fleet's Timeout
	rdb := goredis.NewClient(ropts)
	f, err := redis.NewFleet(ctx, rdb, prefix, redis.FleetOptions{})
	if err != nil {
		rdb.Close()
		return nil, fmt.Errorf("joining the fleet on Redis: %w", err)
	}
	in := &instanceServer{name: f.Node.ID, rdb: rdb, f: f}
	srv := newServer(in.name, f)
	sessionOpts := session.Options{
		Sealer:        session.SealWith(&reqstate.Sealer{Ring: ring}),
		StateAudience: audience,
	}
	h := srv.HTTPHandler(mcp.HTTPOptions{
		// The proxy keeps the Host header, which the default AllowedHosts
		// (loopback names) accept; a real deployment lists its host names.
		Fleet:      f.Node,
		EventStore: f.Events,
		Session:    sessionOpts,
	})
	// The transport of 2024-11-05, for the clients that still use it.
	sse := srv.SSEHandler(mcp.SSEOptions{Session: sessionOpts, Fleet: f.Node})
	in.h = closers{h, sse}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", sse)
	in.hs = httpServer(mux)
	in.hs.RegisterOnShutdown(in.h.Close)
	go in.hs.Serve(ln)
	return in, nil
}

// httpServer returns the http.Server of h, with limits on what a client
// may hold.
func httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// No deadline for a whole response, which would cut SSE streams:
		// the MCP handlers bound each write themselves.
		WriteTimeout:   0,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
	}
}

// closers closes each of its handlers.
type closers []interface{ Close() }

func (cs closers) Close() {
	for _, c := range cs {
		c.Close()
	}
}

// stop hands the instance's sessions over to the others and leaves the
// fleet.
func (in *instanceServer) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := in.hs.Shutdown(ctx)
	in.h.Close()
	in.f.Close()
	in.rdb.Close()
	return err
}
