package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// Options configure Load. The zero value is the defaults.
type Options struct {
	// Prefix, when set, is put before the path of every skill: with
	// Prefix "acme", the skill in directory pdf is served at
	// skill://acme/pdf/SKILL.md. It is slash-separated segments of
	// letters, digits and "-._~"; its first segment is the URIs'
	// authority.
	Prefix string
	// MaxFiles and MaxBytes bound each skill: its number of files,
	// SKILL.md included, and their total size. 0 means MaxFiles and
	// MaxBytes, the sizes every host accepts.
	MaxFiles int
	MaxBytes int64
	// PageSize is the number of entries of a page of skills/list and of
	// resources/directory/read; 0 means 100.
	PageSize int
	// CacheHint is the caching hint (ttlMs, cacheScope) of the
	// extension's results; the zero value means mcp.DefaultCacheHint.
	CacheHint mcp.CacheHint
	// NoDirectoryRead leaves resources/directory/read out: the capability
	// is then {} instead of {"directoryRead": true}.
	NoDirectoryRead bool
}

// Problem is one thing wrong with a skill directory.
type Problem struct {
	// Path is the file or directory, relative to the loaded fs.FS, such as
	// "pdf-processing/SKILL.md".
	Path string
	// Msg says which rule it breaks.
	Msg string
}

// LoadError is the error of Load: every problem it found.
type LoadError struct {
	Problems []Problem
}

// Error lists the problems, each as "path: rule".
func (e *LoadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skills: %d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(p.Path + ": " + p.Msg)
	}
	return b.String()
}

// Catalog is a set of skills loaded from an fs.FS: their entries, and
// where each file is, its digest and its size. It holds no file contents:
// a read goes to the fs.FS and is checked against the entry. Serve it with
// Register. A Catalog is safe for concurrent use.
type Catalog struct {
	fsys   fs.FS
	opts   Options
	skills []Skill            // sorted by URI
	byURI  map[string]int     // skill URI → index in skills
	files  map[string]*file   // file URI → file
	dirs   map[string][]child // directory URI → children, sorted by URI
	order  []string           // file URIs, sorted
}

// file is one file of the catalog.
type file struct {
	path     string // in the fs.FS
	uri      string
	digest   string
	size     int64
	mimeType string
	// name and description are the resource's: the frontmatter's for a
	// SKILL.md, the file's base name otherwise.
	name        string
	description string
}

// child is an entry of a directory listing.
type child struct {
	uri      string
	name     string
	mimeType string
	size     int64 // -1 for a directory
}

// namePattern is a skill name: lowercase letters and digits in groups
// joined by single hyphens (the Agent Skills naming rules); 1 to 64
// characters.
var namePattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// prefixSegment is a segment of Options.Prefix.
var prefixSegment = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)

// Dir loads the skills of the directory dir: Load of the directory opened
// with os.OpenRoot, so that no read, at Load or later when a file is
// served, leaves dir, even if a file in it is replaced by a symbolic link
// after Load. The directory stays open while the catalog is in use.
func Dir(dir string, opts *Options) (*Catalog, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	return Load(root.FS(), opts)
}

// Load reads the skills of fsys: every directory with a SKILL.md (at any
// depth, but not the root) is a skill, whose files are every regular file
// below it. Names that begin with "." are skipped, directories included.
// Each skill must follow the rules of the Skills extension
// (https://modelcontextprotocol.io/seps/2640-skills-extension): a SKILL.md
// in UTF-8 that begins with YAML frontmatter (see ParseSkillMD) with a name
// of 1 to 64 lowercase letters, digits and single hyphens, equal to the
// directory's name, a description of 1 to 1024 characters, an optional
// compatibility of 1 to 500 characters, an optional metadata mapping
// strings to strings whose keys do not begin with ReservedMetadataPrefix;
// without Options.Prefix, a first directory whose name can be the URIs'
// authority (skill://<first>/…: no space, colon or bracket); no symbolic
// links or other special files; at most MaxFiles files and
// MaxBytes bytes (see Options). Load hashes every file (SHA-256), reading
// no more of a skill than MaxBytes and a byte, whatever size a file says it
// has (an endless one is over the limit), and fails
// with a *LoadError listing every problem, each naming the file and the
// rule; nothing is served then.
func Load(fsys fs.FS, opts *Options) (*Catalog, error) {
	c := &Catalog{fsys: fsys, byURI: map[string]int{}, files: map[string]*file{}, dirs: map[string][]child{}}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.MaxFiles <= 0 {
		c.opts.MaxFiles = MaxFiles
	}
	if c.opts.MaxBytes <= 0 {
		c.opts.MaxBytes = MaxBytes
	}
	if c.opts.PageSize <= 0 {
		c.opts.PageSize = 100
	}
	if c.opts.CacheHint == (mcp.CacheHint{}) {
		c.opts.CacheHint = mcp.DefaultCacheHint
	}
	var prefix []string
	if c.opts.Prefix != "" {
		prefix = strings.Split(strings.Trim(c.opts.Prefix, "/"), "/")
		for _, s := range prefix {
			if !prefixSegment.MatchString(s) || s == "." || s == ".." {
				return nil, fmt.Errorf("skills: Options.Prefix %q: segment %q must be letters, digits and \"-._~\"", c.opts.Prefix, s)
			}
		}
	}
	l := loader{c: c, prefix: prefix}
	if err := l.walk(); err != nil {
		return nil, err
	}
	l.build()
	if len(l.problems) > 0 {
		return nil, &LoadError{Problems: l.problems}
	}
	return c, nil
}

