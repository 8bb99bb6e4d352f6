package skills

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// maxPages bounds the pages List and ReadDirectory follow.
const maxPages = 1000

// ErrNotSupported is wrapped by the error of a Client call to a server
// that does not declare the extension (or, for ReadDirectory,
// directoryRead).
var ErrNotSupported = errors.New("the server does not serve the " + ID + " extension")

// Client is the host side of the Skills extension over a client session: it
// lists a server's skills and reads their files, each checked against the
// skill's entry. It reads nothing before it is asked to: List and Get
// fetch entries only, Read one file.
type Client struct {
	cs *mcp.ClientSession
}

// NewClient returns a Client over cs.
func NewClient(cs *mcp.ClientSession) *Client { return &Client{cs: cs} }

// Capability returns the extension's capability the server declared, and
// whether it declared it (with the resources capability its files need).
func (c *Client) Capability() (Capability, bool) {
	caps := c.cs.PeerCapabilities()
	exts, ok := wire.Member(caps, "extensions")
	if !ok {
		return Capability{}, false
	}
	v, ok := wire.Member(exts, ID)
	if !ok {
		return Capability{}, false
	}
	var cp Capability
	if err := wire.Unmarshal(v, &cp); err != nil {
		return Capability{}, false
	}
	if _, ok := wire.Member(caps, "resources"); !ok {
		return Capability{}, false
	}
	return cp, true
}

func (c *Client) check(method string) error {
	cp, ok := c.Capability()
	if !ok {
		return fmt.Errorf("skills: %s: %w", method, ErrNotSupported)
	}
	if method == MethodDirectoryRead && !cp.DirectoryRead {
		return fmt.Errorf("skills: %s: %w (it does not declare directoryRead)", method, ErrNotSupported)
	}
	return nil
}

// methodTable has the extension's table entries by method name.
var methodTable = func() map[string]wire.Method {
	m := map[string]wire.Method{}
	for _, md := range Methods() {
		m[md.Name] = md
	}
	return m
}()

// call sends method with params and decodes its result into out.
func (c *Client) call(ctx context.Context, method string, params wire.Appender, out wire.Unmarshaler, opts []session.CallOption) error {
	if err := c.check(method); err != nil {
		return err
	}
	raw, err := c.cs.Call(ctx, method, params, append(slices.Clip(opts), session.ExtensionMethod(methodTable[method]))...)
	if err != nil {
		return err
	}
	if err := c.cs.UnmarshalReceived(raw, out); err != nil {
		return fmt.Errorf("skills: %s result: %w", method, err)
	}
	return nil
}

// InvalidEntryError is the error of List and Get for entries that break the
// rules of a skill entry (see Skill.Validate), or whose URI is listed more
// than once.
type InvalidEntryError struct {
	// Method is the method that returned them.
	Method string
	// Problems has one line per invalid entry: its index and URI, and what
	// is wrong.
	Problems []string
}

// Error names the method and lists the problems.
func (e *InvalidEntryError) Error() string {
	return "skills: " + e.Method + " returned invalid entries: " + strings.Join(e.Problems, "; ")
}

// List returns every skill the server lists, following every page. It
// refuses the listing (with an *InvalidEntryError) when an entry breaks the
// rules of an entry (Skill.Validate) or a URI is listed twice. It reads no
// file.
func (c *Client) List(ctx context.Context, opts ...session.CallOption) ([]Skill, error) {
	var all []Skill
	var cursor *string
	seen := map[string]bool{}
	for range maxPages {
		var r ListResult
		if err := c.call(ctx, MethodList, &ListParams{Cursor: cursor}, &r, opts); err != nil {
			return nil, err
		}
		all = append(all, r.Skills...)
		if r.NextCursor == nil {
			var problems []string
			count := map[string]int{}
			for _, s := range all {
				count[entryKey(s.URI)]++
			}
			for i, s := range all {
				if err := s.Validate(); err != nil {
					problems = append(problems, fmt.Sprintf("#%d %s: %v", i, s.URI, err))
				}
				if count[entryKey(s.URI)] > 1 {
					problems = append(problems, fmt.Sprintf("#%d %s: the same uri is listed more than once", i, s.URI))
				}
			}
			if problems != nil {
				return nil, &InvalidEntryError{Method: MethodList, Problems: problems}
			}
			return all, nil
		}
		if seen[*r.NextCursor] {
			return nil, fmt.Errorf("skills: skills/list repeated the cursor %q", *r.NextCursor)
		}
		seen[*r.NextCursor] = true
		cursor = r.NextCursor
	}
	return nil, fmt.Errorf("skills: skills/list has more than %d pages", maxPages)
}

