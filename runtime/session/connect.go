package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// DefaultConnectTimeout is how long ConnectWithin waits for the server to
// answer the handshake when it is given no time of its own: long enough
// for a server that compiles itself first (go run) or starts slowly, short
// enough that a program that is not an MCP server, or a wrong URL, is
// reported rather than waited on.
const DefaultConnectTimeout = 30 * time.Second

// ConnectTimeoutError is the error of a ConnectWithin whose server did not
// complete the handshake in time: it may not be an MCP server at all (a
// program that writes nothing, or something other than JSON-RPC, on its
// stdout), or it may be stuck. It wraps the error of the call that was cut
// short, which wraps context.DeadlineExceeded.
type ConnectTimeoutError struct {
	// Timeout is the time the server had.
	Timeout time.Duration
	// Server names the server as its transport does (fmt.Stringer), such
	// as `the server process "weather"`, or by its URL, without the query
	// (ServerKeyer); "" when the transport does neither.
	Server string
	// Stdio reports whether the transport is a byte stream (stdio), where
	// the usual cause is a program that does not speak JSON-RPC on its
	// stdout.
	Stdio bool
	// NotJSONRPC is the start of the first line (at most
	// NotJSONRPCQuoteSize bytes) that the server sent and that was not
	// JSON-RPC, such as a log line of a server that logs to its stdout;
	// "" when it sent none.
	NotJSONRPC string
	// Err is the error of the handshake's call.
	Err error
}

// NotJSONRPCQuoteSize bounds the start of a line that is not JSON-RPC that
// a ConnectTimeoutError quotes.
const NotJSONRPCQuoteSize = 80

// payloadStart returns the start of a payload for ConnectTimeoutError's
// NotJSONRPC: its first line, at most NotJSONRPCQuoteSize bytes of it, cut
// at a character's start. It is quoted (%q) where it is shown.
func payloadStart(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	if len(line) > NotJSONRPCQuoteSize {
		n := NotJSONRPCQuoteSize
		for n > 0 && !utf8.RuneStart(line[n]) {
			n--
		}
		line = line[:n]
	}
	if len(line) == 0 {
		return " " // not "": a payload was there, blank
	}
	return string(line)
}

func (e *ConnectTimeoutError) Error() string {
	who := e.Server
	if who == "" {
		who = "the server"
	}
	hint := "is it an MCP server, and is the address its MCP endpoint?"
	if e.Stdio {
		hint = "is it an MCP server, writing JSON-RPC messages on its stdout?"
	}
	switch {
	case e.NotJSONRPC != "" && e.Stdio:
		hint = fmt.Sprintf("it wrote on its stdout something that is not JSON-RPC, starting %q: an MCP server over stdio writes only JSON-RPC messages there (logs go to stderr)", e.NotJSONRPC)
	case e.NotJSONRPC != "":
		hint = fmt.Sprintf("it sent something that is not JSON-RPC, starting %q: is the address its MCP endpoint?", e.NotJSONRPC)
	}
	return fmt.Sprintf("connect: no answer from %s within %v: %s", who, e.Timeout, hint)
}

func (e *ConnectTimeoutError) Unwrap() error { return e.Err }

// errConnectTimeout is the cause of the context ConnectWithin bounds the
// handshake by, to tell its own deadline from the caller's.
var errConnectTimeout = errors.New("connect timeout")

// ConnectWithin is Connect bounded in time: when the server has not
// completed the handshake (server/discover or initialize, and its
// fallback) within timeout, it fails with a *ConnectTimeoutError, which
// says which server did not answer and what to check. A timeout of 0 means
// DefaultConnectTimeout; a negative one, no bound but ctx's. An end of ctx
// itself is returned as Connect returns it.
func (s *Session) ConnectWithin(ctx context.Context, info, caps wire.Appender, timeout time.Duration) error {
	if timeout == 0 {
		timeout = DefaultConnectTimeout
	}
	if timeout < 0 {
		return s.Connect(ctx, info, caps)
	}
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, errConnectTimeout)
	defer cancel()
	err := s.Connect(cctx, info, caps)
	if err == nil || ctx.Err() != nil || context.Cause(cctx) != errConnectTimeout {
		return err
	}
	e := &ConnectTimeoutError{Timeout: timeout, Err: err}
	switch t := s.t.(type) {
	case fmt.Stringer:
		e.Server = t.String()
	case ServerKeyer:
		if u, err := url.Parse(t.ServerKey()); err == nil && u.Host != "" {
			u.RawQuery, u.Fragment, u.User = "", "", nil
			e.Server = "the server at " + u.String()
		}
	}
	_, e.Stdio = s.t.(InputEnder)
	s.mu.Lock()
	e.NotJSONRPC = s.malformed
	s.mu.Unlock()
	return e
}

// ProgramInfo returns a name and a version for the running program, for
// an Implementation (clientInfo, serverInfo) that was left empty, from the
// build information Go records in the binary: the last element of the main
// package's path (the command's directory, such as "weather" for
// example.com/tools/cmd/weather), and the main module's version, or
// "(devel)" for a program not built from a module version. Without a
// package path (go run of a file), the name is the program file's.
func ProgramInfo() (name, version string) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, p := range []string{bi.Path, bi.Main.Path} {
			if p != "" && p != "command-line-arguments" {
				name = path.Base(p)
				break
			}
		}
		version = bi.Main.Version
	}
	if name == "" && len(os.Args) > 0 {
		name = strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	}
	if name == "" || name == "." || name == "/" {
		name = "mcpgen-program"
	}
	if version == "" {
		version = "(devel)"
	}
	return name, version
}

// CheckHandler reports a handler h that was meant to answer a kind of
// request but does not: its type has a method called method, yet h does
// not implement the interface iface (whose method has the signature want)
// because the signature differs or because the method is on the pointer
// type and h is not a pointer. A generated Connect calls it for each
// optional interface h does not implement, since the requests would
// otherwise be refused as not implemented, and the capability left
// undeclared, without a word. It returns nil when h has no such method.
func CheckHandler(h any, method, iface, want string) error {
	t := reflect.TypeOf(h)
	if t == nil {
		return nil
	}
	if m, ok := t.MethodByName(method); ok {
		return fmt.Errorf("%s has a method %s of type %s, which is not %s's %s, so it answers no request", t, method, methodType(m.Type), iface, want)
	}
	if t.Kind() != reflect.Pointer {
		if _, ok := reflect.PointerTo(t).MethodByName(method); ok {
			return fmt.Errorf("%s has its method %s on the pointer type *%s: pass a pointer, such as &%s{}, for it to answer requests as %s", t, method, t, t, iface)
		}
	}
	return nil
}

// methodType writes the type of a method as found by reflect.Type's
// MethodByName, without its receiver.
func methodType(t reflect.Type) string {
	var b strings.Builder
	b.WriteString("func(")
	for i := 1; i < t.NumIn(); i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		if t.IsVariadic() && i == t.NumIn()-1 {
			b.WriteString("..." + t.In(i).Elem().String())
			continue
		}
		b.WriteString(t.In(i).String())
	}
	b.WriteString(")")
	switch t.NumOut() {
	case 0:
	case 1:
		b.WriteString(" " + t.Out(0).String())
	default:
		b.WriteString(" (")
		for i := range t.NumOut() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.Out(i).String())
		}
		b.WriteString(")")
	}
	return b.String()
}
