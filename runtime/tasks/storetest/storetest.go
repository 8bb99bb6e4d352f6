// Package storetest is the contract every tasks.Store must meet, as a test
// suite. A Store implementation runs it from its own tests:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) tasks.Store {
//			return newStoreForTest(t) // empty, cleaned up with t.Cleanup
//		})
//	}
//
// The suite checks what the tasks.Store documentation promises: records
// round-trip, principals are isolated, Update is a bounded compare-and-set
// whose fn may refuse, terminal records are final (the first terminal write
// wins), Wait wakes on writes and deletions and ends with its context, Expire
// deletes exactly the records whose time to live ran out, no value is shared
// between caller and store, and concurrent updates lose nothing. Run it with
// -race.
//
// Records are compared as values: times with time.Time.Equal, raw JSON by
// its canonical form (RFC 8785), so a store may reformat JSON and drop
// monotonic clock readings and locations, but must keep times to the
// nanosecond.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// guard bounds every wait of the suite for something that must happen, so
// that a broken store fails the test instead of hanging it.
const guard = 10 * time.Second

// t0 is the creation time of the suite's records.
var t0 = time.Date(2026, 7, 28, 10, 0, 0, 123456789, time.UTC)

// Run runs the contract suite against the stores newStore makes. Each
// subtest calls newStore once and expects an empty store; newStore should
// register its cleanup with t.Cleanup.
func Run(t *testing.T, newStore func(t *testing.T) tasks.Store) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s tasks.Store)
	}{
		{"CreateGet", testCreateGet},
		{"CreateDefaults", testCreateDefaults},
		{"CreateRefused", testCreateRefused},
		{"CreateDuplicate", testCreateDuplicate},
		{"Unknown", testUnknown},
		{"Principal", testPrincipal},
		{"Update", testUpdate},
		{"UpdateRefused", testUpdateRefused},
		{"ConflictRetry", testConflictRetry},
		{"ConflictBound", testConflictBound},
		{"Terminal", testTerminal},
		{"TerminalRace", testTerminalRace},
		{"Wait", testWait},
		{"WaitWakes", testWaitWakes},
		{"WaitDeleted", testWaitDeleted},
		{"Expire", testExpire},
		{"ExpireConcurrent", testExpireConcurrent},
		{"Copies", testCopies},
		{"Concurrent", testConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newStore(t))
		})
	}
}

// newRecord returns a valid working record of principal alice, created at
// t0 with a TTL of an hour.
func newRecord() *tasks.Record {
	return &tasks.Record{
		ID:           tasks.NewID(),
		Principal:    "alice",
		Method:       "tools/call",
		Params:       jsontext.Value(`{"name":"slow_compute","arguments":{"seconds":1}}`),
		Status:       tasks.StatusWorking,
		CreatedAt:    t0,
		TTL:          time.Hour,
		PollInterval: time.Second,
	}
}

// fullRecord returns a record with every field set.
func fullRecord() *tasks.Record {
	r := newRecord()
	r.Status = tasks.StatusInputRequired
	r.StatusMessage = "waiting for the user"
	r.Outstanding = map[string]jsontext.Value{
		"confirm": jsontext.Value(`{"method":"elicitation/create","params":{"message":"Delete?"}}`),
	}
	r.Answers = map[string]jsontext.Value{
		"name": jsontext.Value(`{"action":"accept","content":{"name":"Alice"}}`),
	}
	r.Issued = []string{"name", "confirm"}
	r.CancelRequested = true
	r.Runner = "instance-1"
	r.LeaseUntil = t0.Add(30 * time.Second)
	return r
}

func create(t *testing.T, s tasks.Store, r *tasks.Record) *tasks.Record {
	t.Helper()
	got, err := s.Create(t.Context(), r)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return got
}

func get(t *testing.T, s tasks.Store, id, principal string) *tasks.Record {
	t.Helper()
	got, err := s.Get(t.Context(), id, principal)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return got
}

// same fails t when got and want differ, naming the fields.
func same(t *testing.T, what string, got, want *tasks.Record) {
	t.Helper()
	if d := diff(got, want); d != "" {
		t.Errorf("%s: record differs: %s", what, d)
	}
}

