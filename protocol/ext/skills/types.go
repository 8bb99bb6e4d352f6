package skills

import (
	"bytes"
	"regexp"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// ID is the identifier of the Skills extension, the key of its capability
// under capabilities.extensions.
const ID = "io.modelcontextprotocol/skills"

// The methods of the extension.
const (
	// MethodList enumerates the skills a server serves (ListParams, ListResult).
	MethodList = "skills/list"
	// MethodGet returns one skill's entry by the URI of its SKILL.md
	// (GetParams, GetResult).
	MethodGet = "skills/get"
	// MethodDirectoryRead lists the direct children of a directory of a skill
	// (DirectoryReadParams, DirectoryReadResult); a server offers it when its
	// capability has directoryRead.
	MethodDirectoryRead = "resources/directory/read"
)

// DirectoryMIMEType is the mimeType of a directory resource, as
// resources/directory/read lists subdirectories.
const DirectoryMIMEType = "inode/directory"

// The per-skill limits: hosts accept skills up to these, and servers should
// not publish larger ones. Load refuses a skill over them unless
// Options.MaxFiles or Options.MaxBytes raise them.
const (
	// MaxFiles is the number of files of a skill, SKILL.md included.
	MaxFiles = 512
	// MaxBytes is the total size of a skill's files, in bytes (16 MiB).
	MaxBytes = 16 << 20
)

// ReservedMetadataPrefix starts the keys of a frontmatter's metadata that
// are reserved for MCP extensions; this extension defines none, so Load
// refuses them.
const ReservedMetadataPrefix = "io.modelcontextprotocol/"

// digestPattern is the form of a digest: "sha256:" and 64 lowercase hex
// digits.
var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Capability is the extension's settings object, declared by a server under
// capabilities.extensions[ID]: {} or {"directoryRead": true}.
type Capability struct {
	// DirectoryRead reports that the server serves MethodDirectoryRead.
	DirectoryRead bool
}

// AppendJSON appends the capability object to b.
func (c Capability) AppendJSON(b []byte) ([]byte, error) {
	if c.DirectoryRead {
		return append(b, `{"directoryRead":true}`...), nil
	}
	return append(b, `{}`...), nil
}

// UnmarshalJSONFrom decodes the capability object strictly; unknown members
// (settings of a later version) are skipped.
func (c *Capability) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginObject(d); err != nil {
		return err
	}
	*c = Capability{}
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch string(name) {
		case "directoryRead":
			v, err := wire.ReadBool(d)
			if err != nil {
				return err
			}
			c.DirectoryRead = v
		default:
			if err := wire.Skip(d); err != nil {
				return err
			}
		}
	}
}

// Frontmatter is a skill's SKILL.md YAML frontmatter rendered as a JSON
// object: name and description, which every skill has, and every other
// field as the YAML says it (see ParseSkillMD for the typing).
type Frontmatter struct {
	// Name is the skill's name, JSON's "name".
	Name string
	// Description says what the skill does and when to use it, JSON's
	// "description".
	Description string
	// JSON is the whole object, name and description included, its
	// members in the order of the YAML. Empty means {"name": Name,
	// "description": Description}; when set, its name and description
	// must equal Name and Description.
	JSON jsontext.Value
}

// Object returns the frontmatter as a JSON object: JSON, or one made of
// Name and Description when JSON is empty.
func (f *Frontmatter) Object() (jsontext.Value, error) {
	if len(f.JSON) > 0 {
		return f.JSON, nil
	}
	e := wire.NewEncoder(nil)
	e.BeginObject()
	e.Name(`"name":`)
	e.String(f.Name)
	e.Name(`"description":`)
	e.String(f.Description)
	e.EndObject()
	return e.Bytes()
}

func (f *Frontmatter) encode(e *wire.Encoder) {
	if len(f.JSON) == 0 {
		obj, err := f.Object()
		if err != nil {
			e.Fail(err.Error())
			return
		}
		e.Raw(obj)
		return
	}
	if f.JSON.Kind() != '{' || !f.JSON.IsValid() {
		e.Fail("frontmatter JSON is not a JSON object")
		return
	}
	var g Frontmatter
	if err := wire.Unmarshal(f.JSON, &g); err != nil {
		e.Fail("frontmatter JSON: " + err.Error())
		return
	}
	if g.Name != f.Name || g.Description != f.Description {
		e.Fail("frontmatter JSON has name " + strconv.Quote(g.Name) + " and description " + strconv.Quote(g.Description) + "; Name and Description differ")
		return
	}
	e.Raw(f.JSON)
}