// Get returns the entry of the skill whose SKILL.md is uri, listed or not.
// An invalid entry, or another skill's, is an *InvalidEntryError. It reads
// no file.
func (c *Client) Get(ctx context.Context, uri string, opts ...session.CallOption) (*Skill, error) {
	var r GetResult
	if err := c.call(ctx, MethodGet, &GetParams{URI: uri}, &r, opts); err != nil {
		return nil, err
	}
	if err := r.Skill.Validate(); err != nil {
		return nil, &InvalidEntryError{Method: MethodGet, Problems: []string{r.Skill.URI + ": " + err.Error()}}
	}
	if entryKey(r.Skill.URI) != entryKey(uri) {
		return nil, &InvalidEntryError{Method: MethodGet, Problems: []string{fmt.Sprintf("asked for %s, got %s", uri, r.Skill.URI)}}
	}
	return &r.Skill, nil
}

// ReadDirectory returns the direct children of the directory uri of a skill
// (such as "skill://pdf-processing"), following every page;
// subdirectories have mimeType DirectoryMIMEType. The server must declare
// directoryRead.
func (c *Client) ReadDirectory(ctx context.Context, uri string, opts ...session.CallOption) ([]mcp.Resource, error) {
	var all []mcp.Resource
	var cursor *string
	seen := map[string]bool{}
	for range maxPages {
		var r DirectoryReadResult
		if err := c.call(ctx, MethodDirectoryRead, &DirectoryReadParams{URI: uri, Cursor: cursor}, &r, opts); err != nil {
			return nil, err
		}
		all = append(all, r.Resources...)
		if r.NextCursor == nil {
			return all, nil
		}
		if seen[*r.NextCursor] {
			return nil, fmt.Errorf("skills: %s repeated the cursor %q", MethodDirectoryRead, *r.NextCursor)
		}
		seen[*r.NextCursor] = true
		cursor = r.NextCursor
	}
	return nil, fmt.Errorf("skills: %s has more than %d pages", MethodDirectoryRead, maxPages)
}

// Reason names the check a file failed.
type Reason string

// The checks of Read.
const (
	// ReasonUnlisted: the file is not one of the skill's resources.
	ReasonUnlisted Reason = "unlisted"
	// ReasonSize: its size is not the entry's.
	ReasonSize Reason = "size"
	// ReasonDigest: its SHA-256 digest is not the entry's.
	ReasonDigest Reason = "digest"
	// ReasonFrontmatter: the frontmatter of the skill's SKILL.md cannot be
	// read, or differs from the entry's.
	ReasonFrontmatter Reason = "frontmatter"
)

// VerificationError is the error of Read for a file that failed a check
// against the skill's entry. A host must not use the file, nor, when it is
// the SKILL.md, load the skill.
type VerificationError struct {
	// Reason is the check that failed.
	Reason Reason
	// URI is the file's.
	URI string
	// Differences has one line per field that differs, for
	// ReasonFrontmatter.
	Differences []string
	msg         string
}

// Error names the file, the check that failed and why.
func (e *VerificationError) Error() string {
	return "skills: " + e.URI + ": " + string(e.Reason) + " check failed: " + e.msg
}

// File is a skill's file, read and verified.
type File struct {
	// URI is the file's URI, as the entry lists it.
	URI string
	// MIMEType is the mimeType the server gave, "" for none.
	MIMEType string
	// Data are the file's bytes.
	Data []byte
	// Verified reports that the size and digest were checked: false for
	// the files of a dynamic skill, whose entry lists none.
	Verified bool
	// Frontmatter and Body are set for the skill's SKILL.md: its
	// frontmatter, equal to the entry's, and its Markdown body.
	Frontmatter *Frontmatter
	Body        string
}

