package fleettest

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/fleet"
)

// RunRelay runs the Relay contract suite against the relays newRelays
// makes: a and b are the relays of two instances of one fleet, on one
// engine (for an in-process relay, the same value twice will do). Each
// subtest calls newRelays once and expects no listeners; newRelays should
// register its cleanup with t.Cleanup.
func RunRelay(t *testing.T, newRelays func(t *testing.T) (a, b fleet.Relay)) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, a, b fleet.Relay)
	}{
		{"NoListener", testNoListener},
		{"ListenThenSend", testListenThenSend},
		{"Order", testOrder},
		{"TwoListeners", testTwoListeners},
		{"Stop", testStop},
		{"StopOne", testStopOne},
		{"Addresses", testAddresses},
		{"Large", testLarge},
		{"Concurrent", testConcurrentSenders},
		{"Copies", testRelayCopies},
		{"NilFunc", testNilFunc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := newRelays(t)
			tt.run(t, a, b)
		})
	}
}

// inbox collects the messages a listener gets.
type inbox struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (in *inbox) fn(msg []byte) {
	in.mu.Lock()
	in.msgs = append(in.msgs, msg)
	in.mu.Unlock()
}

func (in *inbox) get() [][]byte {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([][]byte(nil), in.msgs...)
}

// wait waits until in holds n messages, and returns them.
func (in *inbox) wait(t *testing.T, what string, n int) [][]byte {
	t.Helper()
	eventually(t, fmt.Sprintf("%s: %d messages received", what, n), func() bool { return len(in.get()) >= n })
	return in.get()
}

func listen(t *testing.T, r fleet.Relay, addr string) (*inbox, func()) {
	t.Helper()
	in := &inbox{}
	stop, err := r.Listen(t.Context(), addr, in.fn)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(stop)
	return in, stop
}

func send(t *testing.T, r fleet.Relay, addr string, msg []byte, want bool) {
	t.Helper()
	got, err := r.Send(t.Context(), addr, msg)
	if err != nil || got != want {
		t.Fatalf("Send = %v, %v; want %v, nil", got, err, want)
	}
}

func testNoListener(t *testing.T, a, b fleet.Relay) {
	for _, r := range []fleet.Relay{a, b} {
		got, err := r.Send(t.Context(), "node-"+id(), []byte("hello"))
		if err != nil || got {
			t.Fatalf("Send to an address no one listens at = %v, %v; want false, nil", got, err)
		}
	}
}

// testListenThenSend checks that a listener hears what is sent once Listen
// has returned, from the other instance and from its own, at once.
func testListenThenSend(t *testing.T, a, b fleet.Relay) {
	for i := range 20 {
		addr := "node-" + id()
		l, s := a, b
		if i%2 == 1 {
			l, s = b, a
		}
		in, _ := listen(t, l, addr)
		msg := []byte("first " + strconv.Itoa(i))
		send(t, s, addr, msg, true)
		send(t, l, addr, []byte("own"), true)
		got := in.wait(t, "listener", 2)
		if !bytes.Equal(got[0], msg) || string(got[1]) != "own" {
			t.Fatalf("got %q; want %q then \"own\"", got, msg)
		}
	}
}

func testOrder(t *testing.T, a, b fleet.Relay) {
	const n = 1000
	addr := "node-" + id()
	in, _ := listen(t, a, addr)
	for i := range n {
		send(t, b, addr, []byte(strconv.Itoa(i)), true)
	}
	got := in.wait(t, "listener", n)
	if len(got) != n {
		t.Fatalf("got %d messages; want %d", len(got), n)
	}
	for i, m := range got {
		if string(m) != strconv.Itoa(i) {
			t.Fatalf("message #%d is %q; want %d: one sender's messages arrive in order", i, m, i)
		}
	}
}

func testTwoListeners(t *testing.T, a, b fleet.Relay) {
	for _, tc := range []struct {
		name   string
		first  fleet.Relay
		second fleet.Relay
	}{
		{"on two instances", a, b},
		{"on one instance", a, a},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := "node-" + id()
			in1, _ := listen(t, tc.first, addr)
			in2, _ := listen(t, tc.second, addr)
			send(t, b, addr, []byte("one"), true)
			send(t, a, addr, []byte("two"), true)
			for i, in := range []*inbox{in1, in2} {
				got := in.wait(t, fmt.Sprintf("listener %d", i+1), 2)
				// Two senders: each message once, in no set order.
				if len(got) != 2 || string(got[0]) == string(got[1]) || !isOneOf(got[0], "one", "two") || !isOneOf(got[1], "one", "two") {
					t.Errorf("listener %d got %q; want \"one\" and \"two\", once each", i+1, got)
				}
			}
		})
	}
}

func isOneOf(b []byte, s ...string) bool {
	for _, x := range s {
		if string(b) == x {
			return true
		}
	}
	return false
}

// testStop checks that stop ends delivery: once the last listener of an
// address has stopped, Send reports that no one listens (eventually: an
// engine may take a moment to learn it) and the stopped fn gets nothing
// sent after stop returned.
func testStop(t *testing.T, a, b fleet.Relay) {
	addr := "node-" + id()
	in, stop := listen(t, a, addr)
	send(t, b, addr, []byte("before"), true)
	in.wait(t, "listener", 1)
	stop()
	stop() // a second call does nothing
	eventually(t, "Send reports no listener after stop", func() bool {
		ok, err := b.Send(t.Context(), addr, []byte("after"))
		if err != nil {
			t.Fatalf("Send: %v", err)
		}
		if got := in.get(); len(got) > 1 {
			t.Fatalf("the listener got %q; want only \"before\": stop ends delivery", got)
		}
		return !ok
	})
	// A message to another address, sent after those, marks when the
	// stopped listener would have had them.
	mark := "node-" + id()
	inMark, _ := listen(t, a, mark)
	send(t, b, addr, []byte("after"), false)
	send(t, b, mark, []byte("mark"), true)
	inMark.wait(t, "marker listener", 1)
	if got := in.get(); len(got) != 1 || string(got[0]) != "before" {
		t.Fatalf("the listener got %q; want only \"before\": stop ends delivery", got)
	}
	// The address can be listened at again.
	in2, _ := listen(t, a, addr)
	send(t, b, addr, []byte("again"), true)
	if got := in2.wait(t, "new listener", 1); string(got[0]) != "again" {
		t.Fatalf("the new listener got %q; want \"again\"", got)
	}
}

