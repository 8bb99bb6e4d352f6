// Package fleettest is the contract every fleet.SessionStore and
// fleet.Relay must meet, as test suites. An implementation runs them from
// its own tests:
//
//	func TestSessionStoreContract(t *testing.T) {
//		fleettest.RunSessionStore(t, func(t *testing.T) fleet.SessionStore {
//			return newStoreForTest(t) // empty, cleaned up with t.Cleanup
//		})
//	}
//
//	func TestRelayContract(t *testing.T) {
//		fleettest.RunRelay(t, func(t *testing.T) (a, b fleet.Relay) {
//			return newRelayPairForTest(t) // two instances on one engine
//		})
//	}
//
// RunSessionStore checks what fleet.SessionStore documents: Create does not
// overwrite, Load of a missing record wraps fleet.ErrNotFound, Save writes
// only for the owner and renews the time to live, Claim is a
// compare-and-set whose racers all see the one winner, Delete is
// idempotent, records expire with their time to live, and the state
// round-trips byte for byte. RunRelay checks what fleet.Relay documents:
// Send reports whether anyone listened, one sender's messages arrive in
// order and whole, every listener of an address gets each message, stop
// ends delivery, and two instances of one engine reach each other.
//
// Time to live is checked with real, short times (a few hundred
// milliseconds) and polling bounded in time, so that a store whose engine
// expires keys by the wall clock (as Redis does) can run the suite. Run it
// with -race.
package fleettest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/fleet"
)

// guard bounds every wait of the suites for something that must happen,
// so that a broken implementation fails the test instead of hanging it.
const guard = 10 * time.Second

// shortTTL is the time to live of the records that the suite waits to
// see expire.
const shortTTL = 200 * time.Millisecond

// id returns a new random session id.
func id() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// eventually calls cond every few milliseconds until it returns true, and
// fails t with what if it has not within guard.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so within %v", what, guard)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// RunSessionStore runs the SessionStore contract suite against the stores
// newStore makes. Each subtest calls newStore once and expects an empty
// store; newStore should register its cleanup with t.Cleanup.
func RunSessionStore(t *testing.T, newStore func(t *testing.T) fleet.SessionStore) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s fleet.SessionStore)
	}{
		{"CreateLoad", testCreateLoad},
		{"CreateTaken", testCreateTaken},
		{"LoadMissing", testLoadMissing},
		{"Save", testSave},
		{"SaveNotOwner", testSaveNotOwner},
		{"SaveMissing", testSaveMissing},
		{"Claim", testClaim},
		{"ClaimLost", testClaimLost},
		{"ClaimMissing", testClaimMissing},
		{"ClaimRace", testClaimRace},
		{"Delete", testDelete},
		{"Expire", testExpire},
		{"NoTTL", testNoTTL},
		{"SaveRenews", testSaveRenews},
		{"ClaimRenews", testClaimRenews},
		{"SaveRefusedKeepsTTL", testSaveRefusedKeepsTTL},
		{"State", testState},
		{"Copies", testCopies},
		{"Isolated", testIsolated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newStore(t))
		})
	}
}

func create(t *testing.T, s fleet.SessionStore, id string, rec fleet.Record, ttl time.Duration) {
	t.Helper()
	ok, err := s.Create(t.Context(), id, rec, ttl)
	if err != nil || !ok {
		t.Fatalf("Create = %v, %v; want true, nil", ok, err)
	}
}

func load(t *testing.T, s fleet.SessionStore, id string) fleet.Record {
	t.Helper()
	r, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return r
}

// same fails t when got and want differ.
func same(t *testing.T, what string, got, want fleet.Record) {
	t.Helper()
	if got.Owner != want.Owner || got.Principal != want.Principal || !bytes.Equal(got.State, want.State) {
		t.Errorf("%s: got {Owner %q, Principal %q, State %d bytes %.40q}, want {Owner %q, Principal %q, State %d bytes %.40q}",
			what, got.Owner, got.Principal, len(got.State), got.State, want.Owner, want.Principal, len(want.State), want.State)
	}
}

// gone reports whether id has no record, failing t on any other error.
func gone(t *testing.T, s fleet.SessionStore, id string) bool {
	t.Helper()
	_, err := s.Load(t.Context(), id)
	if err != nil && !errors.Is(err, fleet.ErrNotFound) {
		t.Fatalf("Load: %v; want nil or an error wrapping fleet.ErrNotFound", err)
	}
	return err != nil
}

// waitExpired creates a record with shortTTL and waits until it is gone:
// every record whose time to live ran out before waitExpired was called
// has run out by the time it returns.
func waitExpired(t *testing.T, s fleet.SessionStore) {
	t.Helper()
	marker := id()
	create(t, s, marker, fleet.Record{Owner: "marker"}, shortTTL)
	eventually(t, "a record created with a TTL of "+shortTTL.String()+" is gone", func() bool { return gone(t, s, marker) })
}