// diff lists the fields in which a and b differ, "" when none.
func diff(a, b *tasks.Record) string {
	if a == nil || b == nil {
		if a == b {
			return ""
		}
		return fmt.Sprintf("one is nil: %v vs %v", a == nil, b == nil)
	}
	var d []string
	add := func(field string, x, y any) { d = append(d, fmt.Sprintf("%s: %v vs %v", field, x, y)) }
	if a.ID != b.ID {
		add("ID", a.ID, b.ID)
	}
	if a.Principal != b.Principal {
		add("Principal", a.Principal, b.Principal)
	}
	if a.Method != b.Method {
		add("Method", a.Method, b.Method)
	}
	if !sameJSON(a.Params, b.Params) {
		add("Params", a.Params, b.Params)
	}
	if a.Status != b.Status {
		add("Status", a.Status, b.Status)
	}
	if a.StatusMessage != b.StatusMessage {
		add("StatusMessage", a.StatusMessage, b.StatusMessage)
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		add("CreatedAt", a.CreatedAt, b.CreatedAt)
	}
	if !a.UpdatedAt.Equal(b.UpdatedAt) {
		add("UpdatedAt", a.UpdatedAt, b.UpdatedAt)
	}
	if a.TTL != b.TTL {
		add("TTL", a.TTL, b.TTL)
	}
	if a.PollInterval != b.PollInterval {
		add("PollInterval", a.PollInterval, b.PollInterval)
	}
	if a.Version != b.Version {
		add("Version", a.Version, b.Version)
	}
	if !sameMap(a.Outstanding, b.Outstanding) {
		add("Outstanding", a.Outstanding, b.Outstanding)
	}
	if !sameMap(a.Answers, b.Answers) {
		add("Answers", a.Answers, b.Answers)
	}
	if !slices.Equal(a.Issued, b.Issued) {
		add("Issued", a.Issued, b.Issued)
	}
	if a.CancelRequested != b.CancelRequested {
		add("CancelRequested", a.CancelRequested, b.CancelRequested)
	}
	if !sameJSON(a.Result, b.Result) {
		add("Result", a.Result, b.Result)
	}
	if !sameJSON(a.Error, b.Error) {
		add("Error", a.Error, b.Error)
	}
	if a.Runner != b.Runner {
		add("Runner", a.Runner, b.Runner)
	}
	if !a.LeaseUntil.Equal(b.LeaseUntil) {
		add("LeaseUntil", a.LeaseUntil, b.LeaseUntil)
	}
	return strings.Join(d, "; ")
}

// sameJSON reports whether a and b are the same JSON value (both empty
// counts as the same).
func sameJSON(a, b jsontext.Value) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	ca, cb := a.Clone(), b.Clone()
	if ca.Canonicalize() != nil || cb.Canonicalize() != nil {
		return false
	}
	return string(ca) == string(cb)
}

func sameMap(a, b map[string]jsontext.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !sameJSON(v, w) {
			return false
		}
	}
	return true
}

// within runs f in a goroutine and fails t if it has not returned within
// the guard.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(guard):
		t.Fatalf("%s did not return within %v", what, guard)
	}
}

func testCreateGet(t *testing.T, s tasks.Store) {
	in := fullRecord()
	orig := in.Clone()
	want := in.Clone()
	want.Version = 1
	want.UpdatedAt = in.CreatedAt
	got := create(t, s, in)
	same(t, "Create's result", got, want)
	same(t, "Get", get(t, s, in.ID, "alice"), want)
	same(t, "Create's argument afterwards", in, orig)

	// A record may be created in any status, terminal included.
	done := newRecord()
	done.Status = tasks.StatusCompleted
	done.Result = jsontext.Value(`{"content":[{"type":"text","text":"done"}]}`)
	got = create(t, s, done)
	if got.Status != tasks.StatusCompleted || got.Version != 1 {
		t.Errorf("Create of a completed record: status %s version %d, want completed 1", got.Status, got.Version)
	}
}