// AppendJSON appends the frontmatter object to b.
func (f *Frontmatter) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	f.encode(&e)
	return e.Bytes()
}

// UnmarshalJSONFrom decodes a frontmatter object: it must have the string
// members name and description; the others are kept in JSON as they are.
func (f *Frontmatter) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	raw, err := wire.ReadObjectValue(d)
	if err != nil {
		return err
	}
	*f = Frontmatter{JSON: raw}
	var seen uint8
	for name, v := range members(raw) {
		switch name {
		case "name", "description":
			if v.Kind() != '"' {
				return &wire.Error{Pointer: string(d.StackPointer()) + "/" + name, Msg: "want string, got " + wire.KindName(v.Kind())}
			}
			s, err := jsontext.AppendUnquote(nil, v)
			if err != nil {
				return &wire.Error{Pointer: string(d.StackPointer()) + "/" + name, Msg: err.Error()}
			}
			if name == "name" {
				f.Name, seen = string(s), seen|1
			} else {
				f.Description, seen = string(s), seen|2
			}
		}
	}
	if seen&1 == 0 {
		return wire.Missing(d, "name")
	}
	if seen&2 == 0 {
		return wire.Missing(d, "description")
	}
	return nil
}

// members yields the members of the valid JSON object obj.
func members(obj jsontext.Value) func(yield func(string, jsontext.Value) bool) {
	return func(yield func(string, jsontext.Value) bool) {
		d := jsontext.NewDecoder(bytes.NewReader(obj))
		if _, err := d.ReadToken(); err != nil {
			return
		}
		for d.PeekKind() == '"' {
			tok, err := d.ReadToken()
			if err != nil {
				return
			}
			name := tok.String()
			v, err := d.ReadValue()
			if err != nil {
				return
			}
			if !yield(name, v.Clone()) {
				return
			}
		}
	}
}

// ResourceEntry is one file of a skill in its entry: its URI, the SHA-256
// digest of its bytes and its size.
type ResourceEntry struct {
	// URI is the file's URI: the skill's SKILL.md, or a URI within the
	// skill's directory.
	URI string
	// Digest is "sha256:" followed by the 64 lowercase hexadecimal digits
	// of the SHA-256 of the file's raw bytes.
	Digest string
	// Size is the file's size in bytes.
	Size int64
}

func (r *ResourceEntry) encode(e *wire.Encoder) {
	e.BeginObject()
	e.Name(`"digest":`)
	if !digestPattern.MatchString(r.Digest) {
		e.Fail("digest " + strconv.Quote(r.Digest) + ` is not "sha256:" and 64 lowercase hexadecimal digits`)
	}
	e.String(r.Digest)
	e.Name(`"size":`)
	e.Check("size", wire.Minimum(r.Size, 0))
	e.Int(r.Size)
	e.Name(`"uri":`)
	e.String(r.URI)
	e.EndObject()
}

// AppendJSON appends the JSON encoding of r to b.
func (r *ResourceEntry) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	r.encode(&e)
	return e.Bytes()
}

// UnmarshalJSONFrom decodes r strictly: uri, digest (in its form) and size
// (a non-negative integer) are required; unknown members are skipped.
func (r *ResourceEntry) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginObject(d); err != nil {
		return err
	}
	*r = ResourceEntry{}
	var seen uint8
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(name) {
		case "uri":
			if r.URI, err = wire.ReadString(d); err != nil {
				return err
			}
			seen |= 1
		case "digest":
			if r.Digest, err = wire.ReadString(d); err != nil {
				return err
			}
			if !digestPattern.MatchString(r.Digest) {
				return wire.Check(d, `want "sha256:" and 64 lowercase hexadecimal digits`)
			}
			seen |= 2
		case "size":
			if r.Size, err = wire.ReadInt(d); err != nil {
				return err
			}
			if err := wire.Check(d, wire.Minimum(r.Size, 0)); err != nil {
				return err
			}
			seen |= 4
		default:
			if err := wire.Skip(d); err != nil {
				return err
			}
		}
	}
	for i, n := range []string{"uri", "digest", "size"} {
		if seen&(1<<i) == 0 {
			return wire.Missing(d, n)
		}
	}
	return nil
}

