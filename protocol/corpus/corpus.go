// Package corpus loads the hand-written corpus of MCP JSON messages that the
// generated protocol types are tested against.
//
// The corpus lives in protocol/testdata/corpus/<rev>/ with one directory per
// protocol revision (for example "2025-06-18"), and one per extension, named
// as its pinned schema (for example "ext-tasks", the Tasks extension bound to
// 2026-07-28, whose cases are values of the extension's own definitions).
// Each has two sub-directories:
//
//   - valid/*.json: JSON arrays of [Case] objects. Every case is a value that
//     is valid against the official schema definition it names; typed decoders
//     must accept it and re-encode it to an equal JSON value.
//   - invalid/*.json: JSON arrays of [Invalid] objects. Every case is raw JSON
//     text that a strict typed decoder must reject with an error naming the
//     given JSON pointer and containing the given substring.
//
// A case whose Def is a request or notification definition (one with a
// "method" const) holds a complete JSON-RPC message, envelope included; an
// embedded request (2026-07-28's elicitation/create, sampling/createMessage
// and roots/list, the members of InputRequest, which are never JSON-RPC
// messages) holds the bare request, {"method", "params"}, as it travels in
// a result's inputRequests; any other case holds a bare value of its
// definition (which, for 2026-07-28's response definitions such as
// CallToolResultResponse and its named errors such as
// UnsupportedProtocolVersionError, is a whole JSON-RPC response).
package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Case is one valid corpus entry: a JSON value of the schema definition Def.
type Case struct {
	// Name is a short name, unique among the valid cases of a revision.
	Name string `json:"name"`
	// Def is the name of the schema definition the value belongs to
	// (a key of "definitions" or "$defs" in the revision's schema.json).
	Def string `json:"def"`
	// Variant is set only when Def is a named union (an anyOf definition);
	// it names the member definition that the value is an instance of, or,
	// for a member spelled inline with no definition of its own, its place
	// in the union: "anyOf/2" (2026-07-28's JSONValue string, integer or
	// boolean).
	Variant string `json:"variant,omitempty"`
	// JSON is the value itself. For request and notification definitions it
	// is a complete JSON-RPC message.
	JSON json.RawMessage `json:"json"`
	// File is the base name of the corpus file the case was read from. It is
	// filled in by Valid and is not part of the file format.
	File string `json:"-"`
}

// Invalid is one negative corpus entry: JSON text that a strict decoder for
// the definition Def must reject.
type Invalid struct {
	// Name is a short name, unique among the invalid cases of a revision.
	Name string `json:"name"`
	// Def is the name of the schema definition the text is decoded as.
	Def string `json:"def"`
	// Kind classifies the defect; it is one of the Kind* constants.
	Kind string `json:"kind"`
	// Text is the raw JSON text. It is kept as a string so that it can
	// express things a JSON value cannot, such as duplicate object keys.
	Text string `json:"text"`
	// Pointer is the RFC 6901 JSON pointer the decoder's error must name
	// ("" is the top-level value).
	Pointer string `json:"pointer"`
	// Contains is a substring the decoder's error message must contain.
	Contains string `json:"contains"`
	// BeyondSchema, when set, says why the text is invalid although the
	// official schema accepts it: a rule of the revision's text that its
	// schema does not express and the strict decoder enforces, such as
	// 2026-07-28's resultType, a plain string in the schema whose value
	// ("complete" or "input_required") selects the result. The corpus
	// tests check that the schema does accept such a text.
	BeyondSchema string `json:"beyondSchema,omitempty"`
	// File is the base name of the corpus file the case was read from. It is
	// filled in by InvalidCases and is not part of the file format.
	File string `json:"-"`
}

// Kinds of invalid cases (the values of Invalid.Kind).
const (
	// KindMissingRequired is a required member that is absent. Pointer names
	// the object lacking it; Contains is `missing required field "<name>"`.
	KindMissingRequired = "missing-required"
	// KindWrongDiscriminator is a union whose tag (a content "type", a
	// "method", a "mode", ...) names no member. Pointer names the tag member;
	// Contains is "unknown".
	KindWrongDiscriminator = "wrong-discriminator"
	// KindWrongCaseKey is a required member spelled with the wrong letter
	// case. Keys are case-sensitive and unknown keys are skipped, so it is
	// reported like KindMissingRequired.
	KindWrongCaseKey = "wrong-case-key"
	// KindDuplicateKey is an object with the same key twice. Pointer names the
	// second occurrence; Contains is "duplicate".
	KindDuplicateKey = "duplicate-key"
	// KindWrongType is a value of the wrong JSON type. Pointer names the value;
	// Contains is "want string", "want integer", "want number",
	// "want boolean", "want object" or "want array".
	KindWrongType = "wrong-type"
	// KindBadEnum is a string outside its enum. Pointer names the value;
	// Contains is "want one of".
	KindBadEnum = "bad-enum"
	// KindBadConst is a value different from the const of a member that is
	// not a union tag. Pointer names the value; Contains is the expected
	// constant as JSON text.
	KindBadConst = "bad-const"
	// KindAssertion is a value that breaks an assertion keyword the strict
	// decoders check (2026-07-28's maxItems 100 on completion values, a
	// priority's maximum 1). Pointer names the value; Contains is the
	// keyword in parentheses, such as "(maxItems)".
	KindAssertion = "assertion"
	// KindUnknownMember is a member of an object that allows no others
	// (additionalProperties false, or {"not": {}} as the Tasks extension's
	// capability spells it). Pointer names the member; Contains is
	// "unknown member".
	KindUnknownMember = "unknown-member"
)