func testCreateDefaults(t *testing.T, s tasks.Store) {
	in := newRecord()
	in.CreatedAt = time.Time{}
	in.Version = 42
	in.UpdatedAt = t0.Add(-time.Hour)
	got := create(t, s, in)
	if got.CreatedAt.IsZero() {
		t.Errorf("Create left CreatedAt zero; want the store's now")
	}
	if !got.UpdatedAt.Equal(got.CreatedAt) {
		t.Errorf("Create: UpdatedAt %v, want CreatedAt %v", got.UpdatedAt, got.CreatedAt)
	}
	if got.Version != 1 {
		t.Errorf("Create: Version %d, want 1 whatever the caller set", got.Version)
	}
	same(t, "Get", get(t, s, in.ID, "alice"), got)
}

func testCreateRefused(t *testing.T, s tasks.Store) {
	tests := []struct {
		name string
		edit func(r *tasks.Record)
	}{
		{"empty id", func(r *tasks.Record) { r.ID = "" }},
		{"unknown status", func(r *tasks.Record) { r.Status = "done" }},
		{"negative ttl", func(r *tasks.Record) { r.TTL = -time.Second }},
		{"sub-millisecond ttl", func(r *tasks.Record) { r.TTL = time.Second + time.Microsecond }},
		{"params not json", func(r *tasks.Record) { r.Params = jsontext.Value(`{"name":`) }},
		{"params an array", func(r *tasks.Record) { r.Params = jsontext.Value(`[]`) }},
		{"completed without result", func(r *tasks.Record) { r.Status = tasks.StatusCompleted }},
		{"result while working", func(r *tasks.Record) { r.Result = jsontext.Value(`{"content":[]}`) }},
		{"failed without error", func(r *tasks.Record) { r.Status = tasks.StatusFailed }},
		{"outstanding not an object", func(r *tasks.Record) {
			r.Outstanding = map[string]jsontext.Value{"k": jsontext.Value(`"x"`)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecord()
			tt.edit(r)
			got, err := s.Create(t.Context(), r)
			if err == nil {
				t.Fatalf("Create succeeded with %+v, want an error", got)
			}
			if errors.Is(err, tasks.ErrConflict) || errors.Is(err, tasks.ErrNotFound) {
				t.Errorf("Create: %v; want a validation error, not a conflict or not-found", err)
			}
			if r.ID != "" {
				if _, err := s.Get(t.Context(), r.ID, r.Principal); !errors.Is(err, tasks.ErrNotFound) {
					t.Errorf("Get after a refused Create: %v, want ErrNotFound", err)
				}
			}
		})
	}
}

func testCreateDuplicate(t *testing.T, s tasks.Store) {
	first := create(t, s, newRecord())
	again := newRecord()
	again.ID = first.ID
	again.Principal = "bob"
	again.StatusMessage = "impostor"
	if _, err := s.Create(t.Context(), again); !errors.Is(err, tasks.ErrConflict) {
		t.Fatalf("Create with an id in use: %v, want ErrConflict", err)
	}
	same(t, "the first record after the duplicate", get(t, s, first.ID, "alice"), first)
	if _, err := s.Get(t.Context(), first.ID, "bob"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get as the duplicate's principal: %v, want ErrNotFound", err)
	}
}

func testUnknown(t *testing.T, s tasks.Store) {
	create(t, s, newRecord())
	id := tasks.NewID()
	ctx := t.Context()
	called := false
	calls := []struct {
		name string
		call func() error
	}{
		{"Get", func() error { _, err := s.Get(ctx, id, "alice"); return err }},
		{"Update", func() error {
			_, err := s.Update(ctx, id, "alice", func(*tasks.Record) error { called = true; return nil })
			return err
		}},
		{"Wait", func() error { _, err := s.Wait(ctx, id, "alice", 0); return err }},
	}
	for _, c := range calls {
		var err error
		within(t, c.name, func() { err = c.call() })
		if !errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("%s of an unknown id: %v, want ErrNotFound", c.name, err)
		}
	}
	if called {
		t.Errorf("Update of an unknown id called fn")
	}
}