// Read reads one file of skill and verifies it. ref is a URI reference
// resolved against the skill's directory: the file's path within it
// ("references/FORMS.md"), percent-encoded as in a URI where a name holds
// "%", "?" or "#" ("50%25.md"), or the file's URI; "" is the skill's
// SKILL.md. The file must be listed in the entry (checked
// before any request), and is read by the entry's URI; its size and its
// digest must be the entry's; for the SKILL.md, its frontmatter must equal
// the entry's, field by field (objects in any member order, numbers by
// value). A file that fails a check is a *VerificationError saying which.
// For a dynamic skill, whose entry lists no files, only the frontmatter of
// the SKILL.md is checked (File.Verified is false).
func (c *Client) Read(ctx context.Context, skill *Skill, ref string, opts ...session.CallOption) (*File, error) {
	if err := skill.Validate(); err != nil {
		return nil, fmt.Errorf("skills: Read: %s is not a valid skill entry: %w", skill.URI, err)
	}
	if err := c.check("resources/read"); err != nil {
		return nil, err
	}
	root, _ := skillRoot(skill.URI)
	base, err := url.Parse(root + "/")
	if err != nil {
		return nil, fmt.Errorf("skills: Read: %s: %w", skill.URI, err)
	}
	if ref == "" {
		ref = "SKILL.md"
	}
	r, err := url.Parse(ref)
	if err != nil {
		return nil, &VerificationError{Reason: ReasonUnlisted, URI: ref, msg: "not a URI reference: " + err.Error()}
	}
	target := base.ResolveReference(r)
	target.Fragment, target.RawFragment = "", ""
	key := fileKey(target)
	manifest := key == entryKey(skill.URI)
	uri := target.String()
	var listed *ResourceEntry
	if !skill.Dynamic {
		for i := range skill.Resources {
			if entryKey(skill.Resources[i].URI) == key {
				listed = &skill.Resources[i]
				break
			}
		}
		if listed == nil {
			return nil, &VerificationError{Reason: ReasonUnlisted, URI: uri, msg: "not a file of the skill " + skill.URI}
		}
		uri = listed.URI
	} else if !manifest && !within(entryKey(root), target) {
		return nil, &VerificationError{Reason: ReasonUnlisted, URI: uri, msg: "not within the skill's directory " + root}
	}
	res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: uri}, opts...)
	if err != nil {
		return nil, err
	}
	f, err := contentOf(res, uri, key)
	if err != nil {
		return nil, err
	}
	if listed != nil {
		if int64(len(f.Data)) != listed.Size {
			return nil, &VerificationError{Reason: ReasonSize, URI: uri, msg: fmt.Sprintf("%d bytes; the entry lists %d", len(f.Data), listed.Size)}
		}
		sum := sha256.Sum256(f.Data)
		if d := "sha256:" + hex.EncodeToString(sum[:]); d != listed.Digest {
			return nil, &VerificationError{Reason: ReasonDigest, URI: uri, msg: "digest " + d + "; the entry lists " + listed.Digest}
		}
		f.Verified = true
	}
	if !manifest {
		return f, nil
	}
	fm, body, err := ParseSkillMD(f.Data)
	if err != nil {
		return nil, &VerificationError{Reason: ReasonFrontmatter, URI: uri, msg: err.Error()}
	}
	want, err := skill.Frontmatter.Object()
	if err != nil {
		return nil, &VerificationError{Reason: ReasonFrontmatter, URI: uri, msg: "the entry's frontmatter: " + err.Error()}
	}
	if diffs := jsonDifferences(want, fm.JSON, ""); len(diffs) > 0 {
		return nil, &VerificationError{Reason: ReasonFrontmatter, URI: uri, Differences: diffs, msg: "the frontmatter differs from the entry's: " + strings.Join(diffs, "; ")}
	}
	f.Frontmatter, f.Body = &fm, body
	return f, nil
}

// contentOf returns the item of res for the file whose key is key.
func contentOf(res *mcp.ReadResourceResult, uri, key string) (*File, error) {
	for _, it := range res.Contents {
		switch v := it.Value.(type) {
		case *mcp.TextResourceContents:
			if keyOf(v.URI) == key {
				return &File{URI: uri, MIMEType: deref(v.MIMEType), Data: []byte(v.Text)}, nil
			}
		case *mcp.BlobResourceContents:
			if keyOf(v.URI) == key {
				data, err := base64.StdEncoding.DecodeString(v.Blob)
				if err != nil {
					return nil, fmt.Errorf("skills: resources/read returned an invalid base64 blob for %s: %w", uri, err)
				}
				return &File{URI: uri, MIMEType: deref(v.MIMEType), Data: data}, nil
			}
		}
	}
	return nil, fmt.Errorf("skills: resources/read returned no contents for %s", uri)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// keyOf returns the comparison key of a URI (see fileKey), or the URI
// itself when it does not parse.
func keyOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	u.Fragment, u.RawFragment = "", ""
	return fileKey(u)
}

// entryKey is keyOf for URIs of entries.
func entryKey(uri string) string { return keyOf(uri) }