// Skill is a skill entry, as skills/list and skills/get return it.
type Skill struct {
	// URI is the URI of the skill's SKILL.md, such as
	// "skill://pdf-processing/SKILL.md"; its last directory segment is
	// the skill's name.
	URI string
	// Frontmatter is the frontmatter of the skill's SKILL.md.
	Frontmatter Frontmatter
	// Resources lists every file of the skill once, SKILL.md included,
	// unless Dynamic.
	Resources []ResourceEntry
	// Dynamic reports that the skill's files are not listed (resources is
	// "dynamic" on the wire): a client cannot check their size or digest.
	Dynamic bool
	// Meta is the entry's _meta, nil for none.
	Meta jsontext.Value
}

func (s *Skill) encode(e *wire.Encoder) {
	e.BeginObject()
	if s.Meta != nil {
		e.Name(`"_meta":`)
		e.RawObject(s.Meta)
	}
	e.Name(`"frontmatter":`)
	e.Enter("frontmatter")
	s.Frontmatter.encode(e)
	e.Leave()
	e.Name(`"resources":`)
	if s.Dynamic {
		if s.Resources != nil {
			e.Fail("a dynamic skill lists no resources")
		}
		e.String("dynamic")
	} else {
		e.Enter("resources")
		e.BeginArray()
		for i := range s.Resources {
			e.Enter(strconv.Itoa(i))
			s.Resources[i].encode(e)
			e.Leave()
		}
		e.EndArray()
		e.Leave()
	}
	e.Name(`"uri":`)
	e.String(s.URI)
	e.EndObject()
}

// AppendJSON appends the JSON encoding of s to b.
func (s *Skill) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	s.encode(&e)
	return e.Bytes()
}

// UnmarshalJSONFrom decodes s strictly: uri, frontmatter and resources (an
// array or "dynamic") are required; unknown members are skipped. The rules
// an entry follows beyond its shape are Validate's.
func (s *Skill) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginObject(d); err != nil {
		return err
	}
	*s = Skill{}
	var seen uint8
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(name) {
		case "_meta":
			if s.Meta, err = wire.ReadObjectValue(d); err != nil {
				return err
			}
		case "uri":
			if s.URI, err = wire.ReadString(d); err != nil {
				return err
			}
			seen |= 1
		case "frontmatter":
			if err := s.Frontmatter.UnmarshalJSONFrom(d); err != nil {
				return err
			}
			seen |= 2
		case "resources":
			if d.PeekKind() == '"' {
				v, err := wire.ReadString(d)
				if err != nil {
					return err
				}
				if v != "dynamic" {
					return wire.ConstError(d, strconv.Quote(v), `an array or "dynamic"`)
				}
				s.Dynamic = true
			} else {
				if err := wire.BeginArray(d); err != nil {
					return err
				}
				s.Resources = []ResourceEntry{}
				for {
					more, err := wire.More(d)
					if err != nil {
						return err
					}
					if !more {
						break
					}
					var r ResourceEntry
					if err := r.UnmarshalJSONFrom(d); err != nil {
						return err
					}
					s.Resources = append(s.Resources, r)
				}
			}
			seen |= 4
		default:
			if err := wire.Skip(d); err != nil {
				return err
			}
		}
	}
	for i, n := range []string{"uri", "frontmatter", "resources"} {
		if seen&(1<<i) == 0 {
			return wire.Missing(d, n)
		}
	}
	return nil
}

// CacheScope says whether caches may share a result across authorization
// contexts ("public") or not ("private").
type CacheScope string

// The cache scopes.
const (
	CachePublic  CacheScope = "public"
	CachePrivate CacheScope = "private"
)

// cache holds the caching members every result of the extension has.
type cache struct {
	TTLMs      int64
	CacheScope CacheScope
}

func (c *cache) encode(e *wire.Encoder) {
	e.Name(`"cacheScope":`)
	if c.CacheScope != CachePublic && c.CacheScope != CachePrivate {
		e.Fail("cacheScope " + strconv.Quote(string(c.CacheScope)) + ` is not "public" or "private"`)
	}
	e.String(string(c.CacheScope))
	e.Name(`"ttlMs":`)
	e.Check("ttlMs", wire.Minimum(c.TTLMs, 0))
	e.Int(c.TTLMs)
}

