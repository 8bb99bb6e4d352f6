// Package tasks is the state of the tasks of the MCP Tasks extension
// (io.modelcontextprotocol/tasks): the Record of one task, the Store that
// keeps records, and MemoryStore, the Store of a single process.
//
// A Store is the seam between a server's task engine and the place task
// state lives. The engine, on any instance of a server, creates a record
// when it turns a tools/call into a task, updates it as the task runs (status,
// input requests and their answers, a request to cancel, the outcome), and
// waits on it to learn of those changes; tasks/get, tasks/update and
// tasks/cancel read and write it. Because a shared store may live outside the
// process (a database, Redis), a Record holds only plain data with a fixed
// JSON form, and every method takes a context.
//
// The package knows nothing of the protocol's generated types: input
// requests, answers, results and errors are kept as raw JSON. The extension
// (SEP-2663) is specified at
// https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"
)

// Status is the state of a task, as the extension names it on the wire.
type Status string

// The statuses of a task. A task starts working, moves between working
// and input_required, and ends in one of the three terminal statuses, which
// are final.
const (
	// StatusWorking: the task is running.
	StatusWorking Status = "working"
	// StatusInputRequired: the task waits for answers to its input requests
	// (Record.Outstanding).
	StatusInputRequired Status = "input_required"
	// StatusCompleted: the tool returned; Record.Result holds its result
	// (a tool error, isError true, is a completed task too).
	StatusCompleted Status = "completed"
	// StatusFailed: the task ended in a protocol error; Record.Error holds
	// the JSON-RPC error object.
	StatusFailed Status = "failed"
	// StatusCancelled: the task was cancelled before it ended otherwise.
	StatusCancelled Status = "cancelled"
)

// Terminal reports whether s is completed, failed or cancelled: a record in
// a terminal status never changes again.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// valid reports whether s is one of the five statuses.
func (s Status) valid() bool {
	return s == StatusWorking || s == StatusInputRequired || s.Terminal()
}

// Errors a Store returns, wrapped with what was being done; test for them
// with errors.Is. Their messages never include a task id or a principal:
// without a principal the id is the only secret that guards a task.
var (
	// ErrNotFound: no record has that id, or it was deleted (expired), or it
	// belongs to another principal. The three cases are indistinguishable
	// on purpose, so that a caller cannot probe for other principals' ids.
	ErrNotFound = errors.New("no such task (unknown, expired, or not the caller's)")
	// ErrConflict: a write lost against another one: Create found the id in
	// use (make a new id), or Update kept losing its compare-and-set past
	// its bound of attempts (read again and retry later).
	ErrConflict = errors.New("conflicting write")
	// ErrTerminal: the record is completed, failed or cancelled, and a
	// terminal record is final: the write was refused and nothing changed.
	// A cancel arriving after the outcome was written gets this, as does an
	// outcome arriving after a cancel was written.
	ErrTerminal = errors.New("a terminal task cannot change")
	// ErrFull: the store holds as many tasks as it may; Create refuses new
	// ones until records expire.
	ErrFull = errors.New("task store is full")
)

