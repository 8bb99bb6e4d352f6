package httpguard

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// GateBodyBytes is the most of a POST body a server reads, once its gate
// refused the request, to find the ids of the body's requests: the
// refusal carries them, and a client that was not let in cannot make the
// server read more.
const GateBodyBytes = 64 << 10

// Refusal is what a server's refusal of a request its gate turned away
// carries: the ids of the requests of a POST body (Batch when it was an
// array), the error's text, and the WWW-Authenticate challenge it asks
// for, if any.
type Refusal struct {
	IDs       []wire.ID
	Batch     bool
	Message   string
	Challenge string
}

// Gate runs gate on r and returns nil when it lets r through (or gate is
// nil), else the Refusal to answer with (status 401). The body of a POST
// is then read, at most maxBody bytes and GateBodyBytes, for its ids.
func Gate(gate func(*http.Request) error, r *http.Request, maxBody int64) *Refusal {
	if gate == nil {
		return nil
	}
	err := gate(r)
	if err == nil {
		return nil
	}
	rf := &Refusal{Message: "unauthorized: " + err.Error()}
	var c interface{ Challenge() string }
	if errors.As(err, &c) {
		rf.Challenge = c.Challenge()
	}
	if r.Method == http.MethodPost && r.Body != nil {
		limit := int64(GateBodyBytes)
		if maxBody > 0 && maxBody < limit {
			limit = maxBody
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, limit))
		rf.IDs, rf.Batch = httpmsg.PeekRequestIDs(body)
	}
	return rf
}

// RequireHeader is the gate of streamhttp.RequireHeader and
// ssehttp.RequireHeader (see there).
func RequireHeader(name string, keys ...string) func(*http.Request) error {
	var sums [][sha256.Size]byte
	for _, k := range keys {
		if k != "" {
			sums = append(sums, sha256.Sum256([]byte(k)))
		}
	}
	var fault string
	switch {
	case strings.TrimSpace(name) == "":
		fault = "it names no header"
	case len(sums) == 0:
		fault = fmt.Sprintf("it has no key for the %s header (every key given is empty)", name)
	}
	if fault != "" {
		// A gate that can let nothing through is a configuration error:
		// said once at start-up, to the operator, and to every client.
		err := &misconfigured{fault: fault}
		slog.Default().Error("mcp: " + err.Error())
		return func(*http.Request) error { return err }
	}
	return func(r *http.Request) error {
		vals := r.Header.Values(name)
		switch {
		case len(vals) == 0:
			return &headerError{name: name, why: "is missing"}
		case len(vals) > 1:
			return &headerError{name: name, why: "is repeated"}
		}
		// Compared by digest, in constant time: neither the time nor the
		// length of the comparison tells anything of the keys.
		got := sha256.Sum256([]byte(vals[0]))
		ok := 0
		for i := range sums {
			ok |= subtle.ConstantTimeCompare(got[:], sums[i][:])
		}
		if ok != 1 {
			return &headerError{name: name, why: "does not hold a valid key"}
		}
		return nil
	}
}

// misconfigured is the refusal of a RequireHeader gate that cannot let
// any request through.
type misconfigured struct{ fault string }

func (e *misconfigured) Error() string {
	return "the server's RequireHeader gate is misconfigured (" + e.fault + "): every request is refused"
}

// headerError is RequireHeader's refusal. It never holds the value sent.
type headerError struct{ name, why string }

func (e *headerError) Error() string { return fmt.Sprintf("the %s header %s", e.name, e.why) }

// Challenge is the WWW-Authenticate value of the refusal (RFC 9110
// section 11.6.1): a 401 must carry one.
func (e *headerError) Challenge() string { return "APIKey header=" + strconv.Quote(e.name) }