var alice = fleet.Record{Owner: "node-a", Principal: "alice", State: []byte(`{"protocolVersion":"2025-11-25"}`)}

func testCreateLoad(t *testing.T, s fleet.SessionStore) {
	sid := id()
	create(t, s, sid, alice, time.Hour)
	same(t, "Load after Create", load(t, s, sid), alice)
	unowned := fleet.Record{Principal: "bob"}
	sid2 := id()
	create(t, s, sid2, unowned, time.Hour)
	same(t, "Load of a record with no owner and no state", load(t, s, sid2), unowned)
}

func testCreateTaken(t *testing.T, s fleet.SessionStore) {
	sid := id()
	create(t, s, sid, alice, time.Hour)
	other := fleet.Record{Owner: "node-b", Principal: "mallory", State: []byte("other")}
	ok, err := s.Create(t.Context(), sid, other, time.Hour)
	if err != nil || ok {
		t.Fatalf("Create on a taken id = %v, %v; want false, nil", ok, err)
	}
	same(t, "Load after a refused Create", load(t, s, sid), alice)
}

func testLoadMissing(t *testing.T, s fleet.SessionStore) {
	_, err := s.Load(t.Context(), id())
	if !errors.Is(err, fleet.ErrNotFound) {
		t.Fatalf("Load of a missing id: %v; want an error wrapping fleet.ErrNotFound", err)
	}
}

func testSave(t *testing.T, s fleet.SessionStore) {
	sid := id()
	create(t, s, sid, alice, time.Hour)
	state := []byte(`{"protocolVersion":"2025-11-25","logLevel":"debug"}`)
	ok, err := s.Save(t.Context(), sid, alice.Owner, state, time.Hour)
	if err != nil || !ok {
		t.Fatalf("Save by the owner = %v, %v; want true, nil", ok, err)
	}
	want := alice
	want.State = state
	same(t, "Load after Save", load(t, s, sid), want)
	ok, err = s.Save(t.Context(), sid, alice.Owner, nil, time.Hour)
	if err != nil || !ok {
		t.Fatalf("Save of an empty state = %v, %v; want true, nil", ok, err)
	}
	want.State = nil
	same(t, "Load after saving an empty state", load(t, s, sid), want)
}

func testSaveNotOwner(t *testing.T, s fleet.SessionStore) {
	sid := id()
	create(t, s, sid, alice, time.Hour)
	for _, owner := range []string{"node-b", "", "node-a "} {
		ok, err := s.Save(t.Context(), sid, owner, []byte("stolen"), time.Hour)
		if err != nil || ok {
			t.Errorf("Save by %q, not the owner = %v, %v; want false, nil", owner, ok, err)
		}
	}
	same(t, "Load after refused Saves", load(t, s, sid), alice)
	// A record with no owner is saved by no instance.
	sid2 := id()
	create(t, s, sid2, fleet.Record{Principal: "bob"}, time.Hour)
	if ok, err := s.Save(t.Context(), sid2, "node-a", []byte("x"), time.Hour); err != nil || ok {
		t.Errorf("Save by node-a of an unowned record = %v, %v; want false, nil", ok, err)
	}
}

func testSaveMissing(t *testing.T, s fleet.SessionStore) {
	ok, err := s.Save(t.Context(), id(), "node-a", []byte("x"), time.Hour)
	if err != nil || ok {
		t.Fatalf("Save of a missing id = %v, %v; want false, nil", ok, err)
	}
	sid := id()
	create(t, s, sid, alice, time.Hour)
	if err := s.Delete(t.Context(), sid); err != nil {
		t.Fatal(err)
	}
	ok, err = s.Save(t.Context(), sid, alice.Owner, []byte("x"), time.Hour)
	if err != nil || ok {
		t.Fatalf("Save of a deleted id = %v, %v; want false, nil", ok, err)
	}
	if !gone(t, s, sid) {
		t.Fatal("Save brought a deleted record back")
	}
}

func testClaim(t *testing.T, s fleet.SessionStore) {
	for _, tc := range []struct {
		name string
		from string
	}{
		{"from an owner", "node-a"},
		{"from no owner", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sid := id()
			rec := alice
			rec.Owner = tc.from
			create(t, s, sid, rec, time.Hour)
			got, err := s.Claim(t.Context(), sid, tc.from, "node-b", time.Hour)
			if err != nil {
				t.Fatalf("Claim: %v", err)
			}
			want := alice
			want.Owner = "node-b"
			same(t, "Claim's record", got, want)
			same(t, "Load after Claim", load(t, s, sid), want)
			// The new owner saves; the old one no longer can.
			if ok, err := s.Save(t.Context(), sid, tc.from, []byte("old"), time.Hour); err != nil || ok {
				t.Errorf("Save by the former owner = %v, %v; want false, nil", ok, err)
			}
			if ok, err := s.Save(t.Context(), sid, "node-b", []byte("new"), time.Hour); err != nil || !ok {
				t.Errorf("Save by the new owner = %v, %v; want true, nil", ok, err)
			}
		})
	}
}