// fileKey returns the one spelling all ways of writing u share: its scheme
// in lowercase, its authority, and its path with every percent-encoding
// decoded and re-encoded the same way.
func fileKey(u *url.URL) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(u.Scheme))
	b.WriteString("://")
	b.WriteString(u.Host)
	for i, s := range strings.Split(u.Path, "/") {
		if i > 0 {
			b.WriteString("/")
		}
		b.WriteString(encodeSegment(s))
	}
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + u.RawQuery)
	}
	return b.String()
}

// skillRoot returns the skill's directory URI (without the trailing
// slash) from the URI of its SKILL.md, and whether uri is one: it ends in
// "/SKILL.md" inside a named directory.
func skillRoot(uri string) (string, bool) {
	root, ok := strings.CutSuffix(uri, "/SKILL.md")
	if !ok || strings.HasSuffix(root, "/") || !strings.Contains(root, "://") || strings.HasSuffix(root, ":/") {
		return "", false
	}
	return root, true
}

// lastSegment returns the decoded last segment of a directory URI (the
// authority when it has no path).
func lastSegment(root string) string {
	u, err := url.Parse(root)
	if err != nil {
		return ""
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		return u.Host
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}

// Validate checks the rules a skill entry follows beyond its shape: uri is
// a SKILL.md in a named directory whose name is frontmatter.name (1 to 64
// lowercase letters, digits and single hyphens); the description has 1 to
// 1024 characters; a compatibility is a string of 1 to 500, a metadata maps
// strings to strings; and, unless Dynamic, resources lists the SKILL.md
// and files within the skill's directory, each once, by URIs without query
// or fragment.
func (s *Skill) Validate() error {
	root, ok := skillRoot(s.URI)
	if _, err := url.Parse(s.URI); err != nil || !ok {
		return fmt.Errorf("uri %q must be a URI ending in /SKILL.md inside a named directory", s.URI)
	}
	var problems []string
	name := s.Frontmatter.Name
	switch {
	case len(name) == 0 || len(name) > 64 || !namePattern.MatchString(name):
		problems = append(problems, fmt.Sprintf("frontmatter name %q must be 1 to 64 lowercase letters, digits and single hyphens", name))
	case lastSegment(root) != name:
		problems = append(problems, fmt.Sprintf("frontmatter name %q must equal the last path segment %q", name, lastSegment(root)))
	}
	if n := utf8.RuneCountInString(s.Frontmatter.Description); n == 0 || n > 1024 {
		problems = append(problems, "frontmatter description must be 1 to 1024 characters")
	}
	if len(s.Frontmatter.JSON) > 0 {
		for k, v := range members(s.Frontmatter.JSON) {
			switch k {
			case "compatibility":
				if c, ok := stringOf(v); !ok || c == "" || utf8.RuneCountInString(c) > 500 {
					problems = append(problems, "frontmatter compatibility must be a string of 1 to 500 characters")
				}
			case "metadata":
				okMap := v.Kind() == '{'
				if okMap {
					for _, mv := range members(v) {
						if _, ok := stringOf(mv); !ok {
							okMap = false
						}
					}
				}
				if !okMap {
					problems = append(problems, "frontmatter metadata must map strings to strings")
				}
			}
		}
	}
	if !s.Dynamic {
		self := entryKey(s.URI)
		seen := map[string]bool{}
		hasSelf := false
		for _, r := range s.Resources {
			u, err := url.Parse(r.URI)
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("resource %q is not a valid URI", r.URI))
				continue
			case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(r.URI, "?#"):
				problems = append(problems, fmt.Sprintf("resource %q must not have a query or fragment", r.URI))
				continue
			}
			key := fileKey(u)
			if seen[key] {
				problems = append(problems, fmt.Sprintf("resource %q is listed more than once", r.URI))
			}
			seen[key] = true
			switch {
			case key == self:
				hasSelf = true
			case !within(entryKey(root), u):
				problems = append(problems, fmt.Sprintf("resource %q is outside the skill directory %s", r.URI, root))
			}
		}
		if !hasSelf {
			problems = append(problems, "resources must include "+s.URI)
		}
	}
	if problems != nil {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// within reports whether u is strictly inside the directory whose key is
// root, with no empty, "." or ".." segment below it.
func within(root string, u *url.URL) bool {
	key := fileKey(u)
	rest, ok := strings.CutPrefix(key, root+"/")
	if !ok {
		return false
	}
	for _, seg := range strings.Split(rest, "/") {
		d, err := url.PathUnescape(seg)
		if err != nil || d == "" || d == "." || d == ".." || strings.ContainsAny(d, "/\x00") {
			return false
		}
	}
	return true
}