// node is an entry of the walked tree.
type node struct {
	path string
	kind byte // 'f' regular file, 'd' directory, '?' anything else
}

// loader is the state of one Load.
type loader struct {
	c        *Catalog
	prefix   []string
	tree     []node // in walk order
	problems []Problem
}

func (l *loader) report(p, format string, args ...any) {
	l.problems = append(l.problems, Problem{Path: p, Msg: fmt.Sprintf(format, args...)})
}

// walk lists the tree of the fs.FS.
func (l *loader) walk() error {
	err := fs.WalkDir(l.c.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		k := byte('?')
		switch {
		case d.IsDir():
			k = 'd'
		case d.Type().IsRegular():
			k = 'f'
		}
		l.tree = append(l.tree, node{path: p, kind: k})
		return nil
	})
	if err != nil {
		return fmt.Errorf("skills: listing the skills: %w", err)
	}
	return nil
}

// uriOf returns the URI of the path p of the fs.FS.
func (l *loader) uriOf(p string) string {
	segs := append(slices.Clone(l.prefix), strings.Split(p, "/")...)
	var b strings.Builder
	b.WriteString("skill://")
	for i, s := range segs {
		if i == 0 {
			b.WriteString(encodeComponent(s))
			continue
		}
		b.WriteString("/")
		b.WriteString(encodeSegment(s))
	}
	return b.String()
}

// build makes the entries of the skills.
func (l *loader) build() {
	skillDirs := map[string]bool{}
	for _, n := range l.tree {
		if n.kind != 'd' && path.Base(n.path) == "SKILL.md" {
			d := path.Dir(n.path)
			if d == "." {
				l.report(n.path, "a SKILL.md at the root has no skill path: load its parent directory")
				continue
			}
			skillDirs[d] = true
		}
	}
	dirs := slices.Sorted(func(yield func(string) bool) {
		for d := range skillDirs {
			if !yield(d) {
				return
			}
		}
	})
	listed := map[string]bool{} // directories listed by resources/directory/read
	for _, d := range dirs {
		var inside []node
		for _, n := range l.tree {
			if strings.HasPrefix(n.path, d+"/") {
				inside = append(inside, n)
			}
		}
		if l.skill(d, inside) {
			listed[d] = true
			for _, n := range inside {
				if n.kind == 'd' {
					listed[n.path] = true
				}
			}
		}
	}
	slices.SortFunc(l.c.skills, func(a, b Skill) int { return strings.Compare(a.URI, b.URI) })
	for i, s := range l.c.skills {
		l.c.byURI[s.URI] = i
	}
	for u := range l.c.files {
		l.c.order = append(l.c.order, u)
	}
	slices.Sort(l.c.order)
	for _, n := range l.tree {
		parent := path.Dir(n.path)
		if !listed[parent] {
			continue
		}
		u := l.uriOf(n.path)
		switch n.kind {
		case 'd':
			l.c.dirs[l.uriOf(parent)] = append(l.c.dirs[l.uriOf(parent)], child{uri: u, name: path.Base(n.path), mimeType: DirectoryMIMEType, size: -1})
		case 'f':
			if f := l.c.files[u]; f != nil {
				l.c.dirs[l.uriOf(parent)] = append(l.c.dirs[l.uriOf(parent)], child{uri: u, name: path.Base(n.path), mimeType: f.mimeType, size: f.size})
			}
		}
	}
	for d := range listed {
		u := l.uriOf(d)
		slices.SortFunc(l.c.dirs[u], func(a, b child) int { return strings.Compare(a.uri, b.uri) })
		if l.c.dirs[u] == nil {
			l.c.dirs[u] = []child{}
		}
	}
}

