package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The methods whose results 2026-07-28 lets a client cache.
const (
	methodDiscover      = "server/discover"
	methodToolsList     = "tools/list"
	methodPromptsList   = "prompts/list"
	methodResourcesList = "resources/list"
	methodTemplatesList = "resources/templates/list"
	methodResourcesRead = "resources/read"
)

// methods is the list Methods returns a copy of, sorted.
var methods = []string{
	methodPromptsList,
	methodResourcesList,
	methodResourcesRead,
	methodTemplatesList,
	methodDiscover,
	methodToolsList,
}

// Methods returns the methods whose results the cache stores, sorted:
// server/discover, tools/list, prompts/list, resources/list,
// resources/templates/list and resources/read. Their results
// carry the caching hints ttlMs and cacheScope. The slice is a new copy on
// every call.
func Methods() []string {
	return slices.Clone(methods)
}

// Cacheable reports whether method is one of Methods.
func Cacheable(method string) bool {
	switch method {
	case methodDiscover, methodToolsList, methodPromptsList, methodResourcesList, methodTemplatesList, methodResourcesRead:
		return true
	}
	return false
}

// ErrNotCacheable is wrapped by the errors of requests and results the cache
// declines by rule rather than because they are malformed: a method outside
// Methods, a multi round-trip retry, an input_required result, a result
// without a known cacheScope, a result larger than the byte bound.
var ErrNotCacheable = errors.New("not cacheable")

// request is what a cacheable request contributes to its cache key.
type request struct {
	// key is the method and the canonical params without _meta.
	key string
	// uri is the params' uri for resources/read, "" otherwise.
	uri string
}

// Key returns the cache key of a request: the method, a space,
// and the params object without its _meta member in canonical form, such as
//
//	tools/list {"cursor":"abc"}
//
// so that every member but _meta counts (cursor for list pages, uri for
// resources/read, and any other) and their order and the whitespace do not.
// Absent params (nil or empty) are the empty object.
//
// The canonical form is RFC 8785's (jsontext.Value.Canonicalize: members
// sorted, strings in their shortest form) except that numbers keep their
// spelling: RFC 8785 reads every number as an IEEE 754 double, which would
// give distinct integers beyond 2⁵³ one key and so serve one request the
// other's answer. Two spellings of one number (1 and 1.0) therefore make two
// keys, which at worst costs a cache miss.
//
// A method outside Methods and a multi round-trip retry (params carrying
// inputResponses or requestState) are errors wrapping ErrNotCacheable.
// Params that are not a JSON object, have duplicate member names or invalid
// UTF-8, and resources/read params without a string uri are errors too.
func Key(method string, params jsontext.Value) (string, error) {
	r, err := parseRequest(method, params)
	if err != nil {
		return "", err
	}
	return r.key, nil
}

// parseRequest checks that a request is cacheable and computes its key.
func parseRequest(method string, params jsontext.Value) (request, error) {
	if !Cacheable(method) {
		return request{}, fmt.Errorf("cache: method %q: %w (the cacheable methods are %v)", method, ErrNotCacheable, methods)
	}
	if len(bytes.TrimSpace(params)) == 0 {
		params = jsontext.Value("{}")
	}
	var r request
	ks := getKeyState(params)
	defer putKeyState(ks, len(params))
	d, e, out := &ks.d, &ks.e, &ks.out
	uriProblem := "none"
	err := e.WriteToken(jsontext.BeginObject)
	if err == nil {
		err = readObject(d, func(name string) error {
			switch name {
			case "_meta":
				return d.SkipValue()
			case "inputResponses", "requestState":
				return fmt.Errorf("cache: %s params carry %s, a multi round-trip retry: %w", method, name, ErrNotCacheable)
			}
			v, err := d.ReadValue()
			if err != nil {
				return err
			}
			if name == "uri" {
				uriProblem = wire.KindPhrase(v.Kind())
				if v.Kind() == '"' {
					s, err := jsontext.AppendUnquote(nil, v)
					if err != nil {
						return err
					}
					r.uri, uriProblem = string(s), ""
				}
			}
			if err := e.WriteToken(jsontext.String(name)); err != nil {
				return err
			}
			return e.WriteValue(v)
		})
	}
	if err == nil {
		err = e.WriteToken(jsontext.EndObject)
	}
	canon := jsontext.Value(bytes.TrimSpace(out.Bytes()))
	if err == nil {
		err = canon.Canonicalize(jsontext.CanonicalizeRawInts(false), jsontext.CanonicalizeRawFloats(false))
	}
	switch {
	case errors.Is(err, ErrNotCacheable):
		return request{}, err
	case err != nil:
		return request{}, fmt.Errorf("cache: %s params: %w", method, err)
	case method == methodResourcesRead && uriProblem != "":
		return request{}, fmt.Errorf("cache: resources/read params: want a string uri, got %s", uriProblem)
	}
	r.key = method + " " + string(canon)
	return r, nil
}

// keyState is the reusable machinery of parseRequest.
type keyState struct {
	r   bytes.Reader
	d   jsontext.Decoder
	out bytes.Buffer
	e   jsontext.Encoder
}

var keyStates = sync.Pool{New: func() any { return new(keyState) }}

// maxPooledParams is the size of the largest params whose keyState goes back
// to the pool, so that one huge request does not pin its buffers.
const maxPooledParams = 64 << 10

// getKeyState returns a keyState reading params and writing to an empty
// buffer.
func getKeyState(params []byte) *keyState {
	ks := keyStates.Get().(*keyState)
	ks.r.Reset(params)
	ks.d.Reset(&ks.r)
	ks.out.Reset()
	ks.e.Reset(&ks.out)
	return ks
}

// putKeyState returns ks, which read params of n bytes, to the pool.
func putKeyState(ks *keyState, n int) {
	if n > maxPooledParams || ks.out.Cap() > maxPooledParams {
		return
	}
	ks.r.Reset(nil)
	keyStates.Put(ks)
}

// readObject reads one JSON object from d and nothing after it, calling
// member once per member after reading its name; member must read the
// member's value. Duplicate names and invalid UTF-8 are errors.
func readObject(d *jsontext.Decoder, member func(name string) error) error {
	tok, err := d.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return fmt.Errorf("want a JSON object, got %s", wire.KindPhrase(tok.Kind()))
	}
	// Each iteration reads one member name or the closing brace, so it
	// consumes input; the decoder fails at the end of its input.
	for {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		if tok.Kind() == '}' {
			break
		}
		if err := member(tok.String()); err != nil {
			return err
		}
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			return errors.New("more than one JSON value")
		}
		return err
	}
	return nil
}

// memberString returns the top-level member name of the JSON object v when
// it is a string; ok is false when it is absent or not a string.
func memberString(v jsontext.Value, name string) (s string, ok bool, err error) {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	err = readObject(d, func(n string) error {
		if n != name || d.PeekKind() != '"' {
			return d.SkipValue()
		}
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		s, ok = tok.String(), true
		return nil
	})
	if err != nil {
		return "", false, err
	}
	return s, ok, nil
}
