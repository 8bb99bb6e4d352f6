// Package examples holds no code: its test reads the examples, which people
// copy to start a server, and checks that every one that serves HTTP bounds
// what a client may hold open.
package examples

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// serverFields are the fields every http.Server of an example sets. Without
// ReadHeaderTimeout and ReadTimeout a client that sends its request a byte
// at a time (slowloris) holds its connection for ever; without IdleTimeout
// a kept-alive connection waits for ever; MaxHeaderBytes bounds the
// headers (net/http's default is 1 MB).
var serverFields = []string{"ReadHeaderTimeout", "ReadTimeout", "WriteTimeout", "IdleTimeout", "MaxHeaderBytes"}

// zeroWithReason are the fields that may be set to 0, when a comment on the
// line or just above says why: WriteTimeout bounds a whole response, which
// would cut SSE streams and the answers of long calls, so an MCP server
// leaves it 0 and its transport bounds each write instead.
var zeroWithReason = map[string]bool{"WriteTimeout": true}

// noTimeouts are the functions of net/http that serve with an http.Server
// of their own, which has no timeouts.
var noTimeouts = map[string]bool{"ListenAndServe": true, "ListenAndServeTLS": true, "Serve": true, "ServeTLS": true}

// serving are the calls that make an MCP HTTP handler: a package that makes
// one must serve it with an http.Server literal this test can check.
var serving = map[string]map[string]bool{
	"github.com/mcpgen/mcpgen/runtime/streamhttp": {"NewServer": true},
	"github.com/mcpgen/mcpgen/runtime/ssehttp":    {"NewServer": true},
}

// servingMethods are the methods of a revision package's StandardServer
// that make an MCP HTTP handler, as srv.HTTPHandler(mcp.HTTPOptions{}) does:
// a call of one counts in a file that imports a revision package.
var servingMethods = map[string]bool{"HTTPHandler": true, "SSEHandler": true}

// revisionPackage is the import path prefix of the revision packages.
const revisionPackage = "github.com/mcpgen/mcpgen/protocol/mcp"

// fileReport is what checkFile found in one file.
type fileReport struct {
	servers  int      // http.Server literals
	handlers int      // calls that make an MCP HTTP handler
	problems []string // "file:line:col: what is wrong"
}

// checkFile checks the http.Server literals of f and the calls that serve
// without one.
func checkFile(fset *token.FileSet, f *ast.File) fileReport {
	var r fileReport
	problem := func(n ast.Node, format string, args ...any) {
		r.problems = append(r.problems, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, args...)))
	}
	// The names f gives the packages that matter.
	httpName := ""
	handlerNames := map[string]map[string]bool{}
	revisionImported := false
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch {
		case path == "net/http" && name == ".":
			problem(imp, "net/http is dot-imported, which hides its Server from this check")
		case path == "net/http":
			httpName = name
		case serving[path] != nil:
			handlerNames[name] = serving[path]
		case strings.HasPrefix(path, revisionPackage):
			revisionImported = true
		}
	}
	isHTTP := func(e ast.Expr, name string) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != name {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && httpName != "" && id.Name == httpName
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if isHTTP(n.Type, "Server") {
				r.servers++
				checkServer(fset, n, f.Comments, problem)
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				id, isIdent := sel.X.(*ast.Ident)
				if revisionImported && servingMethods[sel.Sel.Name] {
					r.handlers++
				}
				if isIdent {
					if id.Name == httpName && noTimeouts[sel.Sel.Name] {
						problem(n, "%s.%s serves with no timeouts: serve with an http.Server that sets %s", httpName, sel.Sel.Name, strings.Join(serverFields, ", "))
					}
					if handlerNames[id.Name][sel.Sel.Name] {
						r.handlers++
					}
				}
			}
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 && isHTTP(n.Args[0], "Server") {
				problem(n, "new(%s.Server): set its fields in a composite literal, where this test sees them", httpName)
			}
		case *ast.ValueSpec:
			if n.Type != nil && isHTTP(n.Type, "Server") {
				problem(n, "a variable of type %s.Server: set its fields in a composite literal, where this test sees them", httpName)
			}
		}
		return true
	})
	return r
}

