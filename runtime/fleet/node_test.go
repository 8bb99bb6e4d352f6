package fleet

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"
)

func TestNodeOpen(t *testing.T) {
	store := NewMemorySessionStore()
	n := NewNode(store, NewMemoryRelay())
	id, err := n.Open(context.Background(), "alice", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
		t.Errorf("session id %q, want 32 hex digits", id)
	}
	rec, err := store.Load(context.Background(), id)
	if err != nil || rec.Owner != n.ID || rec.Principal != "alice" || rec.State != nil {
		t.Errorf("record %+v, %v; want owned by %s for alice, no state", rec, err, n.ID)
	}
	if other, _ := n.Open(context.Background(), "alice", time.Minute); other == id {
		t.Error("two sessions got one id")
	}
}

// takenStore is a SessionStore on which every id is taken, or that fails.
type takenStore struct {
	SessionStore
	err error
}

func (s takenStore) Create(context.Context, string, Record, time.Duration) (bool, error) {
	return false, s.err
}

func TestNodeOpenFails(t *testing.T) {
	down := errors.New("connection refused")
	for _, tt := range []struct {
		name  string
		store SessionStore
		want  error
	}{
		{"every id taken", takenStore{}, nil},
		{"store down", takenStore{err: down}, down},
	} {
		_, err := NewNode(tt.store, nil).Open(context.Background(), "", 0)
		if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want an error (wrapping %v)", tt.name, err, tt.want)
		}
	}
}

func TestNodeContext(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	cancel()
	n := &Node{Timeout: time.Hour}
	ctx, done := n.Context(parent)
	defer done()
	if ctx.Err() != nil || ctx.Value(ctxKey{}) != "v" {
		t.Errorf("the context of a call: err %v, value %v; want the parent's values and not its cancellation", ctx.Err(), ctx.Value(ctxKey{}))
	}
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > time.Hour {
		t.Errorf("deadline %v, %v; want within Timeout", dl, ok)
	}
	ctx, done = (&Node{}).Context(context.Background())
	defer done()
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > 5*time.Second {
		t.Errorf("default deadline %v, %v; want within 5 seconds", dl, ok)
	}
}

type ctxKey struct{}