// member decodes the caching member name, if it is one: ok reports that
// it was, bit its bit in seen (1 cacheScope, 2 ttlMs).
func (c *cache) member(d *jsontext.Decoder, name string) (bit uint8, ok bool, err error) {
	switch name {
	case "cacheScope":
		v, err := wire.ReadString(d)
		if err != nil {
			return 0, true, err
		}
		if v != string(CachePublic) && v != string(CachePrivate) {
			return 0, true, wire.EnumError(d, v, []string{string(CachePublic), string(CachePrivate)})
		}
		c.CacheScope = CacheScope(v)
		return 1, true, nil
	case "ttlMs":
		v, err := wire.ReadInt(d)
		if err != nil {
			return 0, true, err
		}
		if err := wire.Check(d, wire.Minimum(v, 0)); err != nil {
			return 0, true, err
		}
		c.TTLMs = v
		return 2, true, nil
	}
	return 0, false, nil
}

func (c *cache) missing(d *jsontext.Decoder, seen uint8) error {
	if seen&1 == 0 {
		return wire.Missing(d, "cacheScope")
	}
	if seen&2 == 0 {
		return wire.Missing(d, "ttlMs")
	}
	return nil
}

// resultType reads a result's resultType, which must be "complete" when
// present.
func resultType(d *jsontext.Decoder) (string, error) {
	v, err := wire.ReadString(d)
	if err != nil {
		return "", err
	}
	if v != "complete" {
		return "", wire.ConstError(d, strconv.Quote(v), `"complete"`)
	}
	return v, nil
}

// ListParams are the params of skills/list.
type ListParams struct {
	// Meta is the request's _meta, nil for none.
	Meta jsontext.Value
	// Cursor is the nextCursor of the previous page; nil for the first.
	Cursor *string
}

// AppendJSON appends the JSON encoding of p to b.
func (p *ListParams) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	if p.Meta != nil {
		e.Name(`"_meta":`)
		e.RawObject(p.Meta)
	}
	if p.Cursor != nil {
		e.Name(`"cursor":`)
		e.String(*p.Cursor)
	}
	e.EndObject()
	return e.Bytes()
}

// UnmarshalJSONFrom decodes p strictly; unknown members are skipped.
func (p *ListParams) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginObject(d); err != nil {
		return err
	}
	*p = ListParams{}
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch string(name) {
		case "_meta":
			if p.Meta, err = wire.ReadObjectValue(d); err != nil {
				return err
			}
		case "cursor":
			v, err := wire.ReadString(d)
			if err != nil {
				return err
			}
			p.Cursor = &v
		default:
			if err := wire.Skip(d); err != nil {
				return err
			}
		}
	}
}

// ListResult is the result of skills/list: a page of whole entries.
type ListResult struct {
	// Meta is the result's _meta, nil for none.
	Meta jsontext.Value
	// Skills are the page's entries.
	Skills []Skill
	// NextCursor, when not nil, asks for the next page.
	NextCursor *string
	// TTLMs is how long, in milliseconds, a client may reuse the result.
	TTLMs int64
	// CacheScope says whether caches may share the result.
	CacheScope CacheScope
}

// AppendJSON appends the JSON encoding of r to b, resultType "complete"
// included.
func (r *ListResult) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	if r.Meta != nil {
		e.Name(`"_meta":`)
		e.RawObject(r.Meta)
	}
	c := cache{r.TTLMs, r.CacheScope}
	c.encode(&e)
	if r.NextCursor != nil {
		e.Name(`"nextCursor":`)
		e.String(*r.NextCursor)
	}
	e.Name(`"resultType":`)
	e.String("complete")
	e.Name(`"skills":`)
	e.Enter("skills")
	e.BeginArray()
	for i := range r.Skills {
		e.Enter(strconv.Itoa(i))
		r.Skills[i].encode(&e)
		e.Leave()
	}
	e.EndArray()
	e.Leave()
	e.EndObject()
	return e.Bytes()
}

// UnmarshalJSONFrom decodes r strictly: skills, ttlMs and cacheScope are
// required, resultType is "complete" when present; unknown members are
// skipped.
func (r *ListResult) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	*r = ListResult{}
	var c cache
	err := decodeResult(d, &c, &r.Meta, &r.NextCursor, "skills", func(d *jsontext.Decoder) (err error) {
		r.Skills, err = readArray(d, (*Skill).UnmarshalJSONFrom)
		return err
	})
	r.TTLMs, r.CacheScope = c.TTLMs, c.CacheScope
	return err
}

// GetParams are the params of skills/get.
type GetParams struct {
	// Meta is the request's _meta, nil for none.
	Meta jsontext.Value
	// URI is the URI of the skill's SKILL.md.
	URI string
}

