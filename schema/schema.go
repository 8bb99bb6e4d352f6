// Package schema knows the pinned official MCP schema of each supported
// protocol revision and materializes it as schema/<rev>/schema.json in the
// repository, verifying its sha256.
//
// The pins (official URL at a fixed commit of the specification repository,
// and the sha256 of the file) are committed and embedded; the schema files
// themselves are not committed. Materialize copies a file from a local mirror
// directory, keeps an already materialized file, or downloads it from the
// pinned URL, and in every case refuses bytes whose sha256 differs from the pin.
package schema

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// ModulePath is the module path FindRoot looks for in go.mod files.
const ModulePath = "github.com/mcpgen/mcpgen"

// maxSchemaSize bounds the size of a schema file read from anywhere.
const maxSchemaSize = 16 << 20

// downloadTimeout bounds a download made with the default HTTP client.
const downloadTimeout = 2 * time.Minute

//go:embed */pin.json
var pinFS embed.FS

// revisionRE matches a protocol revision such as 2025-06-18.
var revisionRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// sha256RE matches a lower-case hex sha256.
var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Pin says where the official schema of one revision, or of one extension,
// comes from and what its bytes must hash to.
type Pin struct {
	// Revision is the protocol revision, such as "2025-06-18"; "" in the pin
	// of an extension.
	Revision string `json:"revision,omitempty"`
	// Extension is the name of an extension's pin, such as "ext-tasks": its
	// directory under schema/; "" in the pin of a revision.
	Extension string `json:"extension,omitempty"`
	// ID is the extension's identifier, such as
	// "io.modelcontextprotocol/tasks" (extensions only).
	ID string `json:"id,omitempty"`
	// Core is the protocol revision the extension is bound to, such as
	// "2026-07-28" (extensions only).
	Core string `json:"core,omitempty"`
	// URL is the official URL of the schema file at Commit.
	URL string `json:"url"`
	// Commit is the commit of the specification repository URL points into.
	Commit string `json:"commit"`
	// SHA256 is the lower-case hex sha256 of the schema file.
	SHA256 string `json:"sha256"`
}

// Name returns the directory of the pin under schema/: the revision, or the
// extension's name.
func (p Pin) Name() string {
	if p.Extension != "" {
		return p.Extension
	}
	return p.Revision
}

// pins holds every embedded pin by revision or extension name, or the error
// loading them.
var pins, pinsErr = loadPins()

func loadPins() (map[string]Pin, error) {
	paths, err := fs.Glob(pinFS, "*/pin.json")
	if err != nil {
		return nil, fmt.Errorf("schema: listing pins: %w", err)
	}
	m := make(map[string]Pin, len(paths))
	for _, p := range paths {
		data, err := pinFS.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("schema: reading pin %s: %w", p, err)
		}
		var pin Pin
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&pin); err != nil {
			return nil, fmt.Errorf("schema: decoding pin %s: %w", p, err)
		}
		if dir := filepath.Dir(filepath.FromSlash(p)); pin.Name() != dir {
			return nil, fmt.Errorf("schema: pin %s: %q does not match its directory %q", p, pin.Name(), dir)
		}
		if err := checkPin(pin); err != nil {
			return nil, fmt.Errorf("schema: pin %s: %w", p, err)
		}
		m[pin.Name()] = pin
	}
	return m, nil
}

// extensionRE matches the name of an extension's pin, such as ext-tasks.
var extensionRE = regexp.MustCompile(`^ext-[a-z0-9][a-z0-9-]*$`)

// checkPin reports whether pin is usable: a well-formed revision, or an
// extension name with its identifier and core revision; a sha256 and a URL.
func checkPin(pin Pin) error {
	switch {
	case pin.Extension == "" && !revisionRE.MatchString(pin.Revision):
		return fmt.Errorf("revision %q is not of the form YYYY-MM-DD", pin.Revision)
	case pin.Extension != "" && pin.Revision != "":
		return fmt.Errorf("extension %s: a pin names a revision or an extension, not both", pin.Extension)
	case pin.Extension != "" && !extensionRE.MatchString(pin.Extension):
		return fmt.Errorf("extension %q is not of the form ext-<name>", pin.Extension)
	case pin.Extension != "" && pin.ID == "":
		return fmt.Errorf("extension %s: empty id", pin.Extension)
	case pin.Extension != "" && !revisionRE.MatchString(pin.Core):
		return fmt.Errorf("extension %s: core revision %q is not of the form YYYY-MM-DD", pin.Extension, pin.Core)
	case pin.Extension == "" && (pin.ID != "" || pin.Core != ""):
		return fmt.Errorf("revision %s: id and core belong to the pin of an extension", pin.Revision)
	}
	if !sha256RE.MatchString(pin.SHA256) {
		return fmt.Errorf("%s: sha256 %q is not 64 lower-case hex digits", pin.Name(), pin.SHA256)
	}
	if pin.URL == "" {
		return fmt.Errorf("%s: empty url", pin.Name())
	}
	return nil
}