func testPrincipal(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	alices := create(t, s, newRecord())
	anon := newRecord()
	anon.Principal = ""
	anons := create(t, s, anon)
	// A terminal record of another principal is not found either: an
	// ErrTerminal would tell the caller that the id exists.
	ended, err := s.Update(ctx, create(t, s, newRecord()).ID, "alice", finish(tasks.StatusCompleted))
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	tests := []struct {
		id, principal string
	}{
		{alices.ID, "bob"},
		{alices.ID, ""},
		{alices.ID, "Alice"},
		{anons.ID, "alice"},
		{ended.ID, "bob"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%d %q", i, tt.principal), func(t *testing.T) {
			if _, err := s.Get(ctx, tt.id, tt.principal); !errors.Is(err, tasks.ErrNotFound) {
				t.Errorf("Get: %v, want ErrNotFound", err)
			}
			called := false
			_, err := s.Update(ctx, tt.id, tt.principal, func(r *tasks.Record) error {
				called = true
				r.CancelRequested = true
				return nil
			})
			if !errors.Is(err, tasks.ErrNotFound) {
				t.Errorf("Update: %v, want ErrNotFound", err)
			}
			if called {
				t.Errorf("Update called fn with another principal's record")
			}
			within(t, "Wait", func() {
				if _, err := s.Wait(ctx, tt.id, tt.principal, 0); !errors.Is(err, tasks.ErrNotFound) {
					t.Errorf("Wait: %v, want ErrNotFound", err)
				}
			})
		})
	}
	same(t, "alice's record", get(t, s, alices.ID, "alice"), alices)
	same(t, "the anonymous record", get(t, s, anons.ID, ""), anons)
}

