package skills

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// methods records the methods a client sends.
type methods struct {
	mu   sync.Mutex
	sent []string
}

func (m *methods) middleware(next session.HandlerFunc) session.HandlerFunc {
	return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
		if r.Outgoing && !r.Notification {
			m.mu.Lock()
			m.sent = append(m.sent, r.Method)
			m.mu.Unlock()
		}
		return next(ctx, r)
	}
}

func (m *methods) list() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sent)
}

// connect serves srv over a pipe and connects a client to it, recording
// what the client sends.
func connect(t *testing.T, srv *mcp.StandardServer) (*Client, *methods) {
	t.Helper()
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{})
	t.Cleanup(func() { s.Close() })
	rec := &methods{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.Connect(ctx, b, &mcp.ClientOptions{Info: mcp.Implementation{Name: "host", Version: "1"}, Middleware: []session.Middleware{rec.middleware}})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return NewClient(cs), rec
}

// serve returns a StandardServer with the catalog of fsys registered.
func serve(t *testing.T, fsys fstest.MapFS, opts *Options) (*mcp.StandardServer, *Catalog) {
	t.Helper()
	c, err := Load(fsys, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "skills", Version: "1"})
	if err := c.Register(srv); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return srv, c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestClientListGetRead(t *testing.T) {
	srv, cat := serve(t, goodTree(), nil)
	c, rec := connect(t, srv)
	cp, ok := c.Capability()
	if !ok || !cp.DirectoryRead {
		t.Fatalf("Capability = %+v, %v; want directoryRead", cp, ok)
	}
	got, err := c.List(ctx(t))
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if diff := cmp.Diff(cat.Skills(), got); diff != "" {
		t.Errorf("List (-catalog +got):\n%s", diff)
	}
	// No prefetch: listing reads no file.
	if diff := cmp.Diff([]string{"server/discover", "skills/list"}, rec.list()); diff != "" {
		t.Errorf("methods sent (-want +got):\n%s", diff)
	}
	s, err := c.Get(ctx(t), "skill://pdf-processing/SKILL.md")
	if err != nil || s.URI != "skill://pdf-processing/SKILL.md" {
		t.Fatalf("Get = %v, %v", s, err)
	}
	_, err = c.Get(ctx(t), "skill://nope/SKILL.md")
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != jsonrpc.InvalidParams || !strings.Contains(re.Message, "no skill is served at skill://nope/SKILL.md") {
		t.Errorf("Get of an unknown skill: %v, want -32602", err)
	}

	tests := []struct {
		ref, uri, mime, data string
	}{
		{"", "skill://pdf-processing/SKILL.md", "text/markdown", pdfSkill},
		{"references/FORMS.md", "skill://pdf-processing/references/FORMS.md", "text/markdown", "Forms.\n"},
		{"./scripts/../references/FORMS.md#top", "skill://pdf-processing/references/FORMS.md", "text/markdown", "Forms.\n"},
		{"skill://pdf-processing/scripts/fill.py", "skill://pdf-processing/scripts/fill.py", "text/x-python", "print('fill')\n"},
		{"logo.png", "skill://pdf-processing/logo.png", "image/png", "\x89PNG\xff\x00"},
	}
	for _, tt := range tests {
		t.Run("read "+tt.ref, func(t *testing.T) {
			f, err := c.Read(ctx(t), s, tt.ref)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if f.URI != tt.uri || f.MIMEType != tt.mime || string(f.Data) != tt.data || !f.Verified {
				t.Errorf("Read = %+v", f)
			}
			if (tt.ref == "") != (f.Frontmatter != nil) {
				t.Errorf("Frontmatter = %v", f.Frontmatter)
			}
		})
	}
	f, err := c.Read(ctx(t), s, "")
	if err != nil || f.Frontmatter.Description != "Extract, fill, and assemble PDF documents" || !strings.HasPrefix(f.Body, "\n# PDF processing") {
		t.Errorf("Read SKILL.md = %+v, %v", f, err)
	}

	dir, err := c.ReadDirectory(ctx(t), "skill://pdf-processing")
	if err != nil {
		t.Fatalf("ReadDirectory: %v", err)
	}
	var names []string
	for _, r := range dir {
		names = append(names, r.Name+" "+*r.MIMEType)
	}
	want := []string{"SKILL.md text/markdown", "logo.png image/png", "references inode/directory", "scripts inode/directory"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("ReadDirectory (-want +got):\n%s", diff)
	}
	_, err = c.ReadDirectory(ctx(t), "skill://pdf-processing/SKILL.md")
	if !errors.As(err, &re) || re.Code != jsonrpc.InvalidParams {
		t.Errorf("ReadDirectory of a file: %v, want -32602", err)
	}
}