// Revisions returns the pinned revisions, sorted ascending.
func Revisions() []string {
	revs := make([]string, 0, len(pins))
	for r, pin := range pins {
		if pin.Extension == "" {
			revs = append(revs, r)
		}
	}
	slices.Sort(revs)
	return revs
}

// Extensions returns the names of the pinned extension schemas (such as
// "ext-tasks"), sorted.
func Extensions() []string {
	var names []string
	for n, pin := range pins {
		if pin.Extension != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// LookupExtension returns the pin of the extension schema name, such as
// "ext-tasks". The error of an unknown name lists the known ones.
func LookupExtension(name string) (Pin, error) {
	if pinsErr != nil {
		return Pin{}, pinsErr
	}
	pin, ok := pins[name]
	if !ok || pin.Extension == "" {
		return Pin{}, fmt.Errorf("schema: unknown extension %q (pinned: %s)", name, strings.Join(Extensions(), ", "))
	}
	return pin, nil
}

// Lookup returns the pin of revision rev. The error of an unknown revision
// lists the known ones.
func Lookup(rev string) (Pin, error) {
	if pinsErr != nil {
		return Pin{}, pinsErr
	}
	pin, ok := pins[rev]
	if !ok || pin.Extension != "" {
		return Pin{}, fmt.Errorf("schema: unknown revision %q (pinned: %s)", rev, strings.Join(Revisions(), ", "))
	}
	return pin, nil
}

// IsRevision reports whether rev has the form of a protocol revision,
// YYYY-MM-DD, whether or not it is pinned.
func IsRevision(rev string) bool {
	return revisionRE.MatchString(rev)
}

// Path returns the materialized schema file of revision rev (or of the
// extension schema rev, such as "ext-tasks") in the repository rooted at
// root: <root>/schema/<rev>/schema.json.
func Path(root, rev string) string {
	return filepath.Join(root, "schema", rev, "schema.json")
}

// DefaultMirror returns the local mirror beside the checkout rooted at root,
// <root>/../shared/schema, if that directory exists, and "" otherwise.
func DefaultMirror(root string) string {
	dir := filepath.Join(root, "..", "shared", "schema")
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir
	}
	return ""
}

// FindRoot returns the repository root: the nearest directory, dir or one of
// its parents, holding a go.mod whose module is ModulePath. Directories with
// the go.mod of another module (such as a nested benchmark module) are
// skipped.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("schema: finding repository root from %s: %w", dir, err)
	}
	for d := abs; ; {
		mod, err := moduleOf(filepath.Join(d, "go.mod"))
		if err != nil {
			return "", fmt.Errorf("schema: finding repository root from %s: %w", dir, err)
		}
		if mod == ModulePath {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("schema: no go.mod of module %s in %s or any parent directory", ModulePath, abs)
		}
		d = parent
	}
}

// moduleOf returns the module path declared by the go.mod file at path, or ""
// if there is no such file.
func moduleOf(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		return strings.Trim(strings.TrimSpace(rest), `"`+"`"), nil
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return "", nil
}

// Options configures Materialize.
type Options struct {
	// Root is the repository root (see FindRoot); the file is written to
	// Path(Root, rev). Required.
	Root string
	// Mirror, if not empty, is a directory laid out <Mirror>/<rev>/schema.json
	// that is preferred over any other source when it has the file.
	Mirror string
	// Offline forbids downloading.
	Offline bool
	// HTTPClient is used to download; nil means a client with a timeout.
	HTTPClient *http.Client
}

// Source says where Materialize took a schema file from.
type Source string

// The sources of a materialized schema file.
const (
	// FromMirror means the file was copied from Options.Mirror.
	FromMirror Source = "mirror"
	// FromCache means the file was already materialized with the right sha256.
	FromCache Source = "cache"
	// FromDownload means the file was downloaded from the pinned URL.
	FromDownload Source = "download"
)