// AppendJSON appends the JSON encoding of p to b.
func (p *GetParams) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	if p.Meta != nil {
		e.Name(`"_meta":`)
		e.RawObject(p.Meta)
	}
	e.Name(`"uri":`)
	e.String(p.URI)
	e.EndObject()
	return e.Bytes()
}

// UnmarshalJSONFrom decodes p strictly: uri is required; unknown members
// are skipped.
func (p *GetParams) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginObject(d); err != nil {
		return err
	}
	*p = GetParams{}
	seen := false
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(name) {
		case "_meta":
			if p.Meta, err = wire.ReadObjectValue(d); err != nil {
				return err
			}
		case "uri":
			if p.URI, err = wire.ReadString(d); err != nil {
				return err
			}
			seen = true
		default:
			if err := wire.Skip(d); err != nil {
				return err
			}
		}
	}
	if !seen {
		return wire.Missing(d, "uri")
	}
	return nil
}

// GetResult is the result of skills/get.
type GetResult struct {
	// Meta is the result's _meta, nil for none.
	Meta jsontext.Value
	// Skill is the entry of the skill asked for.
	Skill Skill
	// TTLMs is how long, in milliseconds, a client may reuse the result.
	TTLMs int64
	// CacheScope says whether caches may share the result.
	CacheScope CacheScope
}

// AppendJSON appends the JSON encoding of r to b, resultType "complete"
// included.
func (r *GetResult) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	if r.Meta != nil {
		e.Name(`"_meta":`)
		e.RawObject(r.Meta)
	}
	c := cache{r.TTLMs, r.CacheScope}
	c.encode(&e)
	e.Name(`"resultType":`)
	e.String("complete")
	e.Name(`"skill":`)
	e.Enter("skill")
	r.Skill.encode(&e)
	e.Leave()
	e.EndObject()
	return e.Bytes()
}

// UnmarshalJSONFrom decodes r strictly: skill, ttlMs and cacheScope are
// required, resultType is "complete" when present; unknown members are
// skipped.
func (r *GetResult) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	*r = GetResult{}
	var c cache
	err := decodeResult(d, &c, &r.Meta, nil, "skill", r.Skill.UnmarshalJSONFrom)
	r.TTLMs, r.CacheScope = c.TTLMs, c.CacheScope
	return err
}

// DirectoryReadParams are the params of resources/directory/read.
type DirectoryReadParams struct {
	// Meta is the request's _meta, nil for none.
	Meta jsontext.Value
	// URI is the directory's URI, such as "skill://pdf-processing".
	URI string
	// Cursor is the nextCursor of the previous page; nil for the first.
	Cursor *string
}

// AppendJSON appends the JSON encoding of p to b.
func (p *DirectoryReadParams) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	if p.Meta != nil {
		e.Name(`"_meta":`)
		e.RawObject(p.Meta)
	}
	if p.Cursor != nil {
		e.Name(`"cursor":`)
		e.String(*p.Cursor)
	}
	e.Name(`"uri":`)
	e.String(p.URI)
	e.EndObject()
	return e.Bytes()
}

// UnmarshalJSONFrom decodes p strictly: uri is required; unknown members
// are skipped.
func (p *DirectoryReadParams) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginObject(d); err != nil {
		return err
	}
	*p = DirectoryReadParams{}
	seen := false
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(name) {
		case "_meta":
			if p.Meta, err = wire.ReadObjectValue(d); err != nil {
				return err
			}
		case "uri":
			if p.URI, err = wire.ReadString(d); err != nil {
				return err
			}
			seen = true
		case "cursor":
			v, err := wire.ReadString(d)
			if err != nil {
				return err
			}
			p.Cursor = &v
		default:
			if err := wire.Skip(d); err != nil {
				return err
			}
		}
	}
	if !seen {
		return wire.Missing(d, "uri")
	}
	return nil
}

// DirectoryReadResult is the result of resources/directory/read: a page of
// the directory's direct children, subdirectories with mimeType
// DirectoryMIMEType.
type DirectoryReadResult struct {
	// Meta is the result's _meta, nil for none.
	Meta jsontext.Value
	// Resources are the page's children.
	Resources []mcp.Resource
	// NextCursor, when not nil, asks for the next page.
	NextCursor *string
	// TTLMs is how long, in milliseconds, a client may reuse the result.
	TTLMs int64
	// CacheScope says whether caches may share the result.
	CacheScope CacheScope
}

