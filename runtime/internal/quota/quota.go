// Package quota bounds the sessions an MCP HTTP server (streamhttp,
// ssehttp) holds at once: in all, and per principal (the user an
// authorization layer in front of the server names), so that one user
// cannot take every place from the others.
//
// A place is taken when a session starts and given back only once the
// session has ended, its handlers returned and its streams closed: not
// when its id is forgotten (a DELETE, the idle reaper), since a handler
// may run on for a while after that, or, ignoring its context, for ever.
// Were places given back earlier, a user who ends each session as soon as
// it has started a call could hold any number of running handlers.
package quota

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/session"
)

// UnlimitedPerPrincipal is the default limit per principal of a server
// whose sessions in all are not limited: a hundredth of the transports'
// default of 10,000 sessions.
const UnlimitedPerPrincipal = 100

// minPerPrincipal is the least default limit per principal.
const minPerPrincipal = 10

// DefaultPerPrincipal returns the default limit per principal of a server
// that allows maxSessions sessions in all (negative: no limit): a
// hundredth of it, at least 10, or UnlimitedPerPrincipal.
func DefaultPerPrincipal(maxSessions int) int {
	if maxSessions < 0 {
		return UnlimitedPerPrincipal
	}
	return max(maxSessions/100, minPerPrincipal)
}

// PrincipalOf is the default principal of a request: the one an
// authorization layer in front of the server put in its context
// (session.PrincipalOf), as bearer.Protect does; "" for none.
func PrincipalOf(r *http.Request) string { return session.PrincipalOf(r.Context()) }

// Sessions counts the live sessions of a server, in all and per principal,
// within their limits. It is safe for concurrent use.
type Sessions struct {
	max, perPrincipal int // not positive: no limit

	mu    sync.Mutex
	live  int
	owned map[string]int // the live sessions of each principal that has some
}

// New returns a Sessions that admits at most max sessions at once, and at
// most perPrincipal of one principal; a limit that is not positive is
// none.
func New(max, perPrincipal int) *Sessions {
	return &Sessions{max: max, perPrincipal: perPrincipal, owned: map[string]int{}}
}

// LimitError is the error of Acquire past a limit.
type LimitError struct {
	// Max is the limit reached.
	Max int
	// PerPrincipal is set when it is the principal's limit, not the
	// server's.
	PerPrincipal bool
}

func (e *LimitError) Error() string {
	if e.PerPrincipal {
		return fmt.Sprintf("the principal has reached its limit of %d sessions at once", e.Max)
	}
	return fmt.Sprintf("the server has reached its limit of %d sessions", e.Max)
}

// Acquire takes a place for a new session of principal ("" for none, which
// counts toward the limit in all only), or returns the limit that leaves
// none (a *LimitError, not an error, so that nil is nil). Each successful
// Acquire is to be matched by one Release of the same principal, once the
// session has ended.
func (q *Sessions) Acquire(principal string) *LimitError {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.max > 0 && q.live >= q.max {
		return &LimitError{Max: q.max}
	}
	if q.perPrincipal > 0 && principal != "" && q.owned[principal] >= q.perPrincipal {
		return &LimitError{Max: q.perPrincipal, PerPrincipal: true}
	}
	q.live++
	if principal != "" {
		q.owned[principal]++
	}
	return nil
}

// Release gives back the place a session of principal took with Acquire:
// the session has ended. A Release for a principal that holds no place
// changes nothing; the count in all cannot tell which sessions it holds,
// so a caller releases each session exactly once.
func (q *Sessions) Release(principal string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if principal != "" {
		n, ok := q.owned[principal]
		if !ok {
			return // not acquired
		}
		if n <= 1 {
			delete(q.owned, principal)
		} else {
			q.owned[principal] = n - 1
		}
	}
	if q.live > 0 {
		q.live--
	}
}

// Live returns how many sessions hold a place: they have started and not
// ended yet.
func (q *Sessions) Live() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.live
}