// Result describes a materialized schema file.
type Result struct {
	// Path is the materialized file, Path(Options.Root, rev).
	Path string
	// Source is where its bytes came from.
	Source Source
}

// Materialize makes Path(opts.Root, rev) hold the pinned schema of revision
// rev and returns that path. See MaterializeResult.
func Materialize(ctx context.Context, rev string, opts Options) (path string, err error) {
	res, err := MaterializeResult(ctx, rev, opts)
	return res.Path, err
}

// MaterializeResult makes Path(opts.Root, rev) hold the pinned schema of
// revision rev, or of the extension schema rev (such as "ext-tasks"), and
// says where its bytes came from. The source is, in order:
// the mirror, if opts.Mirror has the file; the destination itself, if it
// already has the pinned sha256; a download of the pinned URL, unless
// opts.Offline. Bytes whose sha256 differs from the pin are refused with an
// error naming the file and both hashes, and never reach the destination,
// which is replaced atomically.
func MaterializeResult(ctx context.Context, rev string, opts Options) (Result, error) {
	pin, err := Lookup(rev)
	if err != nil && !IsRevision(rev) {
		pin, err = LookupExtension(rev)
	}
	if err != nil {
		return Result{}, err
	}
	return materializeWith(ctx, pin, opts)
}

func materializeWith(ctx context.Context, pin Pin, opts Options) (Result, error) {
	if err := checkPin(pin); err != nil {
		return Result{}, fmt.Errorf("schema: %w", err)
	}
	if opts.Root == "" {
		return Result{}, fmt.Errorf("schema %s: no repository root given", pin.Name())
	}
	dst := Path(opts.Root, pin.Name())
	res := Result{Path: dst}

	if opts.Mirror != "" {
		src := filepath.Join(opts.Mirror, pin.Name(), "schema.json")
		data, err := readFile(src)
		switch {
		case err == nil:
			if err := verify(src, data, pin.SHA256); err != nil {
				return res, err
			}
			if err := install(dst, data); err != nil {
				return res, err
			}
			res.Source = FromMirror
			return res, nil
		case !errors.Is(err, fs.ErrNotExist):
			return res, fmt.Errorf("schema %s: reading mirror: %w", pin.Name(), err)
		}
	}

	data, err := readFile(dst)
	var cacheErr error
	switch {
	case err == nil:
		cacheErr = verify(dst, data, pin.SHA256)
		if cacheErr == nil {
			res.Source = FromCache
			return res, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return res, fmt.Errorf("schema %s: %w", pin.Name(), err)
	}

	if opts.Offline {
		if cacheErr != nil {
			return res, fmt.Errorf("schema %s: offline, not downloading %s: %w", pin.Name(), pin.URL, cacheErr)
		}
		where := "no mirror given"
		if opts.Mirror != "" {
			where = "mirror " + opts.Mirror + " has no " + filepath.Join(pin.Name(), "schema.json")
		}
		return res, fmt.Errorf("schema %s: %s does not exist, %s, and offline: not downloading %s", pin.Name(), dst, where, pin.URL)
	}

	data, err = download(ctx, opts.HTTPClient, pin.URL)
	if err != nil {
		return res, fmt.Errorf("schema %s: %w", pin.Name(), err)
	}
	if err := verify(pin.URL, data, pin.SHA256); err != nil {
		return res, err
	}
	if err := install(dst, data); err != nil {
		return res, err
	}
	res.Source = FromDownload
	return res, nil
}

// readFile reads a regular file of at most maxSchemaSize bytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSchemaSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxSchemaSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxSchemaSize)
	}
	return data, nil
}

// verify returns an error naming name, want and the actual sha256 of data if
// they differ.
func verify(name string, data []byte, want string) error {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return fmt.Errorf("schema: sha256 mismatch for %s: expected %s, got %s", name, want, got)
	}
	return nil
}

// download fetches url with a size limit.
func download(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	if client == nil {
		client = &http.Client{Timeout: downloadTimeout}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("downloading: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("downloading %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSchemaSize+1))
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", url, err)
	}
	if len(data) > maxSchemaSize {
		return nil, fmt.Errorf("downloading %s: larger than %d bytes", url, maxSchemaSize)
	}
	return data, nil
}

// install atomically replaces dst with data, leaving dst alone if it already
// holds exactly data.
func install(dst string, data []byte) (err error) {
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, data) {
		return nil
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".schema.json.tmp-*")
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("schema: writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("schema: writing %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return nil
}