// testStopOne checks that stopping one of two listeners of an address
// leaves the other listening.
func testStopOne(t *testing.T, a, b fleet.Relay) {
	for _, tc := range []struct {
		name  string
		other fleet.Relay
	}{
		{"on the same instance", a},
		{"on another instance", b},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := "node-" + id()
			in1, stop1 := listen(t, a, addr)
			in2, _ := listen(t, tc.other, addr)
			stop1()
			for i := range 50 {
				send(t, b, addr, []byte(strconv.Itoa(i)), true)
			}
			got := in2.wait(t, "the listener still listening", 50)
			for i, m := range got {
				if string(m) != strconv.Itoa(i) {
					t.Fatalf("message #%d is %q; want %d", i, m, i)
				}
			}
			if got := in1.get(); len(got) != 0 {
				t.Fatalf("the stopped listener got %d messages", len(got))
			}
		})
	}
}

func testAddresses(t *testing.T, a, b fleet.Relay) {
	addr1, addr2 := "node-"+id(), "node-"+id()
	in1, _ := listen(t, a, addr1)
	in2, _ := listen(t, b, addr2)
	send(t, a, addr2, []byte("to 2"), true)
	send(t, b, addr1, []byte("to 1"), true)
	g1, g2 := in1.wait(t, "listener 1", 1), in2.wait(t, "listener 2", 1)
	if string(g1[0]) != "to 1" || string(g2[0]) != "to 2" {
		t.Fatalf("listener 1 got %q, listener 2 got %q; each should get only its own", g1, g2)
	}
	// A marker round trip, then nothing else arrived.
	send(t, b, addr1, []byte("mark"), true)
	send(t, a, addr2, []byte("mark"), true)
	g1, g2 = in1.wait(t, "listener 1", 2), in2.wait(t, "listener 2", 2)
	if len(g1) != 2 || len(g2) != 2 {
		t.Fatalf("listener 1 got %q, listener 2 got %q; want each its own two", g1, g2)
	}
}

func testLarge(t *testing.T, a, b fleet.Relay) {
	addr := "node-" + id()
	in, _ := listen(t, a, addr)
	var want [][]byte
	for _, n := range []int{0, 1, 64 << 10, 4 << 20} {
		msg := make([]byte, n)
		rand.Read(msg)
		want = append(want, msg)
		send(t, b, addr, msg, true)
	}
	got := in.wait(t, "listener", len(want))
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("message #%d: got %d bytes, want %d bytes, unchanged", i, len(got[i]), len(want[i]))
		}
	}
}

// testConcurrentSenders checks that messages sent at once by many
// goroutines of both instances all arrive, once each, in the order of
// each sender.
func testConcurrentSenders(t *testing.T, a, b fleet.Relay) {
	const senders, each = 8, 100
	addr := "node-" + id()
	in, _ := listen(t, a, addr)
	var wg sync.WaitGroup
	for s := range senders {
		r := a
		if s%2 == 1 {
			r = b
		}
		wg.Go(func() {
			for i := range each {
				ok, err := r.Send(t.Context(), addr, []byte(fmt.Sprintf("%d/%d", s, i)))
				if err != nil || !ok {
					t.Errorf("Send = %v, %v; want true, nil", ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
	got := in.wait(t, "listener", senders*each)
	next := make([]int, senders)
	for _, m := range got {
		var s, i int
		if _, err := fmt.Sscanf(string(m), "%d/%d", &s, &i); err != nil || s < 0 || s >= senders {
			t.Fatalf("unexpected message %q", m)
		}
		if i != next[s] {
			t.Fatalf("sender %d: message %d arrived when %d was next: one sender's messages arrive in order, once each", s, i, next[s])
		}
		next[s]++
	}
	if len(got) != senders*each {
		t.Fatalf("got %d messages; want %d", len(got), senders*each)
	}
}

// testRelayCopies checks that a sent message is not the sender's buffer
// and that each listener has its own.
func testRelayCopies(t *testing.T, a, b fleet.Relay) {
	addr := "node-" + id()
	in1, _ := listen(t, a, addr)
	in2, _ := listen(t, a, addr)
	msg := []byte("abc")
	send(t, b, addr, msg, true)
	msg[0] = 'X'
	g1 := in1.wait(t, "listener 1", 1)
	g2 := in2.wait(t, "listener 2", 1)
	if string(g1[0]) != "abc" || string(g2[0]) != "abc" {
		t.Fatalf("got %q and %q; want \"abc\": the relay kept the sender's buffer", g1[0], g2[0])
	}
	g1[0][0] = 'Y'
	if string(g2[0]) != "abc" {
		t.Fatalf("two listeners share one buffer: %q", g2[0])
	}
}

func testNilFunc(t *testing.T, a, _ fleet.Relay) {
	stop, err := a.Listen(t.Context(), "node-"+id(), nil)
	if err == nil {
		stop()
		t.Fatal("Listen with a nil func: no error")
	}
}