func TestClientPages(t *testing.T) {
	fsys := goodTree()
	fsys["z/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: z\ndescription: last\n---\n")}
	srv, cat := serve(t, fsys, &Options{PageSize: 1})
	c, rec := connect(t, srv)
	got, err := c.List(ctx(t))
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(got) != 3 || !cmp.Equal(cat.Skills(), got) {
		t.Errorf("List = %d skills, want the catalog's 3", len(got))
	}
	dir, err := c.ReadDirectory(ctx(t), "skill://pdf-processing")
	if err != nil || len(dir) != 4 {
		t.Errorf("ReadDirectory = %d children, %v; want 4", len(dir), err)
	}
	want := []string{"server/discover", "skills/list", "skills/list", "skills/list", MethodDirectoryRead, MethodDirectoryRead, MethodDirectoryRead, MethodDirectoryRead}
	if diff := cmp.Diff(want, rec.list()); diff != "" {
		t.Errorf("methods sent (-want +got):\n%s", diff)
	}
	// A cursor the server did not give is -32602.
	_, err = c.cs.Call(ctx(t), MethodList, &ListParams{Cursor: ptr("bogus")}, session.ExtensionMethod(Methods()[0]))
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != jsonrpc.InvalidParams {
		t.Errorf("skills/list with a bad cursor: %v, want -32602", err)
	}
}

func ptr[T any](v T) *T { return &v }

// tampered serves a catalog's methods with the entries edited.
type tampered struct {
	*Catalog
	edit func(*Skill)
}

func (x tampered) HandleRequest(ctx context.Context, s *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	out, err := x.Catalog.HandleRequest(ctx, s, method, params)
	switch r := out.(type) {
	case *ListResult:
		for i := range r.Skills {
			x.edit(&r.Skills[i])
		}
	case *GetResult:
		x.edit(&r.Skill)
	}
	return out, err
}

func TestClientVerification(t *testing.T) {
	evil := goodTree()
	evil["pdf-processing/SKILL.md"] = &fstest.MapFile{Data: []byte(strings.Replace(pdfSkill, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1))}
	good, err := Load(goodTree(), nil)
	if err != nil {
		t.Fatal(err)
	}
	goodEntry := good.Skills()[0]
	tests := []struct {
		name   string
		setup  func(srv *mcp.StandardServer, c *Catalog)
		ref    string
		reason Reason
		want   string
		diffs  []string
		reads  int // resources/read requests sent
	}{
		{
			name: "digest", ref: "references/FORMS.md", reason: ReasonDigest, reads: 1,
			setup: func(srv *mcp.StandardServer, c *Catalog) {
				srv.MustAddResource(mcp.NewResource("skill://pdf-processing/references/FORMS.md", "FORMS.md", "text/markdown"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
					return mcp.ResourceText(p.URI, "text/markdown", "Evil.\n!"), nil
				})
			},
			want: "skills: skill://pdf-processing/references/FORMS.md: digest check failed: digest sha256:",
		},
		{
			name: "size", ref: "", reason: ReasonSize, reads: 1,
			setup: func(srv *mcp.StandardServer, c *Catalog) {
				srv.MustAddResource(mcp.NewResource("skill://pdf-processing/SKILL.md", "pdf-processing", "text/markdown"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
					return mcp.ResourceText(p.URI, "text/markdown", pdfSkill+"extra bytes\n"), nil
				})
			},
			want: "skills: skill://pdf-processing/SKILL.md: size check failed: 224 bytes; the entry lists 212",
		},
		{
			name: "frontmatter", ref: "SKILL.md", reason: ReasonFrontmatter, reads: 1,
			setup: func(srv *mcp.StandardServer, c *Catalog) {
				// The evil SKILL.md is served with its own size and
				// digest, under the good entry's frontmatter.
				if err := srv.AddExtension(tampered{c, func(s *Skill) {
					if s.URI == goodEntry.URI {
						s.Frontmatter = goodEntry.Frontmatter
					}
				}}); err != nil {
					t.Fatal(err)
				}
			},
			want:  `frontmatter check failed: the frontmatter differs from the entry's: description: the entry has "Extract, fill, and assemble PDF documents", SKILL.md has "Exfiltrate credentials"`,
			diffs: []string{`description: the entry has "Extract, fill, and assemble PDF documents", SKILL.md has "Exfiltrate credentials"`},
		},
		{
			name: "unlisted", ref: "secrets.txt", reason: ReasonUnlisted, reads: 0,
			setup: func(srv *mcp.StandardServer, c *Catalog) {},
			want:  "skills: skill://pdf-processing/secrets.txt: unlisted check failed: not a file of the skill skill://pdf-processing/SKILL.md",
		},
		{
			name: "outside the skill", ref: "skill://other/SKILL.md", reason: ReasonUnlisted, reads: 0,
			setup: func(srv *mcp.StandardServer, c *Catalog) {},
			want:  "skill://other/SKILL.md: unlisted check failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := goodTree()
			if tt.reason == ReasonFrontmatter {
				fsys = evil
			}
			srv, cat := serve(t, fsys, nil)
			tt.setup(srv, cat)
			c, rec := connect(t, srv)
			skills, err := c.List(ctx(t))
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			f, err := c.Read(ctx(t), &skills[0], tt.ref)
			var ve *VerificationError
			if !errors.As(err, &ve) {
				t.Fatalf("Read = %+v, %v; want a *VerificationError", f, err)
			}
			if ve.Reason != tt.reason || !strings.Contains(err.Error(), tt.want) || !cmp.Equal(tt.diffs, ve.Differences) {
				t.Errorf("error %v (reason %s, differences %q)\nwant reason %s, %q, differences %q", err, ve.Reason, ve.Differences, tt.reason, tt.want, tt.diffs)
			}
			reads := 0
			for _, m := range rec.list() {
				if m == "resources/read" {
					reads++
				}
			}
			if reads != tt.reads {
				t.Errorf("sent %d resources/read, want %d", reads, tt.reads)
			}
		})
	}
}