func testUpdate(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	first := create(t, s, newRecord())
	ask := jsontext.Value(`{"method":"elicitation/create","params":{"message":"Proceed?"}}`)
	got, err := s.Update(ctx, first.ID, "alice", func(r *tasks.Record) error {
		if r.Version != 1 || r.Status != tasks.StatusWorking {
			return fmt.Errorf("fn got version %d status %s, want 1 working", r.Version, r.Status)
		}
		r.Status = tasks.StatusInputRequired
		r.Outstanding = map[string]jsontext.Value{"proceed": ask}
		r.Issued = append(r.Issued, "proceed")
		r.Version = 99                        // the store's to set
		r.UpdatedAt = t0.Add(-24 * time.Hour) // likewise
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want := first.Clone()
	want.Status = tasks.StatusInputRequired
	want.Outstanding = map[string]jsontext.Value{"proceed": ask}
	want.Issued = []string{"proceed"}
	want.Version = 2
	want.UpdatedAt = got.UpdatedAt
	same(t, "Update's result", got, want)
	if got.UpdatedAt.Before(first.UpdatedAt) {
		t.Errorf("UpdatedAt went back from %v to %v", first.UpdatedAt, got.UpdatedAt)
	}
	same(t, "Get after Update", get(t, s, first.ID, "alice"), got)

	// Each update is one more version, and UpdatedAt never goes back.
	prev := got
	for i := range 3 {
		got, err = s.Update(ctx, first.ID, "alice", func(r *tasks.Record) error {
			r.StatusMessage = fmt.Sprint("step ", i)
			return nil
		})
		if err != nil {
			t.Fatalf("Update %d: %v", i, err)
		}
		if got.Version != prev.Version+1 || got.UpdatedAt.Before(prev.UpdatedAt) {
			t.Errorf("Update %d: version %d at %v after version %d at %v", i, got.Version, got.UpdatedAt, prev.Version, prev.UpdatedAt)
		}
		prev = got
	}
}

func testUpdateRefused(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	refusal := errors.New("no thanks")
	tests := []struct {
		name string
		fn   func(r *tasks.Record) error
		is   error // the error Update must return, when not just any
	}{
		{"fn refuses", func(r *tasks.Record) error { r.StatusMessage = "half-done"; return refusal }, refusal},
		{"id changed", func(r *tasks.Record) error { r.ID = tasks.NewID(); return nil }, nil},
		{"principal changed", func(r *tasks.Record) error { r.Principal = "bob"; return nil }, nil},
		{"createdAt changed", func(r *tasks.Record) error { r.CreatedAt = r.CreatedAt.Add(time.Hour); return nil }, nil},
		{"unknown status", func(r *tasks.Record) error { r.Status = "paused"; return nil }, nil},
		{"completed without result", func(r *tasks.Record) error { r.Status = tasks.StatusCompleted; return nil }, nil},
		{"error without failed", func(r *tasks.Record) error {
			r.Error = jsontext.Value(`{"code":-32603,"message":"boom"}`)
			return nil
		}, nil},
		{"answer not json", func(r *tasks.Record) error {
			r.Answers = map[string]jsontext.Value{"k": jsontext.Value(`{"a":1,"a":2}`)}
			return nil
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := create(t, s, newRecord())
			got, err := s.Update(ctx, before.ID, "alice", tt.fn)
			if err == nil {
				t.Fatalf("Update succeeded with %+v, want an error", got)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Update: %v, want fn's error %v", err, tt.is)
			}
			for _, e := range []error{tasks.ErrNotFound, tasks.ErrConflict, tasks.ErrTerminal} {
				if errors.Is(err, e) {
					t.Errorf("Update: %v; must not be %v", err, e)
				}
			}
			same(t, "the record after a refused update", get(t, s, before.ID, "alice"), before)
		})
	}
}

func testConflictRetry(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	r := create(t, s, newRecord())
	calls := 0
	got, err := s.Update(ctx, r.ID, "alice", func(x *tasks.Record) error {
		calls++
		if calls == 1 {
			// Another writer gets in between this read and its write.
			if _, err := s.Update(ctx, r.ID, "alice", func(y *tasks.Record) error {
				y.CancelRequested = true
				return nil
			}); err != nil {
				return fmt.Errorf("the interfering update: %w", err)
			}
		}
		x.StatusMessage = "outer"
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if calls != 2 {
		t.Errorf("fn called %d times, want 2: once, then once more after losing the compare-and-set", calls)
	}
	if got.Version != 3 || !got.CancelRequested || got.StatusMessage != "outer" {
		t.Errorf("after the retry: version %d cancelRequested %v statusMessage %q; want 3 true \"outer\" (both writes kept)",
			got.Version, got.CancelRequested, got.StatusMessage)
	}
	same(t, "Get", get(t, s, r.ID, "alice"), got)
}

func testConflictBound(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	r := create(t, s, newRecord())
	const most = 1000 // a bound a store must stay far below
	calls := 0
	_, err := s.Update(ctx, r.ID, "alice", func(x *tasks.Record) error {
		calls++
		if calls > most {
			return errors.New("called too often")
		}
		// Every attempt loses against another write.
		_, err := s.Update(ctx, r.ID, "alice", func(y *tasks.Record) error {
			y.StatusMessage = fmt.Sprint("interference ", calls)
			return nil
		})
		x.StatusMessage = "outer"
		return err
	})
	if !errors.Is(err, tasks.ErrConflict) {
		t.Fatalf("Update losing every compare-and-set: %v, want ErrConflict", err)
	}
	if calls < 2 || calls > most {
		t.Errorf("fn called %d times; want a retry or more, at most %d", calls, most)
	}
	got := get(t, s, r.ID, "alice")
	if got.StatusMessage == "outer" || got.Version != uint64(1+calls) {
		t.Errorf("after the conflict: statusMessage %q version %d; want the interfering writes only (version %d)",
			got.StatusMessage, got.Version, 1+calls)
	}
}

// finish returns an fn that ends a task in status st.
func finish(st tasks.Status) func(r *tasks.Record) error {
	return func(r *tasks.Record) error {
		r.Status = st
		switch st {
		case tasks.StatusCompleted:
			r.Result = jsontext.Value(`{"content":[{"type":"text","text":"42"}]}`)
		case tasks.StatusFailed:
			r.Error = jsontext.Value(`{"code":-32603,"message":"internal error"}`)
		case tasks.StatusCancelled:
			r.StatusMessage = "cancelled by the client"
		}
		return nil
	}
}

func testTerminal(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	requestCancel := func(r *tasks.Record) error { r.CancelRequested = true; return nil }
	tests := []struct {
		name  string
		first tasks.Status
		then  func(r *tasks.Record) error
	}{
		{"cancel after complete", tasks.StatusCompleted, finish(tasks.StatusCancelled)},
		{"cancel request after complete", tasks.StatusCompleted, requestCancel},
		{"complete after cancel", tasks.StatusCancelled, finish(tasks.StatusCompleted)},
		{"fail after cancel", tasks.StatusCancelled, finish(tasks.StatusFailed)},
		{"complete after fail", tasks.StatusFailed, finish(tasks.StatusCompleted)},
		{"back to working after complete", tasks.StatusCompleted, func(r *tasks.Record) error {
			r.Status, r.Result = tasks.StatusWorking, nil
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := create(t, s, newRecord())
			done, err := s.Update(ctx, r.ID, "alice", finish(tt.first))
			if err != nil {
				t.Fatalf("first terminal write: %v", err)
			}
			called := false
			_, err = s.Update(ctx, r.ID, "alice", func(x *tasks.Record) error {
				called = true
				return tt.then(x)
			})
			if !errors.Is(err, tasks.ErrTerminal) {
				t.Errorf("write after %s: %v, want ErrTerminal", tt.first, err)
			}
			if called {
				t.Errorf("Update called fn with a terminal record")
			}
			same(t, "the terminal record", get(t, s, r.ID, "alice"), done)
		})
	}
}

func testTerminalRace(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	const rounds = 20
	for i := range rounds {
		r := create(t, s, newRecord())
		ends := []tasks.Status{tasks.StatusCompleted, tasks.StatusCancelled}
		errs := make([]error, len(ends))
		var start, wg sync.WaitGroup
		start.Add(1)
		for j, st := range ends {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start.Wait()
				_, errs[j] = s.Update(ctx, r.ID, "alice", finish(st))
			}()
		}
		start.Done()
		within(t, "the racing updates", wg.Wait)
		var winner tasks.Status
		for j, err := range errs {
			switch {
			case err == nil && winner == "":
				winner = ends[j]
			case err == nil:
				t.Fatalf("round %d: both %s and %s were written; the first terminal write must win", i, winner, ends[j])
			case !errors.Is(err, tasks.ErrTerminal):
				t.Fatalf("round %d: the losing %s: %v, want ErrTerminal", i, ends[j], err)
			}
		}
		if winner == "" {
			t.Fatalf("round %d: neither terminal write succeeded: %v", i, errs)
		}
		got := get(t, s, r.ID, "alice")
		if got.Status != winner || got.Version != 2 {
			t.Fatalf("round %d: stored status %s version %d, want the winner %s at version 2", i, got.Status, got.Version, winner)
		}
	}
}

func testWait(t *testing.T, s tasks.Store) {
	r := create(t, s, newRecord())
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	short, stop := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer stop()
	tests := []struct {
		name    string
		ctx     context.Context
		after   uint64
		version uint64 // the version Wait returns, 0 for none
		is      error
	}{
		{"already newer", t.Context(), 0, 1, nil},
		{"ended context", cancelled, 1, 0, context.Canceled},
		{"deadline", short, 1, 0, context.DeadlineExceeded},
		{"far ahead, ended context", cancelled, 7, 0, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *tasks.Record
			var err error
			within(t, "Wait", func() { got, err = s.Wait(tt.ctx, r.ID, "alice", tt.after) })
			if tt.is != nil {
				if !errors.Is(err, tt.is) {
					t.Errorf("Wait: %v, want %v", err, tt.is)
				}
				return
			}
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if got.Version != tt.version {
				t.Errorf("Wait returned version %d, want %d", got.Version, tt.version)
			}
		})
	}
}

func testWaitWakes(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	r := create(t, s, newRecord())
	const writes = 5
	for v := uint64(1); v <= writes; v++ {
		type result struct {
			r   *tasks.Record
			err error
		}
		ch := make(chan result, 1)
		go func() {
			w, err := s.Wait(ctx, r.ID, "alice", v)
			ch <- result{w, err}
		}()
		written, err := s.Update(ctx, r.ID, "alice", func(x *tasks.Record) error {
			x.StatusMessage = fmt.Sprint("write ", v)
			return nil
		})
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
		select {
		case res := <-ch:
			if res.err != nil {
				t.Fatalf("Wait after version %d: %v", v, res.err)
			}
			same(t, "what Wait returned", res.r, written)
		case <-time.After(guard):
			t.Fatalf("Wait after version %d did not wake within %v of the write", v, guard)
		}
	}

	// A cancelled context ends a parked Wait.
	wctx, cancel := context.WithCancel(ctx)
	ch := make(chan error, 1)
	go func() {
		_, err := s.Wait(wctx, r.ID, "alice", writes+1)
		ch <- err
	}()
	cancel()
	select {
	case err := <-ch:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Wait with its context cancelled: %v, want context.Canceled", err)
		}
	case <-time.After(guard):
		t.Fatalf("Wait did not return within %v of its context's cancellation", guard)
	}
}

func testWaitDeleted(t *testing.T, s tasks.Store) {
	r := create(t, s, newRecord())
	ch := make(chan error, 1)
	go func() {
		_, err := s.Wait(t.Context(), r.ID, "alice", 1)
		ch <- err
	}()
	ids, err := s.Expire(t.Context(), t0.Add(r.TTL+time.Millisecond))
	if err != nil || !slices.Equal(ids, []string{r.ID}) {
		t.Fatalf("Expire: %d ids, %v; want the record's id", len(ids), err)
	}
	select {
	case err := <-ch:
		if !errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("Wait on a record deleted meanwhile: %v, want ErrNotFound", err)
		}
	case <-time.After(guard):
		t.Fatalf("Wait did not return within %v of its record's deletion", guard)
	}
}

