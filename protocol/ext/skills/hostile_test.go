package skills

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// endlessFS is a MapFS in which the file endless is a stream of zeros that
// never ends and says it is empty (as a file of /proc or a pipe does), and
// which counts the bytes read from it and refuses to give more than
// giveUp of them, so that a reader that does not bound itself fails
// instead of reading forever.
type endlessFS struct {
	files   fstest.MapFS
	endless string
	read    *atomic.Int64
}

const giveUp = 64 << 20

func (e endlessFS) Open(name string) (fs.File, error) {
	if name != e.endless {
		return e.files.Open(name)
	}
	return &endlessFile{name: name, read: e.read}, nil
}

func (e endlessFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(e.files, name)
}

type endlessFile struct {
	name string
	read *atomic.Int64
}

func (f *endlessFile) Stat() (fs.FileInfo, error) { return endlessInfo{f.name}, nil }
func (f *endlessFile) Close() error               { return nil }
func (f *endlessFile) Read(p []byte) (int, error) {
	if f.read.Load() >= giveUp {
		return 0, errors.New("endless file: read too far")
	}
	clear(p)
	f.read.Add(int64(len(p)))
	return len(p), nil
}

type endlessInfo struct{ name string }

func (i endlessInfo) Name() string       { return i.name[strings.LastIndexByte(i.name, '/')+1:] }
func (i endlessInfo) Size() int64        { return 0 }
func (i endlessInfo) Mode() fs.FileMode  { return 0o444 }
func (i endlessInfo) ModTime() time.Time { return time.Time{} }
func (i endlessInfo) IsDir() bool        { return false }
func (i endlessInfo) Sys() any           { return nil }

// TestLoadBoundsReads: Load reads no more of a skill than its limit in
// bytes (and one byte more to know it is over), however large a file is
// or says it is; Catalog.Read reads no more than the size Load found.
func TestLoadBoundsReads(t *testing.T) {
	const limit = 1 << 20
	tests := []struct {
		name    string
		endless string
	}{
		{"a file of the skill", "big/data.bin"},
		{"the SKILL.md", "big/SKILL.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var read atomic.Int64
			fsys := endlessFS{files: fstest.MapFS{
				"big/SKILL.md": {Data: []byte("---\nname: big\ndescription: d\n---\n")},
				"big/data.bin": {Data: []byte("x")},
				"ok/SKILL.md":  {Data: []byte("---\nname: ok\ndescription: d\n---\n")},
			}, endless: tt.endless, read: &read}
			_, err := Load(fsys, &Options{MaxBytes: limit})
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load error = %v, want a *LoadError", err)
			}
			if len(le.Problems) != 1 || le.Problems[0].Path != "big" || !strings.Contains(le.Problems[0].Msg, "over the limit") {
				t.Errorf("problems = %+v, want one: big is over the limit", le.Problems)
			}
			// One buffer beyond the limit at most.
			if n := read.Load(); n > limit+64<<10 {
				t.Errorf("Load read %d bytes of an endless file, limit %d", n, limit)
			}
		})
	}
	t.Run("Catalog.Read", func(t *testing.T) {
		var read atomic.Int64
		mfs := fstest.MapFS{
			"big/SKILL.md": {Data: []byte("---\nname: big\ndescription: d\n---\n")},
			"big/data.bin": {Data: []byte("x")},
		}
		c, err := Load(mfs, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The file becomes endless after Load (replaced by a link to
		// /dev/zero, say).
		c.fsys = endlessFS{files: mfs, endless: "big/data.bin", read: &read}
		if _, err := c.Read("skill://big/data.bin"); err == nil || !strings.Contains(err.Error(), "changed since") {
			t.Errorf("Read error = %v, want the file changed", err)
		}
		if n := read.Load(); n > 64<<10 {
			t.Errorf("Read read %d bytes of a file Load found 1 byte long", n)
		}
	})
}

var _ io.Reader = (*endlessFile)(nil)

// TestClientDynamicReadStaysInside: for a dynamic skill, whose entry lists
// no files, Read refuses a reference outside the skill's directory however
// it is spelled, before any request: dot segments percent-encoded (which
// URL resolution does not remove, and a server may decode), empty
// segments, another authority.
func TestClientDynamicReadStaysInside(t *testing.T) {
	srv, cat := serve(t, goodTree(), nil)
	if err := srv.AddExtension(tampered{cat, func(s *Skill) { s.Resources, s.Dynamic = nil, true }}); err != nil {
		t.Fatal(err)
	}
	c, rec := connect(t, srv)
	s, err := c.Get(ctx(t), "skill://pdf-processing/SKILL.md")
	if err != nil || !s.Dynamic {
		t.Fatalf("Get = %+v, %v", s, err)
	}
	before := len(rec.list())
	for _, ref := range []string{
		"%2E%2E/tools/csv-to-json/SKILL.md",
		"%2e%2e/%2e%2e/etc/passwd",
		"references/%2E%2E/%2E%2E/x",
		"references/%2E/FORMS.md",
		"references//FORMS.md",
		"//other/SKILL.md",
		"skill://pdf-processing/a/%2E%2E/%2E%2E/b",
	} {
		var ve *VerificationError
		if _, err := c.Read(ctx(t), s, ref); !errors.As(err, &ve) || ve.Reason != ReasonUnlisted {
			t.Errorf("Read %q = %v, want unlisted", ref, err)
		}
	}
	if sent := rec.list()[before:]; len(sent) != 0 {
		t.Errorf("the client sent %v for references it refused", sent)
	}
}

// TestClientReadOddNames: files whose names need percent-encoding in a URI
// are served and read back verified, by their URI and by their path
// percent-encoded.
func TestClientReadOddNames(t *testing.T) {
	names := []string{"a b.md", "50%.md", "x?y.md", "h#.md", "ü.md", "[x].md", "a;b.md", "+.md", "%2E%2E", "a\\b", "new\nline", "sub dir/%41.md", "q?/r.md", "colon:x"}
	fsys := fstest.MapFS{"odd/SKILL.md": {Data: []byte("---\nname: odd\ndescription: d\n---\n")}}
	for _, n := range names {
		fsys["odd/"+n] = &fstest.MapFile{Data: []byte(n)}
	}
	srv, _ := serve(t, fsys, &Options{Prefix: "acme.example/v1"})
	c, _ := connect(t, srv)
	list, err := c.List(ctx(t))
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %v, %v", list, err)
	}
	s := list[0]
	if len(s.Resources) != len(names)+1 {
		t.Fatalf("resources = %v, want %d", s.Resources, len(names)+1)
	}
	root := "skill://acme.example/v1/odd/"
	for _, r := range s.Resources {
		rel := strings.TrimPrefix(r.URI, root)
		for _, ref := range []string{r.URI, "./" + rel} {
			f, err := c.Read(ctx(t), &s, ref)
			if err != nil || !f.Verified || f.URI != r.URI {
				t.Errorf("Read %q = %+v, %v", ref, f, err)
			}
		}
	}
}