// Store keeps task records. Implementations must be safe for concurrent use
// by many goroutines, and, for a store shared by several server instances,
// by many processes: every guarantee below holds across all of them.
//
// Every record belongs to a principal, the opaque owner string the server
// derives from the request's authentication ("" for an unauthenticated
// server, where the unguessable id is what guards the task). Get, Update and
// Wait check it inside the store, so a caller cannot forget to: a record of
// another principal is reported as ErrNotFound, exactly as an absent one.
//
// A Store never hands out or keeps references to the caller's values: what
// goes in is copied, what comes out is a fresh copy the caller may modify.
// Raw JSON comes back as the same JSON value, though a store may change its
// spacing and member order; times come back equal to the nanosecond
// (time.Time.Equal), though not necessarily in the same location.
//
// A method whose context ends before it is done fails with an error wrapping
// the context's error. A write that was under way then may or may not have
// been made (a remote store cannot always tell): read the record to know.
type Store interface {
	// Create stores a new record and returns the stored copy. The store
	// sets Version to 1, CreatedAt to its clock's now when r's is zero, and
	// UpdatedAt to CreatedAt; the other fields are kept as given. r must be
	// valid (see Record.Validate); its status may be any, terminal included.
	//
	// Create returns only once the record is durable: a Get, Update or Wait
	// on any instance that starts after Create returned sees it. An id already
	// in use is an error wrapping ErrConflict, and the existing record is
	// left untouched. A store that may hold only so many records refuses with
	// an error wrapping ErrFull.
	Create(ctx context.Context, r *Record) (*Record, error)

	// Get returns the record with the given id. It fails with ErrNotFound
	// when there is none, when it was deleted, or when its Principal is not
	// principal. A record stays readable until it is deleted, which is never
	// before its time to live has run out (see Expire).
	Get(ctx context.Context, id, principal string) (*Record, error)

	// Update changes the record with the given id by compare-and-set. It
	// reads the record, calls fn with a copy of it, and writes the copy back
	// only if the stored Version is still the one read; if another write came
	// first, it reads again and calls fn again, at most a bounded number of
	// times, then fails with ErrConflict. fn may therefore run more than once
	// and must decide from the record it is given alone; it runs with no
	// lock of the store held, so it may call the store.
	//
	// fn returning an error aborts the update: nothing is written, and that
	// error is returned unchanged. A record that is terminal when read fails
	// with ErrTerminal without calling fn, so the first terminal write wins
	// and later ones (a late cancel, a late result) change nothing. fn must
	// not change ID, Principal or CreatedAt, and the record it leaves must be
	// valid (see Record.Validate), or Update fails and writes nothing. The
	// store sets Version to one more than the version read and UpdatedAt to
	// its clock's now (never earlier than the previous UpdatedAt); changes fn
	// makes to those two are overwritten.
	//
	// On success Update returns a copy of the record as written, and every
	// Wait on the record wakes. An absent record, or one of another
	// principal, is ErrNotFound, and fn is not called; the principal is
	// checked first, so that another principal's terminal record is
	// ErrNotFound too, not ErrTerminal.
	Update(ctx context.Context, id, principal string, fn func(*Record) error) (*Record, error)

	// Wait returns the record once its Version exceeds after: at once if it
	// already does, otherwise when a write (on any instance) makes it so. It
	// fails with ErrNotFound when the record is absent, belongs to another
	// principal, or is deleted while Wait waits, and with ctx's error when ctx
	// ends first. It is how a running task learns of answers and of a cancel,
	// and how a poller learns of a new status, without polling the store.
	// A terminal record changes no more, so a caller should stop waiting once
	// it has seen one.
	Wait(ctx context.Context, id, principal string, after uint64) (*Record, error)

	// Expire deletes every record whose time to live has run out at now (a
	// TTL above zero, and now after CreatedAt+TTL), terminal or not, and
	// returns their ids in no particular order. A record is never deleted
	// before that moment. Waits on a deleted record fail with ErrNotFound,
	// which is how the instance running a deleted task learns to stop it.
	// When several callers expire at once, each deleted id is returned to
	// one of them only. A store may also delete records whose time to live
	// has run out on its own (to make room, or as keys that expire by
	// themselves); Expire does not return those. The ids are secrets: do not
	// log them.
	Expire(ctx context.Context, now time.Time) ([]string, error)
}

// NewID returns a new task id: 128 bits from crypto/rand, encoded as
// unpadded base64url (RFC 4648 section 5), 22 characters that are safe in
// an HTTP header (Mcp-Name) and a URL. The ids are unguessable, as the
// extension requires, since an id may be all that guards a task.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails; it aborts the program if the system's source does
	return base64.RawURLEncoding.EncodeToString(b[:])
}