func TestClientRefusesInvalidEntries(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Skill)
		want string
	}{
		{"name", func(s *Skill) { s.Frontmatter = Frontmatter{Name: "other", Description: "d"} }, `frontmatter name "other" must equal the last path segment`},
		{"no SKILL.md", func(s *Skill) { s.Resources = s.Resources[1:] }, "resources must include"},
		{"outside", func(s *Skill) { s.Resources[1].URI = "skill://elsewhere/x" }, "is outside the skill directory"},
		{"twice", func(s *Skill) { s.Resources[1].URI = s.Resources[0].URI }, "is listed more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, cat := serve(t, goodTree(), nil)
			if err := srv.AddExtension(tampered{cat, func(s *Skill) {
				if strings.HasPrefix(s.URI, "skill://pdf-processing/") {
					s.Resources = slices.Clone(s.Resources)
					tt.edit(s)
				}
			}}); err != nil {
				t.Fatal(err)
			}
			c, _ := connect(t, srv)
			_, err := c.List(ctx(t))
			var ie *InvalidEntryError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "skills: skills/list returned invalid entries: #0 skill://pdf-processing/SKILL.md: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("List error = %v, want an *InvalidEntryError with %q", err, tt.want)
			}
			_, err = c.Get(ctx(t), "skill://pdf-processing/SKILL.md")
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Get error = %v, want an *InvalidEntryError with %q", err, tt.want)
			}
		})
	}
	t.Run("duplicate uri", func(t *testing.T) {
		srv, cat := serve(t, goodTree(), nil)
		if err := srv.AddExtension(tampered{cat, func(s *Skill) {
			if strings.HasPrefix(s.URI, "skill://tools/") {
				g := cat.Skills()[0]
				*s = g
			}
		}}); err != nil {
			t.Fatal(err)
		}
		c, _ := connect(t, srv)
		_, err := c.List(ctx(t))
		if err == nil || !strings.Contains(err.Error(), "#1 skill://pdf-processing/SKILL.md: the same uri is listed more than once") {
			t.Errorf("List error = %v", err)
		}
	})
}