// Kinds lists every valid value of Invalid.Kind.
var Kinds = []string{
	KindMissingRequired,
	KindWrongDiscriminator,
	KindWrongCaseKey,
	KindDuplicateKey,
	KindWrongType,
	KindBadEnum,
	KindBadConst,
	KindAssertion,
	KindUnknownMember,
}

// root returns protocol/testdata/corpus of the source tree this file was
// compiled from.
func root() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", errors.New("corpus: cannot locate the package source (built with -trimpath?)")
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata", "corpus"), nil
}

// Dir returns the corpus directory of the revision rev, that is
// protocol/testdata/corpus/<rev> of the source tree this package was built
// from (located through runtime.Caller, so it works from tests in any
// package). It reports an error if the directory does not exist.
func Dir(rev string) (string, error) {
	if rev == "" || rev == "." || rev == ".." || strings.ContainsAny(rev, `/\`) {
		return "", fmt.Errorf("corpus: invalid revision %q", rev)
	}
	r, err := root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(r, rev)
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("corpus: revision %s: %w", rev, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("corpus: revision %s: %s is not a directory", rev, dir)
	}
	return dir, nil
}

// Revisions returns the revisions that have a corpus directory, sorted; the
// directories of extensions (such as "ext-tasks") are not revisions.
func Revisions() ([]string, error) {
	r, err := root()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(r)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var revs []string
	for _, e := range entries {
		if e.IsDir() && isRevision(e.Name()) {
			revs = append(revs, e.Name())
		}
	}
	sort.Strings(revs)
	return revs, nil
}

// isRevision reports whether name has the form of a revision, YYYY-MM-DD.
func isRevision(name string) bool {
	if len(name) != len("2006-01-02") {
		return false
	}
	for i, c := range name {
		if (i == 4 || i == 7) != (c == '-') || (c != '-' && (c < '0' || c > '9')) {
			return false
		}
	}
	return true
}

// Valid reads every valid/*.json file of the revision rev, in file name
// order, and returns their cases in file order. It reports an error naming
// the file (and the case index, where there is one) for a file that is not a
// JSON array of well-formed cases, and for a case name used twice.
func Valid(rev string) ([]Case, error) {
	dir, err := Dir(rev)
	if err != nil {
		return nil, err
	}
	return readValid(filepath.Join(dir, "valid"))
}

// readValid reads the valid cases of every *.json file in dir.
func readValid(dir string) ([]Case, error) {
	var out []Case
	seen := map[string]string{}
	err := readDir(dir, func(file string, i int, raw json.RawMessage) error {
		var c Case
		if err := strictUnmarshal(raw, &c); err != nil {
			return err
		}
		switch {
		case c.Name == "":
			return errors.New(`missing "name"`)
		case c.Def == "":
			return errors.New(`missing "def"`)
		case len(c.JSON) == 0:
			return errors.New(`missing "json"`)
		}
		if prev, dup := seen[c.Name]; dup {
			return fmt.Errorf("duplicate case name %q (first in %s)", c.Name, prev)
		}
		seen[c.Name] = file
		c.File = file
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// InvalidCases reads every invalid/*.json file of the revision rev, in file
// name order, and returns their cases in file order. It reports an error
// naming the file (and the case index, where there is one) for a file that is
// not a JSON array of well-formed cases, for an unknown kind, and for a case
// name used twice.
func InvalidCases(rev string) ([]Invalid, error) {
	dir, err := Dir(rev)
	if err != nil {
		return nil, err
	}
	return readInvalid(filepath.Join(dir, "invalid"))
}

// readInvalid reads the invalid cases of every *.json file in dir.
func readInvalid(dir string) ([]Invalid, error) {
	var out []Invalid
	seen := map[string]string{}
	err := readDir(dir, func(file string, i int, raw json.RawMessage) error {
		var c Invalid
		if err := strictUnmarshal(raw, &c); err != nil {
			return err
		}
		switch {
		case c.Name == "":
			return errors.New(`missing "name"`)
		case c.Def == "":
			return errors.New(`missing "def"`)
		case c.Text == "":
			return errors.New(`missing "text"`)
		case c.Contains == "":
			return errors.New(`missing "contains"`)
		}
		known := false
		for _, k := range Kinds {
			known = known || c.Kind == k
		}
		if !known {
			return fmt.Errorf("unknown kind %q", c.Kind)
		}
		if c.Pointer != "" && !strings.HasPrefix(c.Pointer, "/") {
			return fmt.Errorf("pointer %q is not a JSON pointer", c.Pointer)
		}
		if prev, dup := seen[c.Name]; dup {
			return fmt.Errorf("duplicate case name %q (first in %s)", c.Name, prev)
		}
		seen[c.Name] = file
		c.File = file
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readDir calls fn for every element of every *.json array in dir, files
// sorted by name.
func readDir(dir string, fn func(file string, i int, raw json.RawMessage) error) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Errorf("corpus: no *.json files in %s", dir)
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
		var elems []json.RawMessage
		if err := strictUnmarshal(data, &elems); err != nil {
			return fmt.Errorf("corpus: %s: %w", path, err)
		}
		if elems == nil {
			return fmt.Errorf("corpus: %s: not a JSON array", path)
		}
		for i, raw := range elems {
			if err := fn(name, i, raw); err != nil {
				return fmt.Errorf("corpus: %s: case %d: %w", path, i, err)
			}
		}
	}
	return nil
}

// strictUnmarshal decodes exactly one JSON value from data into v, rejecting
// unknown object members and trailing data.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
