package protocol_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	linked "github.com/mcpgen/mcpgen/protocol/revisions"
	registry "github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/schema"
)

// sameServer is a server written once: it must compile against the package
// of every revision mcpgen ships (IMPORT is replaced by each), with its one
// import of mcpgen, so that moving a server from one revision to another is
// a change of its import path.
const sameServer = `package main

import (
	"context"
	"log"
	"net/http"
	"os"

	mcp "IMPORT"
)

type Args struct {
	City string ` + "`json:\"city\" description:\"City name\"`" + `
	Days int    ` + "`json:\"days\" minimum:\"1\" maximum:\"7\" default:\"3\"`" + `
}

type Trip struct {
	City string ` + "`json:\"city\"`" + `
}

func audit(next mcp.MessageHandler) mcp.MessageHandler {
	return func(ctx context.Context, m *mcp.Message) (mcp.RawJSON, error) {
		log.Printf("%s %s", m.Method, m.Params)
		return next(ctx, m)
	}
}

func main() {
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"},
		mcp.WithInstructions("Ask for a forecast."),
		mcp.WithMiddleware(audit),
		mcp.WithReceiveHook(func(ctx context.Context, m *mcp.Message) error { return nil }),
		mcp.WithRevisions(mcp.Revision),
		mcp.WithCapabilities(mcp.ServerCapabilities{}))
	mcp.MustAddTypedTool(srv, mcp.NewTool("forecast", "Weather forecast"), func(ctx context.Context, a Args) (*mcp.CallToolResult, error) {
		if a.City == "" {
			return nil, mcp.InvalidParams("no city")
		}
		return mcp.TextResult("sunny in " + a.City), nil
	})
	srv.MustAddTool(mcp.NewTool("ping", ""), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("pong"), nil
	})
	mcp.MustAddTypedPrompt(srv, mcp.NewPrompt("trip", "Plan a trip"), func(ctx context.Context, t Trip) (*mcp.GetPromptResult, error) {
		return mcp.PromptText(mcp.RoleUser, "Plan a trip to "+t.City+"."), nil
	})
	srv.MustAddResource(mcp.NewResource("notes://today", "today", "text/plain"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return mcp.ResourceText(p.URI, "text/plain", "sunny"), nil
	})
	srv.MustAddResourceTemplate(mcp.NewResourceTemplate("weather://cities/{name}", "city", "text/plain"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		if mcp.TemplateVars(ctx).Get("name") == "" {
			return nil, mcp.ResourceNotFound(p.URI)
		}
		return mcp.ResourceText(p.URI, "text/plain", "sunny"), nil
	})
	if err := srv.AddPrompt(mcp.NewPrompt("hello", ""), func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return mcp.PromptText(mcp.RoleUser, "hello"), nil
	}); err != nil {
		log.Fatal(err)
	}
	srv.RemoveTool("gone")
	srv.RemovePrompt("gone")
	srv.RemoveResource("notes://gone")
	srv.RemoveResourceTemplate("notes://{gone}")
	http.Handle("/mcp", srv.HTTPHandler(mcp.HTTPOptions{Gate: mcp.RequireHeader("X-API-Key", os.Getenv("API_KEY"))}))
	http.Handle("/sse", srv.SSEHandler(mcp.SSEOptions{}))
	if len(os.Args) > 1 {
		log.Fatal(http.ListenAndServe(os.Args[1], nil))
	}
	log.Fatal(srv.ServeStdio(context.Background()))
}
`

// TestSameServerEveryRevision builds sameServer against the package of
// each revision mcpgen ships.
func TestSameServerEveryRevision(t *testing.T) {
	root, err := schema.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range schema.Revisions() {
		t.Run(rev, func(t *testing.T) {
			pkg := schema.ModulePath + "/protocol/mcp" + strings.ReplaceAll(rev, "-", "")
			dir := t.TempDir()
			src := filepath.Join(dir, "main.go")
			if err := os.WriteFile(src, []byte(strings.Replace(sameServer, "IMPORT", pkg, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			// The program is laid over a directory of the module that does
			// not exist, so that it builds with the module's packages.
			virtual := filepath.Join(root, "protocol", "internal", "sameserver", "main.go")
			overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{virtual: src}})
			ov := filepath.Join(dir, "overlay.json")
			if err := os.WriteFile(ov, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "build", "-overlay", ov, "-o", os.DevNull, "./protocol/internal/sameserver")
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the same server does not build against %s: %v\n%s", pkg, err, out)
			}
		})
	}
}

// TestNewestLinksEveryRevision checks that the package of the newest
// revision links the package of every other revision mcpgen ships, so
// that a server on it serves their clients with no blank import.
func TestNewestLinksEveryRevision(t *testing.T) {
	revs := schema.Revisions()
	newest := revs[len(revs)-1]
	pkg := schema.ModulePath + "/protocol/mcp" + strings.ReplaceAll(newest, "-", "")
	cmd := exec.Command("go", "list", "-deps", pkg)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	for _, rev := range revs[:len(revs)-1] {
		if p := schema.ModulePath + "/protocol/mcp" + strings.ReplaceAll(rev, "-", ""); !deps[p] {
			t.Errorf("%s does not link %s", pkg, p)
		}
	}
}

// TestShippedRevisions checks that runtime/revision's list of the
// revisions mcpgen ships, which the errors about an unknown revision cite
// without importing the packages, is the list of the packages.
func TestShippedRevisions(t *testing.T) {
	if got, want := registry.Shipped(), schema.Revisions(); !slices.Equal(got, want) {
		t.Errorf("registry.Shipped() = %v, the pinned revisions are %v", got, want)
	}
	if got := registry.Shipped(); !slices.Equal(got, linked.Names) {
		t.Errorf("registry.Shipped() = %v, protocol/revisions links %v", got, linked.Names)
	}
	for _, r := range schema.Revisions() {
		pkg, ok := registry.ShippedPackage(r)
		if want := schema.ModulePath + "/protocol/mcp" + strings.ReplaceAll(r, "-", ""); !ok || pkg != want {
			t.Errorf("registry.ShippedPackage(%q) = %q, %v, want %q", r, pkg, ok, want)
		}
	}
	if pkg, ok := registry.ShippedPackage("2025-13-01"); ok {
		t.Errorf("registry.ShippedPackage(2025-13-01) = %q, want none", pkg)
	}
}