func testExpire(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	type rec struct {
		name   string
		ttl    time.Duration
		status tasks.Status
	}
	recs := []rec{
		{"hour working", time.Hour, tasks.StatusWorking},
		{"hour input_required", time.Hour, tasks.StatusInputRequired},
		{"hour completed", time.Hour, tasks.StatusCompleted},
		{"hour cancelled", time.Hour, tasks.StatusCancelled},
		{"two hours failed", 2 * time.Hour, tasks.StatusFailed},
		{"unlimited working", 0, tasks.StatusWorking},
		{"unlimited completed", 0, tasks.StatusCompleted},
	}
	ids := map[string]string{} // name -> id
	for _, r := range recs {
		x := newRecord()
		x.TTL = r.ttl
		if r.status != tasks.StatusWorking {
			if err := finish(r.status)(x); err != nil {
				t.Fatal(err)
			}
		}
		ids[r.name] = create(t, s, x).ID
	}
	steps := []struct {
		now     time.Time
		deleted []string
	}{
		{t0, nil},
		{t0.Add(time.Hour - time.Millisecond), nil},
		{t0.Add(time.Hour), nil}, // not before the TTL has run out
		{t0.Add(time.Hour + time.Millisecond), []string{"hour working", "hour input_required", "hour completed", "hour cancelled"}},
		{t0.Add(time.Hour + time.Second), nil},
		{t0.Add(2*time.Hour + time.Millisecond), []string{"two hours failed"}},
		{t0.Add(100 * 365 * 24 * time.Hour), nil},
	}
	gone := map[string]bool{}
	for _, st := range steps {
		got, err := s.Expire(ctx, st.now)
		if err != nil {
			t.Fatalf("Expire at %v: %v", st.now, err)
		}
		var want []string
		for _, name := range st.deleted {
			want = append(want, ids[name])
			gone[name] = true
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("Expire at t0+%v deleted %v, want %v", st.now.Sub(t0), names(ids, got), st.deleted)
		}
		for _, r := range recs {
			_, err := s.Get(ctx, ids[r.name], "alice")
			if gone[r.name] != errors.Is(err, tasks.ErrNotFound) {
				t.Errorf("after Expire at t0+%v: Get of %s: %v (expired %v)", st.now.Sub(t0), r.name, err, gone[r.name])
			}
		}
	}
}