func testClaimLost(t *testing.T, s fleet.SessionStore) {
	sid := id()
	create(t, s, sid, alice, time.Hour)
	// node-c thinks the owner is node-x (gone): but node-a owns it.
	got, err := s.Claim(t.Context(), sid, "node-x", "node-c", time.Hour)
	if err != nil {
		t.Fatalf("Claim from a stale owner: %v", err)
	}
	same(t, "Claim from a stale owner returns the record as it is", got, alice)
	same(t, "Load after a lost Claim", load(t, s, sid), alice)
}

func testClaimMissing(t *testing.T, s fleet.SessionStore) {
	_, err := s.Claim(t.Context(), id(), "node-a", "node-b", time.Hour)
	if !errors.Is(err, fleet.ErrNotFound) {
		t.Fatalf("Claim of a missing id: %v; want an error wrapping fleet.ErrNotFound", err)
	}
}

func testClaimRace(t *testing.T, s fleet.SessionStore) {
	const n = 16
	sid := id()
	create(t, s, sid, alice, time.Hour)
	owners := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			r, err := s.Claim(context.Background(), sid, alice.Owner, fmt.Sprintf("node-%d", i), time.Hour)
			if err != nil {
				t.Errorf("Claim by node-%d: %v", i, err)
				return
			}
			owners[i] = r.Owner
		})
	}
	close(start)
	wg.Wait()
	winners := 0
	for i, o := range owners {
		if o == fmt.Sprintf("node-%d", i) {
			winners++
		}
		if o != owners[0] {
			t.Errorf("node-%d sees owner %q, node-0 sees %q: racers must all see the one winner", i, o, owners[0])
		}
	}
	if winners != 1 {
		t.Errorf("%d claims from the same owner won; want exactly 1 (owners seen: %q)", winners, owners)
	}
	if got := load(t, s, sid).Owner; got != owners[0] {
		t.Errorf("Load after the race: owner %q; want the winner %q", got, owners[0])
	}
}

func testDelete(t *testing.T, s fleet.SessionStore) {
	sid := id()
	create(t, s, sid, alice, time.Hour)
	for i := range 2 {
		if err := s.Delete(t.Context(), sid); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
		if !gone(t, s, sid) {
			t.Fatalf("Load after Delete #%d found the record", i+1)
		}
	}
	if err := s.Delete(t.Context(), id()); err != nil {
		t.Fatalf("Delete of an id never created: %v", err)
	}
	// The id is free again.
	create(t, s, sid, fleet.Record{Owner: "node-b"}, time.Hour)
	same(t, "Load after Create on a deleted id", load(t, s, sid), fleet.Record{Owner: "node-b"})
}

func testExpire(t *testing.T, s fleet.SessionStore) {
	sid := id()
	create(t, s, sid, alice, shortTTL)
	eventually(t, "the record is gone once its TTL has run out", func() bool { return gone(t, s, sid) })
	// An expired id is free.
	ok, err := s.Create(t.Context(), sid, fleet.Record{Owner: "node-b"}, time.Hour)
	if err != nil || !ok {
		t.Fatalf("Create on an expired id = %v, %v; want true, nil", ok, err)
	}
}

func testNoTTL(t *testing.T, s fleet.SessionStore) {
	for _, ttl := range []time.Duration{0, -time.Second} {
		sid := id()
		create(t, s, sid, alice, ttl)
		waitExpired(t, s)
		if gone(t, s, sid) {
			t.Errorf("a record created with a TTL of %v expired; want it kept", ttl)
		}
	}
}

// renewed checks that renew, given a record created with shortTTL,
// renews it for an hour: the record outlives a record created with
// shortTTL after it. renew reports whether it renewed the record; when it
// did not because the record had expired already (the machine stalled for
// shortTTL), the check starts again, up to 3 times.
func renewed(t *testing.T, s fleet.SessionStore, what string, renew func(sid string) (bool, error)) {
	t.Helper()
	for range 3 {
		sid := id()
		create(t, s, sid, alice, shortTTL)
		ok, err := renew(sid)
		if err != nil && !errors.Is(err, fleet.ErrNotFound) {
			t.Fatalf("%s: %v", what, err)
		}
		if !ok {
			if gone(t, s, sid) {
				continue // expired before renew ran: try again
			}
			t.Fatalf("%s did not apply to a live record", what)
		}
		waitExpired(t, s)
		if gone(t, s, sid) {
			t.Fatalf("the record expired with the TTL given to Create; %s with an hour should have renewed it", what)
		}
		return
	}
	t.Fatalf("the record expired before %s 3 times: is the machine that slow, or the TTL wrong?", what)
}