// skill builds the entry of the skill in directory d, whose tree below it
// is inside, and reports whether it is valid.
func (l *loader) skill(d string, inside []node) bool {
	before := len(l.problems)
	manifest := d + "/SKILL.md"
	for _, n := range inside {
		if n.kind == '?' {
			l.report(n.path, "symbolic links and other special files are not served: copy the file into the skill instead")
		}
		for _, s := range strings.Split(n.path, "/") {
			if !utf8.ValidString(s) {
				l.report(n.path, "the name is not valid UTF-8, so it cannot be a URI")
			}
		}
	}
	if len(l.problems) > before {
		return false
	}
	if u := l.uriOf(manifest); len(l.prefix) == 0 {
		// The first directory is the URIs' authority, where an encoded
		// ASCII character is not allowed (RFC 3986 reg-name as Go and
		// hosts parse it).
		if _, err := url.Parse(u); err != nil {
			first, _, _ := strings.Cut(d, "/")
			l.report(d, "the directory %q is the authority of the skill's URIs (%s), which cannot hold its name: rename it (letters, digits and \"-._~\"), or load the directory itself and name the authority with Options.Prefix", first, u)
			return false
		}
	}
	var files []*file
	var total int64
	var fm Frontmatter
	count := 0
	for _, n := range inside {
		if n.kind == 'f' {
			count++
		}
	}
	over := false // the files read so far are over MaxBytes
	for _, n := range inside {
		if n.kind != 'f' || over {
			continue
		}
		// Never more than the skill may still hold, whatever size the
		// file says it is: a huge or endless file is over the limit, not
		// read into memory.
		data, err := readAtMost(l.c.fsys, n.path, l.c.opts.MaxBytes-total)
		if errors.Is(err, errTooBig) {
			over = true
			continue
		}
		if err != nil {
			l.report(n.path, "cannot be read: %v", err)
			continue
		}
		sum := sha256.Sum256(data)
		f := &file{path: n.path, uri: l.uriOf(n.path), digest: "sha256:" + hex.EncodeToString(sum[:]), size: int64(len(data)), mimeType: mimeTypeFor(path.Base(n.path)), name: path.Base(n.path)}
		if n.path == manifest {
			f.mimeType = "text/markdown"
			if fm, _, err = ParseSkillMD(data); err != nil {
				l.report(n.path, "%v", err)
			}
		}
		total += f.size
		files = append(files, f)
	}
	if over {
		l.report(d, "%d files, more than %d bytes: over the limit of %d files and %d bytes per skill, which hosts may refuse (raise Options.MaxFiles or MaxBytes to serve it anyway)", count, l.c.opts.MaxBytes, l.c.opts.MaxFiles, l.c.opts.MaxBytes)
		return false
	}
	if len(l.problems) > before {
		return false
	}
	name := path.Base(d)
	switch {
	case len(fm.Name) == 0 || len(fm.Name) > 64 || !namePattern.MatchString(fm.Name):
		l.report(manifest, "name %q must be 1 to 64 lowercase letters, digits and single hyphens, with no hyphen first or last", fm.Name)
	case fm.Name != name:
		l.report(manifest, "name %q must equal the name of the skill's directory, %q", fm.Name, name)
	}
	if n := utf8.RuneCountInString(fm.Description); n == 0 || n > 1024 {
		l.report(manifest, "description must be 1 to 1024 characters, not %d", n)
	}
	for k, v := range members(fm.JSON) {
		switch k {
		case "compatibility":
			s, ok := stringOf(v)
			if n := utf8.RuneCountInString(s); !ok || n == 0 || n > 500 {
				l.report(manifest, "compatibility must be a string of 1 to 500 characters")
			}
		case "metadata":
			if v.Kind() != '{' {
				l.report(manifest, "metadata must map strings to strings")
				break
			}
			for mk, mv := range members(v) {
				if _, ok := stringOf(mv); !ok {
					l.report(manifest, "metadata %q must be a string", mk)
				}
				if strings.HasPrefix(mk, ReservedMetadataPrefix) {
					l.report(manifest, "metadata key %q: keys that begin with %q are reserved for MCP extensions", mk, ReservedMetadataPrefix)
				}
			}
		}
	}
	if count > l.c.opts.MaxFiles {
		l.report(d, "%d files, %d bytes: over the limit of %d files and %d bytes per skill, which hosts may refuse (raise Options.MaxFiles or MaxBytes to serve it anyway)", count, total, l.c.opts.MaxFiles, l.c.opts.MaxBytes)
	}
	if len(l.problems) > before {
		return false
	}
	s := Skill{URI: l.uriOf(manifest), Frontmatter: fm, Resources: make([]ResourceEntry, 0, len(files))}
	for _, f := range files {
		if f.path == manifest {
			f.name, f.description = fm.Name, fm.Description
		}
		if _, ok := l.c.files[f.uri]; !ok || f.path == manifest {
			l.c.files[f.uri] = f
		}
		s.Resources = append(s.Resources, ResourceEntry{URI: f.uri, Digest: f.digest, Size: f.size})
	}
	slices.SortFunc(s.Resources, func(a, b ResourceEntry) int { return strings.Compare(a.URI, b.URI) })
	l.c.skills = append(l.c.skills, s)
	return true
}