// AppendJSON appends the JSON encoding of r to b, resultType "complete"
// included.
func (r *DirectoryReadResult) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	if r.Meta != nil {
		e.Name(`"_meta":`)
		e.RawObject(r.Meta)
	}
	c := cache{r.TTLMs, r.CacheScope}
	c.encode(&e)
	if r.NextCursor != nil {
		e.Name(`"nextCursor":`)
		e.String(*r.NextCursor)
	}
	e.Name(`"resources":`)
	e.Enter("resources")
	e.BeginArray()
	for i := range r.Resources {
		e.Value(&r.Resources[i])
	}
	e.EndArray()
	e.Leave()
	e.Name(`"resultType":`)
	e.String("complete")
	e.EndObject()
	return e.Bytes()
}

// UnmarshalJSONFrom decodes r strictly: resources (each a core Resource),
// ttlMs and cacheScope are required, resultType is "complete" when
// present; unknown members are skipped.
func (r *DirectoryReadResult) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	*r = DirectoryReadResult{}
	var c cache
	err := decodeResult(d, &c, &r.Meta, &r.NextCursor, "resources", func(d *jsontext.Decoder) (err error) {
		r.Resources, err = readArray(d, (*mcp.Resource).UnmarshalJSONFrom)
		return err
	})
	r.TTLMs, r.CacheScope = c.TTLMs, c.CacheScope
	return err
}

// decodeResult decodes the object of one of the extension's results: the
// members every one has (_meta, resultType, ttlMs and cacheScope, the last
// two required), nextCursor when next is not nil, and the required member
// body, which readBody reads; other members are skipped.
func decodeResult(d *jsontext.Decoder, c *cache, meta *jsontext.Value, next **string, body string, readBody func(*jsontext.Decoder) error) error {
	if err := wire.BeginObject(d); err != nil {
		return err
	}
	var seen uint8
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		n := string(name)
		if bit, ok, err := c.member(d, n); ok {
			if err != nil {
				return err
			}
			seen |= bit
			continue
		}
		switch {
		case n == "_meta":
			if *meta, err = wire.ReadObjectValue(d); err != nil {
				return err
			}
		case n == "resultType":
			if _, err := resultType(d); err != nil {
				return err
			}
		case n == "nextCursor" && next != nil:
			v, err := wire.ReadString(d)
			if err != nil {
				return err
			}
			*next = &v
		case n == body:
			if err := readBody(d); err != nil {
				return err
			}
			seen |= 4
		default:
			if err := wire.Skip(d); err != nil {
				return err
			}
		}
	}
	if seen&4 == 0 {
		return wire.Missing(d, body)
	}
	return c.missing(d, seen)
}

// readArray reads an array whose items decode reads; an empty array is an
// empty slice, not nil.
func readArray[T any](d *jsontext.Decoder, decode func(*T, *jsontext.Decoder) error) ([]T, error) {
	if err := wire.BeginArray(d); err != nil {
		return nil, err
	}
	out := []T{}
	for {
		more, err := wire.More(d)
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
		var x T
		if err := decode(&x, d); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
}

// Methods returns the table entries of the extension's requests, all from
// client to server: skills/list, skills/get and resources/directory/read.
// A client passes one to session.ExtensionMethod to call it.
func Methods() []wire.Method {
	return []wire.Method{
		{
			Name: MethodList, Direction: wire.ClientToServer, Message: "ListSkillsRequest",
			NewParams: func() wire.Codec { return new(ListParams) },
			Results:   []string{"ListSkillsResult"}, NewResult: []func() wire.Codec{func() wire.Codec { return new(ListResult) }},
		},
		{
			Name: MethodGet, Direction: wire.ClientToServer, Message: "GetSkillRequest", ParamsRequired: true,
			NewParams: func() wire.Codec { return new(GetParams) },
			Results:   []string{"GetSkillResult"}, NewResult: []func() wire.Codec{func() wire.Codec { return new(GetResult) }},
		},
		{
			Name: MethodDirectoryRead, Direction: wire.ClientToServer, Message: "ReadResourceDirectoryRequest", ParamsRequired: true,
			NewParams: func() wire.Codec { return new(DirectoryReadParams) },
			Results:   []string{"ReadResourceDirectoryResult"}, NewResult: []func() wire.Codec{func() wire.Codec { return new(DirectoryReadResult) }},
		},
	}
}