func TestClientNotSupported(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "plain", Version: "1"})
	srv.MustAddResource(mcp.NewResource("test://r", "r", "text/plain"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return mcp.ResourceText(p.URI, "text/plain", "x"), nil
	})
	c, rec := connect(t, srv)
	if _, ok := c.Capability(); ok {
		t.Error("Capability reports the extension")
	}
	_, err := c.List(ctx(t))
	if !errors.Is(err, ErrNotSupported) {
		t.Errorf("List error = %v, want ErrNotSupported", err)
	}
	s := goodEntryOf(t)
	if _, err := c.Read(ctx(t), &s, ""); !errors.Is(err, ErrNotSupported) {
		t.Errorf("Read error = %v, want ErrNotSupported", err)
	}
	if diff := cmp.Diff([]string{"server/discover"}, rec.list()); diff != "" {
		t.Errorf("methods sent (-want +got):\n%s", diff)
	}
	// Without directoryRead, ReadDirectory is not sent either.
	srv2, _ := serve(t, goodTree(), &Options{NoDirectoryRead: true})
	c2, rec2 := connect(t, srv2)
	if cp, ok := c2.Capability(); !ok || cp.DirectoryRead {
		t.Errorf("Capability = %+v, %v", cp, ok)
	}
	if _, err := c2.ReadDirectory(ctx(t), "skill://pdf-processing"); !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "directoryRead") {
		t.Errorf("ReadDirectory error = %v", err)
	}
	_, err = c2.cs.Call(ctx(t), MethodDirectoryRead, &DirectoryReadParams{URI: "skill://pdf-processing"}, session.ExtensionMethod(Methods()[2]))
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != jsonrpc.MethodNotFound {
		t.Errorf("resources/directory/read sent anyway: %v, want -32601", err)
	}
	if diff := cmp.Diff([]string{"server/discover", MethodDirectoryRead}, rec2.list()); diff != "" {
		t.Errorf("methods sent (-want +got):\n%s", diff)
	}
}

func goodEntryOf(t *testing.T) Skill {
	c, err := Load(goodTree(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.Skills()[0]
}

func TestClientDynamicSkill(t *testing.T) {
	srv, cat := serve(t, goodTree(), nil)
	if err := srv.AddExtension(tampered{cat, func(s *Skill) { s.Resources, s.Dynamic = nil, true }}); err != nil {
		t.Fatal(err)
	}
	c, _ := connect(t, srv)
	s, err := c.Get(ctx(t), "skill://pdf-processing/SKILL.md")
	if err != nil || !s.Dynamic {
		t.Fatalf("Get = %+v, %v", s, err)
	}
	f, err := c.Read(ctx(t), s, "")
	if err != nil || f.Verified || f.Frontmatter == nil {
		t.Errorf("Read SKILL.md = %+v, %v; want unverified with its frontmatter checked", f, err)
	}
	f, err = c.Read(ctx(t), s, "references/FORMS.md")
	if err != nil || f.Verified || string(f.Data) != "Forms.\n" {
		t.Errorf("Read FORMS.md = %+v, %v", f, err)
	}
	var ve *VerificationError
	if _, err := c.Read(ctx(t), s, "skill://elsewhere/x"); !errors.As(err, &ve) || ve.Reason != ReasonUnlisted {
		t.Errorf("Read outside = %v, want unlisted", err)
	}
}

func TestServeOverHTTP(t *testing.T) {
	srv, cat := serve(t, goodTree(), &Options{CacheHint: mcp.CacheHint{TTL: 2 * time.Second, Scope: "public"}})
	hs := httptest.NewServer(srv.HTTPHandler(mcp.HTTPOptions{}))
	t.Cleanup(hs.Close)
	cs, err := mcp.Connect(ctx(t), mcp.HTTP(hs.URL, nil), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	c := NewClient(cs)
	var r ListResult
	raw, err := cs.Call(ctx(t), MethodList, &ListParams{}, session.ExtensionMethod(Methods()[0]))
	if err != nil {
		t.Fatalf("skills/list: %v", err)
	}
	if err := wire.Unmarshal(raw, &r); err != nil || r.TTLMs != 2000 || r.CacheScope != CachePublic || len(r.Skills) != 2 {
		t.Errorf("skills/list = %s (%v)", raw, err)
	}
	skills, err := c.List(ctx(t))
	if err != nil || !cmp.Equal(cat.Skills(), skills) {
		t.Fatalf("List = %v, %v", skills, err)
	}
	for _, ref := range []string{"", "references/FORMS.md", "logo.png"} {
		if _, err := c.Read(ctx(t), &skills[0], ref); err != nil {
			t.Errorf("Read %q: %v", ref, err)
		}
	}
	// The SKILL.md resource is listed with the frontmatter's name and
	// description.
	res, err := cs.ListResources(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Resources, func(r mcp.Resource) bool { return r.URI == "skill://pdf-processing/SKILL.md" })
	if i < 0 || res.Resources[i].Name != "pdf-processing" || *res.Resources[i].Description != "Extract, fill, and assemble PDF documents" || *res.Resources[i].MIMEType != "text/markdown" {
		t.Errorf("resources/list = %+v", res.Resources)
	}
}
