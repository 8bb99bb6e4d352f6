package skills

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// A Catalog is the extension it serves.
var _ session.Extension = (*Catalog)(nil)

// Register serves the catalog on srv: every file of every skill as a
// resource (SKILL.md as text/markdown, named and described by its
// frontmatter; the others named by their file name, as text when they are
// UTF-8 and as a base64 blob otherwise), and the catalog as the Skills
// extension (srv.AddExtension): skills/list, skills/get and, unless
// Options.NoDirectoryRead, resources/directory/read, with the capability
// declared inline in server/discover. A read checks the file against its
// entry: one that changed since Load is an internal error (-32603), never
// served unverified. Extensions are served to stateless (2026-07-28)
// requests only; the resources are served to every client.
func (c *Catalog) Register(srv *mcp.StandardServer) error {
	if srv == nil {
		return fmt.Errorf("skills: Register: the server is nil")
	}
	for _, u := range c.order {
		f := c.files[u]
		r := mcp.NewResource(f.uri, f.name, f.mimeType)
		size := f.size
		r.Size = &size
		if f.description != "" {
			d := f.description
			r.Description = &d
		}
		if err := srv.AddResource(r, c.readHandler(f)); err != nil {
			return fmt.Errorf("skills: Register: %w", err)
		}
	}
	if err := srv.AddExtension(c); err != nil {
		return fmt.Errorf("skills: Register: %w", err)
	}
	return nil
}

// readHandler returns the resources/read handler of f.
func (c *Catalog) readHandler(f *file) mcp.ResourceHandler {
	return func(ctx context.Context, params *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		data, err := c.Read(f.uri)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: err.Error()}
		}
		mt := f.mimeType
		var item mcp.ReadResourceResultContentsItem
		if utf8.Valid(data) {
			item.Value = &mcp.TextResourceContents{URI: f.uri, MIMEType: &mt, Text: string(data)}
		} else {
			item.Value = &mcp.BlobResourceContents{URI: f.uri, MIMEType: &mt, Blob: base64.StdEncoding.EncodeToString(data)}
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{item}}, nil
	}
}

// ID returns the extension's identifier, ID (session.Extension).
func (c *Catalog) ID() string { return ID }

// Capability returns the capability the server declares:
// {"directoryRead": true}, or {} with Options.NoDirectoryRead
// (session.Extension).
func (c *Catalog) Capability() jsontext.Value {
	b, _ := Capability{DirectoryRead: !c.opts.NoDirectoryRead}.AppendJSON(nil)
	return b
}

// Methods returns the table entries of the extension's methods
// (session.Extension).
func (c *Catalog) Methods() []wire.Method {
	ms := Methods()
	if c.opts.NoDirectoryRead {
		ms = ms[:2]
	}
	return ms
}

// HandleRequest answers skills/list, skills/get and
// resources/directory/read (session.Extension).
func (c *Catalog) HandleRequest(ctx context.Context, s *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	if len(params) == 0 {
		params = jsontext.Value(`{}`)
	}
	switch method {
	case MethodList:
		var p ListParams
		if err := wire.Unmarshal(params, &p); err != nil {
			return nil, invalidParams(method, err)
		}
		return c.List(p.Cursor)
	case MethodGet:
		var p GetParams
		if err := wire.Unmarshal(params, &p); err != nil {
			return nil, invalidParams(method, err)
		}
		return c.Get(p.URI)
	case MethodDirectoryRead:
		if !c.opts.NoDirectoryRead {
			var p DirectoryReadParams
			if err := wire.Unmarshal(params, &p); err != nil {
				return nil, invalidParams(method, err)
			}
			return c.ReadDirectory(p.URI, p.Cursor)
		}
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.MethodNotFound, Message: "method not found: " + method}
}

func invalidParams(method string, err error) error {
	return &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: method + " params: " + err.Error()}
}

// cacheFields returns the caching members of the catalog's results.
func (c *Catalog) cacheFields() (int64, CacheScope) {
	ttl := c.opts.CacheHint.TTL.Milliseconds()
	if ttl < 0 {
		ttl = 0
	}
	if c.opts.CacheHint.Scope == string(CachePublic) {
		return ttl, CachePublic
	}
	return ttl, CachePrivate
}

// List answers skills/list: the page of entries after cursor (nil for the
// first), never splitting an entry. A cursor the catalog did not give is
// -32602.
func (c *Catalog) List(cursor *string) (*ListResult, error) {
	start, end, next, err := page(len(c.skills), c.opts.PageSize, cursor, func(i int) string { return c.skills[i].URI })
	if err != nil {
		return nil, err
	}
	ttl, scope := c.cacheFields()
	r := &ListResult{Skills: make([]Skill, 0, end-start), NextCursor: next, TTLMs: ttl, CacheScope: scope}
	r.Skills = append(r.Skills, c.skills[start:end]...)
	return r, nil
}

// Get answers skills/get: the entry of the skill whose SKILL.md is uri, or
// -32602 when the catalog has none.
func (c *Catalog) Get(uri string) (*GetResult, error) {
	i, ok := c.byURI[uri]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "no skill is served at " + uri}
	}
	ttl, scope := c.cacheFields()
	return &GetResult{Skill: c.skills[i], TTLMs: ttl, CacheScope: scope}, nil
}

// ReadDirectory answers resources/directory/read: the page of the direct
// children of the directory uri after cursor, subdirectories with mimeType
// DirectoryMIMEType. A URI that is not a directory of a skill is -32602.
func (c *Catalog) ReadDirectory(uri string, cursor *string) (*DirectoryReadResult, error) {
	children, ok := c.dirs[strings.TrimSuffix(uri, "/")]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: uri + " is not a directory of a skill"}
	}
	start, end, next, err := page(len(children), c.opts.PageSize, cursor, func(i int) string { return children[i].uri })
	if err != nil {
		return nil, err
	}
	ttl, scope := c.cacheFields()
	r := &DirectoryReadResult{Resources: make([]mcp.Resource, 0, end-start), NextCursor: next, TTLMs: ttl, CacheScope: scope}
	for _, ch := range children[start:end] {
		res := mcp.NewResource(ch.uri, ch.name, ch.mimeType)
		if ch.size >= 0 {
			size := ch.size
			res.Size = &size
		}
		r.Resources = append(r.Resources, res)
	}
	return r, nil
}

// cursorPrefix starts the text of a cursor: the URI of the last item of
// the previous page follows.
const cursorPrefix = "after:"

// page returns the window of at most size of n items, sorted by key, that
// follows cursor, and the cursor of the next page.
func page(n, size int, cursor *string, key func(int) string) (start, end int, next *string, err error) {
	if cursor != nil {
		b, derr := base64.RawURLEncoding.DecodeString(*cursor)
		after, ok := strings.CutPrefix(string(b), cursorPrefix)
		if derr != nil || !ok {
			return 0, 0, nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("invalid cursor %q", *cursor)}
		}
		for start < n && key(start) <= after {
			start++
		}
	}
	end = min(start+size, n)
	if end < n {
		c := base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + key(end-1)))
		next = &c
	}
	return start, end, next, nil
}