// checkServer checks the fields of one http.Server literal; comments are
// those of its file.
func checkServer(fset *token.FileSet, lit *ast.CompositeLit, comments []*ast.CommentGroup, problem func(ast.Node, string, ...any)) {
	set := map[string]*ast.KeyValueExpr{}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			problem(e, "an http.Server literal without field names")
			return
		}
		if k, ok := kv.Key.(*ast.Ident); ok {
			set[k.Name] = kv
		}
	}
	for _, name := range serverFields {
		kv, ok := set[name]
		switch {
		case !ok:
			problem(lit, "the http.Server does not set %s", name)
		case !isZero(kv.Value):
		case !zeroWithReason[name]:
			problem(kv, "the http.Server sets %s to 0, which means no limit", name)
		case !explained(fset, kv, comments):
			problem(kv, "the http.Server sets %s to 0 without a comment, on its line or just above, saying why", name)
		}
	}
}

// explained reports whether a comment explains kv: one that ends on the
// line above it, starting in the same column, or one after it on its line.
func explained(fset *token.FileSet, kv *ast.KeyValueExpr, comments []*ast.CommentGroup) bool {
	at, end := fset.Position(kv.Pos()), fset.Position(kv.End())
	for _, g := range comments {
		start, stop := fset.Position(g.Pos()), fset.Position(g.End())
		if stop.Line == at.Line-1 && start.Column == at.Column || start.Line == end.Line && g.Pos() > kv.End() {
			return true
		}
	}
	return false
}

// isZero reports whether e is the constant 0 written out.
func isZero(e ast.Expr) bool {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			break
		}
		e = p.X
	}
	lit, ok := e.(*ast.BasicLit)
	if !ok || (lit.Kind != token.INT && lit.Kind != token.FLOAT) {
		return false
	}
	return strings.Trim(lit.Value, "0._xXoObB") == "" // 0, 00, 0.0, 0x0, 0_0 …
}