// TestLoadRefusesBadAuthority: the first directory of a skill's path is
// the authority of its URIs (skill://<first>/…); a directory name that
// cannot be one (a space, a colon, brackets) is a problem of Load, naming
// the skill, not a catalog that Register then refuses and hosts cannot
// parse. Names that can be one are served.
func TestLoadRefusesBadAuthority(t *testing.T) {
	md := &fstest.MapFile{Data: []byte("---\nname: pdf\ndescription: d\n---\n")}
	for _, top := range []string{"My Skills", "a:b", "[x]", "a;b"} {
		t.Run(top, func(t *testing.T) {
			_, err := Load(fstest.MapFS{top + "/pdf/SKILL.md": md}, nil)
			var le *LoadError
			if !errors.As(err, &le) || len(le.Problems) != 1 || le.Problems[0].Path != top+"/pdf" || !strings.Contains(le.Problems[0].Msg, "authority") {
				t.Errorf("Load error = %v, want one problem of %s/pdf naming the authority", err, top)
			}
		})
	}
	for _, top := range []string{"acme", "a_b", "ü", "a%b", "1.2.3.4", "UP", "a/b c"} {
		t.Run(top, func(t *testing.T) {
			c, err := Load(fstest.MapFS{top + "/pdf/SKILL.md": md}, nil)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			for _, s := range c.Skills() {
				if err := s.Validate(); err != nil {
					t.Errorf("entry %s: %v", s.URI, err)
				}
			}
			if err := c.Register(mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})); err != nil {
				t.Errorf("Register: %v", err)
			}
		})
	}
}

// endlessPages serves skills/list and resources/directory/read as a hostile
// server would: every page has a next cursor, the same one (repeat) or a
// new one each time.
type endlessPages struct {
	*Catalog
	repeat bool
	n      *atomic.Int64
}

func (x endlessPages) HandleRequest(ctx context.Context, s *session.Session, method string, _ jsontext.Value) (wire.Appender, error) {
	// The first page, whatever cursor the client sent.
	out, err := x.Catalog.HandleRequest(ctx, s, method, jsontext.Value(`{"uri":"skill://pdf-processing"}`))
	next := "again"
	if !x.repeat {
		next = fmt.Sprint("page-", x.n.Add(1))
	}
	switch r := out.(type) {
	case *ListResult:
		r.Skills, r.NextCursor = nil, &next
	case *DirectoryReadResult:
		r.NextCursor = &next
	}
	return out, err
}

// TestClientEndlessPages: List and ReadDirectory stop on a server whose
// pages never end, repeating a cursor or not.
func TestClientEndlessPages(t *testing.T) {
	for _, repeat := range []bool{true, false} {
		t.Run(fmt.Sprint("repeat=", repeat), func(t *testing.T) {
			_, cat := serve(t, goodTree(), nil)
			srv := mcp.NewServer(mcp.Implementation{Name: "evil", Version: "1"})
			var n atomic.Int64
			if err := srv.AddExtension(endlessPages{cat, repeat, &n}); err != nil {
				t.Fatal(err)
			}
			srv.MustAddResource(mcp.NewResource("skill://x/SKILL.md", "x", "text/markdown"), func(context.Context, *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
				return nil, errors.New("unused")
			})
			c, rec := connect(t, srv)
			want := "repeated the cursor"
			if !repeat {
				want = fmt.Sprintf("more than %d pages", maxPages)
			}
			if _, err := c.List(ctx(t)); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("List error = %v, want %q", err, want)
			}
			if _, err := c.ReadDirectory(ctx(t), "skill://pdf-processing"); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ReadDirectory error = %v, want %q", err, want)
			}
			if sent := len(rec.list()); sent > 2*maxPages+1 {
				t.Errorf("the client sent %d requests", sent)
			}
		})
	}
}