// names returns the record names of ids, for messages that must not show
// task ids.
func names(ids map[string]string, got []string) []string {
	var out []string
	for _, id := range got {
		name := "an unknown id"
		for n, x := range ids {
			if x == id {
				name = n
			}
		}
		out = append(out, name)
	}
	return out
}

func testExpireConcurrent(t *testing.T, s tasks.Store) {
	const n, callers = 20, 4
	want := make([]string, 0, n)
	for range n {
		want = append(want, create(t, s, newRecord()).ID)
	}
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids, err := s.Expire(t.Context(), t0.Add(2*time.Hour))
			if err != nil {
				t.Errorf("Expire: %v", err)
			}
			mu.Lock()
			got = append(got, ids...)
			mu.Unlock()
		}()
	}
	within(t, "the concurrent Expire calls", wg.Wait)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("concurrent Expire calls returned %d ids in all, want each of the %d expired ids once", len(got), len(want))
	}
}

func testCopies(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	in := fullRecord()
	out := create(t, s, in)
	want := out.Clone()
	scribble(in)
	scribble(out)
	same(t, "after changing Create's argument and result", get(t, s, want.ID, "alice"), want)

	g := get(t, s, want.ID, "alice")
	scribble(g)
	same(t, "after changing Get's result", get(t, s, want.ID, "alice"), want)

	var kept *tasks.Record
	u, err := s.Update(ctx, want.ID, "alice", func(r *tasks.Record) error {
		kept = r
		r.Outstanding["more"] = jsontext.Value(`{"method":"roots/list"}`)
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want = u.Clone()
	scribble(u)
	scribble(kept)
	same(t, "after changing Update's result and fn's record", get(t, s, want.ID, "alice"), want)

	w, err := s.Wait(ctx, want.ID, "alice", 0)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	scribble(w)
	same(t, "after changing Wait's result", get(t, s, want.ID, "alice"), want)
}

// scribble changes r in place everywhere a shared value could hide: the
// bytes of raw JSON, map entries and slice elements.
func scribble(r *tasks.Record) {
	for _, v := range [][]byte{r.Params, r.Result, r.Error} {
		for i := range v {
			v[i] = ' '
		}
	}
	for _, m := range []map[string]jsontext.Value{r.Outstanding, r.Answers} {
		for _, k := range slices.Collect(maps.Keys(m)) {
			v := m[k]
			for i := range v {
				v[i] = ' '
			}
			m[k+"-x"] = v
		}
	}
	for i := range r.Issued {
		r.Issued[i] = "scribbled"
	}
	r.StatusMessage = "scribbled"
	r.Version = 1000
}

func testConcurrent(t *testing.T, s tasks.Store) {
	ctx := t.Context()
	r := create(t, s, newRecord())
	const writers, writes, tries = 6, 15, 50
	var mu sync.Mutex
	written := map[string]bool{}
	var wg, readers sync.WaitGroup
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				key := fmt.Sprintf("w%d-%d", g, i)
				for range tries {
					_, err := s.Update(ctx, r.ID, "alice", func(x *tasks.Record) error {
						if x.Answers == nil {
							x.Answers = map[string]jsontext.Value{}
						}
						x.Answers[key] = jsontext.Value(`{"action":"accept"}`)
						x.Issued = append(x.Issued, key)
						return nil
					})
					if errors.Is(err, tasks.ErrConflict) {
						continue
					}
					if err != nil {
						t.Errorf("Update %s: %v", key, err)
						return
					}
					mu.Lock()
					written[key] = true
					mu.Unlock()
					break
				}
			}
		}()
	}
	// Readers alongside, until the writers are done: Get and Wait see
	// versions that never go back, each with one answer per write.
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			var seen uint64
			for range writers * writes {
				w, err := s.Wait(rctx, r.ID, "alice", seen)
				if errors.Is(err, context.Canceled) && rctx.Err() != nil {
					return
				}
				if err != nil {
					t.Errorf("Wait: %v", err)
					return
				}
				g, err := s.Get(ctx, r.ID, "alice")
				if err != nil {
					t.Errorf("Get: %v", err)
					return
				}
				if w.Version <= seen || g.Version < w.Version || len(w.Answers) != int(w.Version-1) {
					t.Errorf("after version %d: Wait gave version %d with %d answers, then Get version %d",
						seen, w.Version, len(w.Answers), g.Version)
					return
				}
				seen = w.Version
			}
		}()
	}
	within(t, "the concurrent writers", wg.Wait)
	stop()
	within(t, "the readers", readers.Wait)
	if t.Failed() {
		return
	}
	got := get(t, s, r.ID, "alice")
	if len(written) == 0 {
		t.Fatalf("no update succeeded")
	}
	if got.Version != uint64(1+len(written)) {
		t.Errorf("version %d after %d successful updates, want %d: a write was lost or doubled", got.Version, len(written), 1+len(written))
	}
	if len(got.Answers) != len(written) || len(got.Issued) != len(written) {
		t.Errorf("%d answers and %d issued keys after %d successful updates", len(got.Answers), len(got.Issued), len(written))
	}
	for key := range written {
		if _, ok := got.Answers[key]; !ok {
			t.Errorf("the successful update %s is missing", key)
		}
	}
}
