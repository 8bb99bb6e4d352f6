package reqstate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Binding is what a state is bound to: [Sealer.Open] fails unless it is
// given the same Binding that [Sealer.Seal] was. The Binding is not stored
// in the state, only authenticated with it.
type Binding struct {
	// Audience names the endpoint the state is issued by and good for: an
	// MCP server, as the server sees itself. Two endpoints that must not
	// accept each other's states (two servers in one process, or two
	// deployments that share keys) use different audiences; the instances
	// of one deployment behind a load balancer use the same one (its
	// public URL, say). Seal fails if it is empty, so that every state
	// names one.
	Audience string
	// Method is the request's method, such as "tools/call".
	Method string
	// Params is the digest of the request's params, from [ParamsDigest].
	Params [32]byte
	// Principal identifies who sent the request (an OAuth subject, a user
	// ID), or is "" where the server does not know.
	Principal string
}

// hash returns the digest of b that goes into the additional data of the
// AEAD. Each field is length-prefixed, so no two Bindings share a hash.
func (b Binding) hash() [32]byte {
	h := sha256.New()
	h.Write([]byte("mcpgen reqstate binding v2\x00"))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b.Audience)))
	h.Write(n[:])
	h.Write([]byte(b.Audience))
	binary.BigEndian.PutUint64(n[:], uint64(len(b.Method)))
	h.Write(n[:])
	h.Write([]byte(b.Method))
	h.Write(b.Params[:])
	binary.BigEndian.PutUint64(n[:], uint64(len(b.Principal)))
	h.Write(n[:])
	h.Write([]byte(b.Principal))
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// ignored are the params members that differ between a request and its
// retry, and that ParamsDigest therefore leaves out.
var ignored = map[string]bool{"_meta": true, "inputResponses": true, "requestState": true}

// ParamsDigest returns the SHA-256 digest of a request's params object as
// the binding of a state sees it: without the top-level members "_meta",
// "inputResponses" and "requestState" (which a retry adds or changes), and in
// canonical form, so that a client that re-serializes its params with
// another member order, other spacing or other string escapes gets the same
// digest. Absent params (empty or null) have the digest of {}.
//
// The canonical form is RFC 8785 (JCS) except for numbers, which keep the
// digits they were written with: JCS reads numbers as float64, so two
// integers above 2⁵³ that a server reads as different values would share a
// digest. A client that rewrites a number (1.0 as 1) therefore gets
// another digest and its state fails to open, which fails safe: the retry
// is refused rather than given answers sealed for other params (see
// docs/requirements.md#request-state-binding).
//
// ParamsDigest fails if params is not valid JSON (RFC 8259 with valid
// UTF-8 and no duplicate member names) or is neither an object nor null.
func ParamsDigest(params jsontext.Value) ([32]byte, error) {
	// A bytes.Buffer is parsed in place: no copy of params, no buffer
	// growing as the decoder reads. The decoder is reused, and with it the
	// memory it checks member names with.
	dd := digestDecoders.Get().(*digestDecoder)
	defer dd.put()
	dd.buf = *bytes.NewBuffer(params)
	d := &dd.d
	d.Reset(&dd.buf)
	switch k := d.PeekKind(); k {
	case 0: // nothing, or a syntax error
		if _, err := d.ReadToken(); err != io.EOF {
			return [32]byte{}, fmt.Errorf("reqstate: params: %w", err)
		}
		return sha256.Sum256([]byte("{}")), nil
	case 'n':
		if _, err := d.ReadToken(); err != nil {
			return [32]byte{}, fmt.Errorf("reqstate: params: %w", err)
		}
		if err := end(d); err != nil {
			return [32]byte{}, err
		}
		return sha256.Sum256([]byte("{}")), nil
	case '{':
	case '"', '0', 't', 'f', '[':
		return [32]byte{}, fmt.Errorf("reqstate: params is a JSON %s, want an object", wire.KindName(k))
	default: // '}' or ']': PeekKind does not check the structure
		_, err := d.ReadToken()
		if err == nil {
			err = fmt.Errorf("unexpected %v", k)
		}
		return [32]byte{}, fmt.Errorf("reqstate: params: %w", err)
	}
	// The decoder has checked names and values; they are appended as they
	// are, and Canonicalize then orders and reformats the whole once.
	if _, err := d.ReadToken(); err != nil {
		return [32]byte{}, fmt.Errorf("reqstate: params: %w", err)
	}
	canon := make(jsontext.Value, 0, len(params))
	canon = append(canon, '{')
	for d.PeekKind() != '}' {
		// The name as written (quotes, escapes): Canonicalize rewrites it
		// in canonical form with the rest. It is valid only until the
		// next read, so it is appended before the value is read.
		name, err := d.ReadValue()
		if err != nil {
			return [32]byte{}, fmt.Errorf("reqstate: params: %w", err)
		}
		skip := isIgnored(name)
		mark := len(canon)
		if !skip {
			if len(canon) > 1 {
				canon = append(canon, ',')
			}
			canon = append(canon, name...)
			canon = append(canon, ':')
		}
		value, err := d.ReadValue()
		if err != nil {
			return [32]byte{}, fmt.Errorf("reqstate: params: %w", err)
		}
		if skip {
			canon = canon[:mark]
			continue
		}
		canon = append(canon, value...)
	}
	if _, err := d.ReadToken(); err != nil {
		return [32]byte{}, fmt.Errorf("reqstate: params: %w", err)
	}
	if err := end(d); err != nil {
		return [32]byte{}, err
	}
	canon = append(canon, '}')
	if err := canon.Canonicalize(jsontext.CanonicalizeRawInts(false), jsontext.CanonicalizeRawFloats(false)); err != nil {
		return [32]byte{}, fmt.Errorf("reqstate: params: %w", err)
	}
	return sha256.Sum256(canon), nil
}

// A digestDecoder is a decoder of ParamsDigest with the buffer it reads.
type digestDecoder struct {
	d   jsontext.Decoder
	buf bytes.Buffer
}

var digestDecoders = sync.Pool{New: func() any { return new(digestDecoder) }}

// put returns dd to the pool, holding nothing of the params it read.
func (dd *digestDecoder) put() {
	dd.buf = bytes.Buffer{}
	dd.d.Reset(&dd.buf)
	digestDecoders.Put(dd)
}

// isIgnored reports whether the quoted member name q is one of ignored.
func isIgnored(q []byte) bool {
	if len(q) < 2 {
		return false
	}
	if bytes.IndexByte(q, '\\') < 0 {
		return ignored[string(q[1:len(q)-1])]
	}
	u, err := jsontext.AppendUnquote(nil, q)
	return err == nil && ignored[string(u)]
}

// end checks that d has nothing after the value it has read.
func end(d *jsontext.Decoder) error {
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			return errors.New("reqstate: params: more than one JSON value")
		}
		return fmt.Errorf("reqstate: params: after the value: %w", err)
	}
	return nil
}