// stringOf returns the string the JSON value v is, if it is one.
func stringOf(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	s, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return "", false
	}
	return string(s), true
}

// Skills returns the catalog's entries, sorted by URI: copies, which the
// caller may change.
func (c *Catalog) Skills() []Skill {
	out := make([]Skill, len(c.skills))
	for i, s := range c.skills {
		s.Resources = slices.Clone(s.Resources)
		s.Frontmatter.JSON = slices.Clone(s.Frontmatter.JSON)
		out[i] = s
	}
	return out
}

// mimeTypes maps file extensions to MIME types, as the TypeScript SDK
// does.
var mimeTypes = map[string]string{
	"md": "text/markdown", "markdown": "text/markdown", "txt": "text/plain",
	"json": "application/json", "yaml": "application/yaml", "yml": "application/yaml",
	"py": "text/x-python", "sh": "application/x-sh", "bash": "application/x-sh",
	"js": "text/javascript", "mjs": "text/javascript", "ts": "text/typescript",
	"html": "text/html", "css": "text/css", "csv": "text/csv", "xml": "application/xml",
	"svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
	"gif": "image/gif", "webp": "image/webp", "pdf": "application/pdf",
}

// mimeTypeFor returns the MIME type of a file name by its extension;
// application/octet-stream when unknown.
func mimeTypeFor(name string) string {
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 {
		return "application/octet-stream"
	}
	if m, ok := mimeTypes[strings.ToLower(name[dot+1:])]; ok {
		return m
	}
	return "application/octet-stream"
}

// keptInSegment are the ASCII characters a path segment keeps as they are;
// every other byte is percent-encoded (as the TypeScript SDK encodes).
const keptInSegment = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_!$&'()*+,.:;=@[]|~-"

// keptInComponent are the characters encodeURIComponent keeps.
const keptInComponent = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()"

// encodeSegment percent-encodes a path segment.
func encodeSegment(s string) string {
	if s == "." || s == ".." {
		return strings.ReplaceAll(s, ".", "%2E")
	}
	return escape(s, keptInSegment)
}

// encodeComponent percent-encodes the authority.
func encodeComponent(s string) string { return escape(s, keptInComponent) }

func escape(s, kept string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf && strings.IndexByte(kept, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// errChanged is wrapped by the error of a read of a file that changed since
// the catalog was loaded.
var errChanged = errors.New("changed since the skills catalog was loaded; load it again")

// Read returns the bytes of the catalog's file uri, read from the fs.FS
// and checked against the size and digest Load found: a file that changed
// since is an error, and so is a URI that is not a file of the catalog.
func (c *Catalog) Read(uri string) ([]byte, error) {
	f := c.files[uri]
	if f == nil {
		return nil, fmt.Errorf("skills: %s is not a file of the catalog", uri)
	}
	data, err := readAtMost(c.fsys, f.path, f.size)
	if errors.Is(err, errTooBig) {
		return nil, fmt.Errorf("skills: %s %w", uri, errChanged)
	}
	if err != nil {
		return nil, fmt.Errorf("skills: %s could not be read: %w", uri, err)
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != f.size || "sha256:"+hex.EncodeToString(sum[:]) != f.digest {
		return nil, fmt.Errorf("skills: %s %w", uri, errChanged)
	}
	return data, nil
}

// errTooBig is the error of readAtMost for a file over its bound.
var errTooBig = errors.New("larger than allowed")

// readAtMost reads the file name of fsys, but no more than max bytes (and
// one more, to know): a longer file is errTooBig. It does not trust the
// size a file says it has, which a pipe or a file of /proc does not know.
func readAtMost(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := max
	if n < math.MaxInt64 {
		n++
	}
	data, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errTooBig
	}
	return data, nil
}