func testSaveRenews(t *testing.T, s fleet.SessionStore) {
	renewed(t, s, "Save by the owner", func(sid string) (bool, error) {
		return s.Save(t.Context(), sid, alice.Owner, alice.State, time.Hour)
	})
}

func testClaimRenews(t *testing.T, s fleet.SessionStore) {
	renewed(t, s, "Claim", func(sid string) (bool, error) {
		r, err := s.Claim(t.Context(), sid, alice.Owner, "node-b", time.Hour)
		return err == nil && r.Owner == "node-b", err
	})
}

func testSaveRefusedKeepsTTL(t *testing.T, s fleet.SessionStore) {
	sid := id()
	create(t, s, sid, alice, shortTTL)
	if ok, err := s.Save(t.Context(), sid, "node-b", []byte("x"), time.Hour); err != nil || ok {
		t.Fatalf("Save by another = %v, %v; want false, nil", ok, err)
	}
	// (The record may have expired already, on a slow machine.)
	if r, err := s.Claim(t.Context(), sid, "node-x", "node-b", time.Hour); (err != nil && !errors.Is(err, fleet.ErrNotFound)) || (err == nil && r.Owner != alice.Owner) {
		t.Fatalf("lost Claim = owner %q, %v; want %q, nil", r.Owner, err, alice.Owner)
	}
	eventually(t, "the record expires: a refused Save or a lost Claim must not renew it", func() bool { return gone(t, s, sid) })
}

func testState(t *testing.T, s fleet.SessionStore) {
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	big := make([]byte, 1<<20)
	rand.Read(big)
	for _, tc := range []struct {
		name  string
		state []byte
	}{
		{"empty", nil},
		{"empty, not nil", []byte{}},
		{"binary", binary},
		{"NUL and newlines", []byte("\x00a\r\n\x00")},
		{"invalid UTF-8", []byte{0xff, 0xfe, 0xc3}},
		{"1 MiB", big},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sid := id()
			rec := fleet.Record{Owner: "node-a", Principal: "ünïcode\x00user", State: tc.state}
			create(t, s, sid, rec, time.Hour)
			same(t, "Load after Create", load(t, s, sid), rec)
			rev := append([]byte(nil), tc.state...)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			if ok, err := s.Save(t.Context(), sid, "node-a", rev, time.Hour); err != nil || !ok {
				t.Fatalf("Save = %v, %v; want true, nil", ok, err)
			}
			rec.State = rev
			same(t, "Load after Save", load(t, s, sid), rec)
			got, err := s.Claim(t.Context(), sid, "node-a", "node-b", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			rec.Owner = "node-b"
			same(t, "Claim's record", got, rec)
		})
	}
}

func testCopies(t *testing.T, s fleet.SessionStore) {
	sid := id()
	state := []byte("abc")
	create(t, s, sid, fleet.Record{Owner: "node-a", State: state}, time.Hour)
	state[0] = 'X'
	r := load(t, s, sid)
	if string(r.State) != "abc" {
		t.Fatalf("the store kept the caller's slice of Create: state %q after the caller changed it", r.State)
	}
	if len(r.State) > 0 {
		r.State[0] = 'Y'
	}
	if got := load(t, s, sid).State; string(got) != "abc" {
		t.Fatalf("the store shares its state with Load's caller: %q", got)
	}
	saved := []byte("def")
	if ok, err := s.Save(t.Context(), sid, "node-a", saved, time.Hour); err != nil || !ok {
		t.Fatalf("Save = %v, %v", ok, err)
	}
	saved[0] = 'X'
	if got := load(t, s, sid).State; string(got) != "def" {
		t.Fatalf("the store kept the caller's slice of Save: state %q after the caller changed it", got)
	}
}

func testIsolated(t *testing.T, s fleet.SessionStore) {
	a, b := id(), id()
	create(t, s, a, alice, time.Hour)
	bob := fleet.Record{Owner: "node-b", Principal: "bob", State: []byte("b")}
	create(t, s, b, bob, time.Hour)
	if err := s.Delete(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	same(t, "Load of a record after another was deleted", load(t, s, a), alice)
	// Ids that differ only slightly are different sessions.
	for _, other := range []string{a + " ", a[:len(a)-1], "x" + a} {
		if !gone(t, s, other) {
			t.Errorf("Load of an id close to a stored one found a record")
		}
	}
}