// TestExampleServers reads every example (not its tests) and checks that
// each http.Server sets the fields of serverFields, that nothing serves
// with net/http's own server (ListenAndServe, Serve), and that every
// example that makes an MCP HTTP handler has an http.Server to check.
func TestExampleServers(t *testing.T) {
	fset := token.NewFileSet()
	byDir := map[string]*fileReport{}
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		r := checkFile(fset, f)
		dir := byDir[filepath.Dir(path)]
		if dir == nil {
			dir = &fileReport{}
			byDir[filepath.Dir(path)] = dir
		}
		dir.servers += r.servers
		dir.handlers += r.handlers
		dir.problems = append(dir.problems, r.problems...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	servers := 0
	for dir, r := range byDir {
		for _, p := range r.problems {
			t.Error(p)
		}
		if r.handlers > 0 && r.servers == 0 {
			t.Errorf("%s makes an MCP HTTP handler but has no http.Server literal for this test to check", dir)
		}
		servers += r.servers
	}
	// The examples that serve HTTP today: authorized-server, stdio-server
	// (--http) and the conformance server. Fewer means the walk missed
	// them.
	if servers < 3 {
		t.Errorf("checked %d http.Server literals in %d files, want at least 3 (authorized-server, stdio-server, conformance/everything-server): the walk missed examples", servers, files)
	}
}

// TestCheckFile runs checkFile on sources that break each rule, so that
// TestExampleServers can fail.
func TestCheckFile(t *testing.T) {
	const all = `Handler: h, ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 1 << 16`
	tests := []struct {
		name, src string
		servers   int
		want      []string // one substring per problem, in order
	}{
		{"all set", `import "net/http"
			var s = &http.Server{` + all + `}`, 1, nil},
		{"WriteTimeout 0 with a comment above", `import "net/http"
			var s = &http.Server{
				Handler: h, ReadHeaderTimeout: time.Second, ReadTimeout: time.Second,
				// SSE streams: the transport bounds each write.
				WriteTimeout: 0,
				IdleTimeout: time.Minute, MaxHeaderBytes: 1 << 16,
			}`, 1, nil},
		{"WriteTimeout 0 with a comment on its line", `import "net/http"
			var s = &http.Server{
				Handler: h, ReadHeaderTimeout: time.Second, ReadTimeout: time.Second,
				WriteTimeout: 0, // SSE streams
				IdleTimeout: time.Minute, MaxHeaderBytes: 1 << 16,
			}`, 1, nil},
		{"WriteTimeout 0 without a comment", `import "net/http"
			var s = &http.Server{
				Handler: h, ReadHeaderTimeout: time.Second, ReadTimeout: time.Second,
				WriteTimeout: 0,
				IdleTimeout: time.Minute, MaxHeaderBytes: 1 << 16,
			}`, 1, []string{"sets WriteTimeout to 0 without a comment"}},
		{"WriteTimeout 0 under another field's comment", `import "net/http"
			var s = &http.Server{
				Handler: h, ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, // about ReadTimeout
				WriteTimeout: 0,
				IdleTimeout: time.Minute, MaxHeaderBytes: 1 << 16,
			}`, 1, []string{"sets WriteTimeout to 0 without a comment"}},
		{"ReadTimeout 0, even with a comment", `import "net/http"
			var s = &http.Server{
				Handler: h, ReadHeaderTimeout: time.Second,
				ReadTimeout: (0), // why not
				WriteTimeout: time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 1 << 16,
			}`, 1, []string{"sets ReadTimeout to 0, which means no limit"}},
		{"only a header timeout", `import "net/http"
			func main() { hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}; hs.ListenAndServe() }`, 1,
			[]string{"does not set ReadTimeout", "does not set WriteTimeout", "does not set IdleTimeout", "does not set MaxHeaderBytes"}},
		{"ListenAndServe", `import "net/http"
			func main() { log.Fatal(http.ListenAndServe(addr, h)) }`, 0, []string{"http.ListenAndServe serves with no timeouts"}},
		{"Serve and ServeTLS", `import "net/http"
			func main() { http.Serve(ln, h); http.ServeTLS(ln, h, "c", "k") }`, 0, []string{"http.Serve serves", "http.ServeTLS serves"}},
		{"renamed import", `import nethttp "net/http"
			var s = nethttp.Server{Handler: h}
			func main() { nethttp.ListenAndServeTLS(a, c, k, h) }`, 1,
			[]string{"does not set ReadHeaderTimeout", "does not set ReadTimeout", "does not set WriteTimeout", "does not set IdleTimeout", "does not set MaxHeaderBytes", "nethttp.ListenAndServeTLS"}},
		{"new", `import "net/http"
			func main() { hs := new(http.Server); hs.ReadTimeout = time.Second }`, 0, []string{"new(http.Server)"}},
		{"variable", `import "net/http"
			var hs http.Server`, 0, []string{"a variable of type http.Server"}},
		{"dot import", `import . "net/http"
			var s = &Server{}`, 0, []string{"dot-imported"}},
		{"another package's Server", `import "example.com/other/http"
			func main() { http.ListenAndServe(a, h); _ = &http.Server{} }`, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", "package x\n"+tt.src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			r := checkFile(fset, f)
			if r.servers != tt.servers {
				t.Errorf("found %d http.Server literals, want %d", r.servers, tt.servers)
			}
			if len(r.problems) != len(tt.want) {
				t.Fatalf("problems:\n%s\nwant %d: %q", strings.Join(r.problems, "\n"), len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(r.problems[i], w) {
					t.Errorf("problem %d: %q, want it to say %q", i, r.problems[i], w)
				}
			}
		})
	}
}

// TestCheckFileHandlers checks that a package making an MCP HTTP handler
// is noticed, so that one serving it without an http.Server literal fails.
func TestCheckFileHandlers(t *testing.T) {
	tests := []struct {
		name, src string
		handlers  int
	}{
		{"transport packages", `import (
				sh "github.com/mcpgen/mcpgen/runtime/streamhttp"
				"github.com/mcpgen/mcpgen/runtime/ssehttp"
			)
			func main() { h := sh.NewServer(f, sh.ServerOptions{}); o := ssehttp.NewServer(f, ssehttp.ServerOptions{}); _ = sh.NewClient(u, sh.ClientOptions{}) }`, 2},
		{"a StandardServer's methods", `import mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
			func main() { srv := mcp.NewServer(info); h := srv.HTTPHandler(mcp.HTTPOptions{}); o := newServer().SSEHandler(mcp.SSEOptions{}) }`, 2},
		{"HTTPHandler without a revision package", `import "example.com/other"
			func main() { h := other.New().HTTPHandler(nil) }`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", "package x\n"+tt.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if r := checkFile(fset, f); r.handlers != tt.handlers {
				t.Errorf("found %d calls making an MCP HTTP handler, want %d", r.handlers, tt.handlers)
			}
		})
	}
}
