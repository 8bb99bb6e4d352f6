package cache

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Scope is a result's cacheScope.
type Scope string

// The two scopes of 2026-07-28, analogous to HTTP's Cache-Control public and
// private.
const (
	// Public results hold no user-specific data: they are shared by every
	// authorization context.
	Public Scope = "public"
	// Private results are seen only within the authorization context they
	// were received in.
	Private Scope = "private"
)

// hints are the caching hints of a result.
type hints struct {
	ttl   time.Duration
	scope Scope
	// complete reports a well-formed complete result, also when the error
	// says it is not cacheable for its cacheScope.
	complete bool
}

// parseHints reads the caching hints of the result of method. It returns an
// error wrapping ErrNotCacheable for a result the rules leave out (an
// input_required or other non-complete result, a missing or unknown
// cacheScope), and another error for a result that is not a single valid JSON
// object or whose hints have the wrong JSON type.
func parseHints(method string, result jsontext.Value) (hints, error) {
	var h hints
	resultType := "complete" // absent: a server of an earlier revision (schema: "treat as complete")
	scope := ""
	d := jsontext.NewDecoder(bytes.NewReader(result))
	err := readObject(d, func(name string) error {
		switch name {
		case "resultType", "cacheScope":
			tok, err := d.ReadToken()
			if err != nil {
				return err
			}
			if tok.Kind() != '"' {
				return fmt.Errorf("/%s: want a string, got %s", name, wire.KindPhrase(tok.Kind()))
			}
			if name == "resultType" {
				resultType = tok.String()
			} else {
				scope = tok.String()
			}
		case "ttlMs":
			tok, err := d.ReadToken()
			if err != nil {
				return err
			}
			ttl, err := ttlOf(tok)
			if err != nil {
				return fmt.Errorf("/ttlMs: %w", err)
			}
			h.ttl = ttl
		default:
			return d.SkipValue()
		}
		return nil
	})
	if err != nil {
		return hints{}, fmt.Errorf("cache: %s result: %w", method, err)
	}
	if resultType != "complete" {
		return hints{}, fmt.Errorf("cache: %s result of resultType %q: %w (only complete results are)", method, resultType, ErrNotCacheable)
	}
	switch Scope(scope) {
	case Public, Private:
		h.scope = Scope(scope)
	case "":
		return hints{complete: true}, fmt.Errorf("cache: %s result without cacheScope: %w", method, ErrNotCacheable)
	default:
		return hints{complete: true}, fmt.Errorf("cache: %s result of unknown cacheScope %q: %w", method, scope, ErrNotCacheable)
	}
	h.complete = true
	return h, nil
}

// ttlOf converts ttlMs, a JSON integer of milliseconds, to a duration:
// negative values are 0 and values beyond the range of
// time.Duration are its maximum. A number with a fractional part is an error.
func ttlOf(tok jsontext.Token) (time.Duration, error) {
	if tok.Kind() != '0' {
		return 0, fmt.Errorf("want an integer, got %s", wire.KindPhrase(tok.Kind()))
	}
	// Float parses the exact decimal text, so a fractional part survives
	// unless it is beyond double precision, where the number is integral to
	// every reader.
	f := tok.Float()
	if math.Trunc(f) != f || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want an integer, got %s", tok.String())
	}
	ms := tok.Int() // saturates at the int64 bounds
	switch {
	case ms <= 0:
		return 0, nil
	case ms > math.MaxInt64/int64(time.Millisecond):
		return math.MaxInt64, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}
