// Package eventstoretest is the contract every streamhttp.EventStore must
// meet, as a test suite. An implementation runs it from its own tests:
//
//	func TestEventStoreContract(t *testing.T) {
//		eventstoretest.Run(t, func(t *testing.T) streamhttp.EventStore {
//			return newStoreForTest(t) // empty, cleaned up with t.Cleanup
//		})
//	}
//
// The suite checks what streamhttp.EventStore documents: a stream's events
// are numbered from 1 without gaps, concurrent appends included; After
// returns the kept events above its argument, in order, with their data
// byte for byte; Discard forgets the events up to a number and later
// events keep theirs; Drop forgets a stream, whose numbering starts again;
// a stream the store does not know is reported so; streams are
// independent. Run it with -race.
package eventstoretest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// Run runs the contract suite against the stores newStore makes. Each
// subtest calls newStore once and expects an empty store; newStore should
// register its cleanup with t.Cleanup.
func Run(t *testing.T, newStore func(t *testing.T) streamhttp.EventStore) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s streamhttp.EventStore)
	}{
		{"Numbering", testNumbering},
		{"After", testAfter},
		{"Unknown", testUnknown},
		{"Discard", testDiscard},
		{"DiscardAll", testDiscardAll},
		{"DiscardUnknown", testDiscardUnknown},
		{"Drop", testDrop},
		{"Streams", testStreams},
		{"Data", testData},
		{"Copies", testCopies},
		{"Concurrent", testConcurrent},
		{"LastSeq", testLastSeq},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newStore(t))
		})
	}
}

// streamID returns a new stream id, of the form the Server uses: a session
// id and a number.
func streamID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b) + "-1"
}

func appendN(t *testing.T, s streamhttp.EventStore, stream string, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		seq, err := s.Append(stream, []byte(event(i)))
		if err != nil {
			t.Fatalf("Append #%d: %v", i, err)
		}
		if seq != int64(i) {
			t.Fatalf("Append #%d got sequence number %d; want %d: numbered from 1, without gaps", i, seq, i)
		}
	}
}

// event is the data of event seq in the suite's streams.
func event(seq int) string {
	return `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":` + strconv.Itoa(seq) + `}}`
}

// after returns the events of stream above seq, failing t on an error or
// an unknown stream.
func after(t *testing.T, s streamhttp.EventStore, stream string, seq int64) []streamhttp.Event {
	t.Helper()
	evs, ok, err := s.After(stream, seq)
	if err != nil || !ok {
		t.Fatalf("After(%d) = ok %v, %v; want ok, nil", seq, ok, err)
	}
	return evs
}

// want checks that evs are the suite's events first..last.
func want(t *testing.T, what string, evs []streamhttp.Event, first, last int) {
	t.Helper()
	n := max(last-first+1, 0)
	if len(evs) != n {
		t.Fatalf("%s: %d events (%s); want %d..%d", what, len(evs), seqs(evs), first, last)
	}
	for i, ev := range evs {
		seq := first + i
		if ev.Seq != int64(seq) || string(ev.Data) != event(seq) {
			t.Fatalf("%s: event #%d is {%d %q}; want {%d %q}", what, i, ev.Seq, ev.Data, seq, event(seq))
		}
	}
}

func seqs(evs []streamhttp.Event) string {
	var b bytes.Buffer
	for i, ev := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(ev.Seq, 10))
	}
	return b.String()
}

func testNumbering(t *testing.T, s streamhttp.EventStore) {
	st := streamID()
	appendN(t, s, st, 1, 20)
	want(t, "After(0)", after(t, s, st, 0), 1, 20)
}

func testAfter(t *testing.T, s streamhttp.EventStore) {
	st := streamID()
	appendN(t, s, st, 1, 10)
	for _, tc := range []struct {
		seq         int64
		first, last int
	}{
		{-5, 1, 10},
		{0, 1, 10},
		{1, 2, 10},
		{5, 6, 10},
		{9, 10, 10},
		{10, 11, 10},
		{11, 11, 10},
		{1 << 40, 11, 10},
	} {
		want(t, fmt.Sprintf("After(%d)", tc.seq), after(t, s, st, tc.seq), tc.first, tc.last)
	}
	// A known stream with nothing above seq is known: ok, no events.
	evs, ok, err := s.After(st, 10)
	if err != nil || !ok || len(evs) != 0 {
		t.Fatalf("After(10) of a stream of 10 = %d events, ok %v, %v; want none, ok, nil", len(evs), ok, err)
	}
}

func testUnknown(t *testing.T, s streamhttp.EventStore) {
	for _, seq := range []int64{0, 5} {
		evs, ok, err := s.After(streamID(), seq)
		if err != nil || ok || len(evs) != 0 {
			t.Fatalf("After(%d) of a stream never appended to = %d events, ok %v, %v; want none, not ok, nil", seq, len(evs), ok, err)
		}
	}
}

func testDiscard(t *testing.T, s streamhttp.EventStore) {
	st := streamID()
	appendN(t, s, st, 1, 10)
	s.Discard(st, 3)
	want(t, "After(0) after Discard(3)", after(t, s, st, 0), 4, 10)
	want(t, "After(5) after Discard(3)", after(t, s, st, 5), 6, 10)
	s.Discard(st, 2) // below what is kept: nothing changes
	want(t, "After(0) after Discard(2)", after(t, s, st, 0), 4, 10)
	s.Discard(st, 0)
	s.Discard(st, -1)
	want(t, "After(0) after Discard(0) and Discard(-1)", after(t, s, st, 0), 4, 10)
	appendN(t, s, st, 11, 2) // later events keep counting
	want(t, "After(0) after appending", after(t, s, st, 0), 4, 12)
	s.Discard(st, 7)
	want(t, "After(0) after Discard(7)", after(t, s, st, 0), 8, 12)
}

func testDiscardAll(t *testing.T, s streamhttp.EventStore) {
	for _, upTo := range []int64{5, 6, 1 << 40} {
		st := streamID()
		appendN(t, s, st, 1, 5)
		s.Discard(st, upTo)
		evs, ok, err := s.After(st, 0)
		if err != nil || !ok || len(evs) != 0 {
			t.Fatalf("After(0) after Discard(%d) of all 5 events = %d events, ok %v, %v; want none, ok (the stream is still known), nil", upTo, len(evs), ok, err)
		}
		appendN(t, s, st, 6, 2)
		want(t, "After(0) after appending to an emptied stream", after(t, s, st, 0), 6, 7)
	}
}

func testDiscardUnknown(t *testing.T, s streamhttp.EventStore) {
	st := streamID()
	s.Discard(st, 3)
	s.Drop(st)
	if _, ok, err := s.After(st, 0); ok || err != nil {
		t.Fatalf("After(0) after Discard and Drop of an unknown stream = ok %v, %v; want not ok, nil", ok, err)
	}
	appendN(t, s, st, 1, 1)
}

func testDrop(t *testing.T, s streamhttp.EventStore) {
	st := streamID()
	appendN(t, s, st, 1, 5)
	s.Drop(st)
	evs, ok, err := s.After(st, 0)
	if err != nil || ok || len(evs) != 0 {
		t.Fatalf("After(0) after Drop = %d events, ok %v, %v; want none, not ok, nil", len(evs), ok, err)
	}
	s.Drop(st) // twice is no error
	appendN(t, s, st, 1, 3)
	want(t, "After(0) of a dropped stream appended to again", after(t, s, st, 0), 1, 3)
}

func testStreams(t *testing.T, s streamhttp.EventStore) {
	a, b, c := streamID(), streamID(), streamID()
	appendN(t, s, a, 1, 3)
	appendN(t, s, b, 1, 5)
	appendN(t, s, a, 4, 2)
	appendN(t, s, c, 1, 1)
	s.Discard(b, 2)
	s.Drop(c)
	want(t, "stream a", after(t, s, a, 0), 1, 5)
	want(t, "stream b", after(t, s, b, 0), 3, 5)
	if _, ok, _ := s.After(c, 0); ok {
		t.Fatal("stream c is known after Drop")
	}
	// An id that only starts like another is another stream.
	if _, ok, _ := s.After(a[:len(a)-1], 0); ok {
		t.Fatal("After of a prefix of a stream's id found a stream")
	}
}

func testData(t *testing.T, s streamhttp.EventStore) {
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	big := make([]byte, 1<<20)
	rand.Read(big)
	datas := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`),
		binary,
		[]byte("\x00\r\n\n\ndata: x\n\n"),
		{0xff, 0xfe},
		nil,
		big,
	}
	st := streamID()
	for i, d := range datas {
		seq, err := s.Append(st, d)
		if err != nil || seq != int64(i+1) {
			t.Fatalf("Append #%d = %d, %v; want %d, nil", i+1, seq, err, i+1)
		}
	}
	evs := after(t, s, st, 0)
	if len(evs) != len(datas) {
		t.Fatalf("After(0): %d events; want %d", len(evs), len(datas))
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || !bytes.Equal(ev.Data, datas[i]) {
			t.Errorf("event #%d: seq %d, %d bytes; want seq %d, %d bytes, unchanged", i, ev.Seq, len(ev.Data), i+1, len(datas[i]))
		}
	}
}

// testCopies checks that the store keeps its own copy of what Append is
// given. (What After returns is the caller's to read, not to change: the
// contract lets a store share it.)
func testCopies(t *testing.T, s streamhttp.EventStore) {
	st := streamID()
	d := []byte("abc")
	if _, err := s.Append(st, d); err != nil {
		t.Fatal(err)
	}
	d[0] = 'X'
	evs := after(t, s, st, 0)
	if string(evs[0].Data) != "abc" {
		t.Fatalf("the store kept the caller's slice of Append: %q", evs[0].Data)
	}
}

// testConcurrent checks that appends to one stream from many goroutines
// get distinct, consecutive numbers, each with its own data.
func testConcurrent(t *testing.T, s streamhttp.EventStore) {
	const writers, each = 8, 40
	st := streamID()
	var mu sync.Mutex
	got := map[int64]string{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				data := fmt.Sprintf("%d/%d", w, i)
				seq, err := s.Append(st, []byte(data))
				if err != nil {
					t.Errorf("Append: %v", err)
					return
				}
				mu.Lock()
				if prev, dup := got[seq]; dup {
					t.Errorf("sequence number %d given to %q and %q", seq, prev, data)
				}
				got[seq] = data
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	nums := make([]int64, 0, len(got))
	for seq := range got {
		nums = append(nums, seq)
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	for i, seq := range nums {
		if seq != int64(i+1) {
			t.Fatalf("sequence numbers %v; want 1..%d", nums, writers*each)
		}
	}
	evs := after(t, s, st, 0)
	if len(evs) != writers*each {
		t.Fatalf("After(0): %d events; want %d", len(evs), writers*each)
	}
	for _, ev := range evs {
		if string(ev.Data) != got[ev.Seq] {
			t.Fatalf("event %d holds %q; Append of %q got that number", ev.Seq, ev.Data, got[ev.Seq])
		}
	}
}

// testLastSeq checks streamhttp.LastSeqer, for a store that implements
// it: the number of the last event appended, discarded or not; a stream
// unknown, or dropped, is not ok.
func testLastSeq(t *testing.T, s streamhttp.EventStore) {
	ls, ok := s.(streamhttp.LastSeqer)
	if !ok {
		t.Logf("%T does not implement streamhttp.LastSeqer: nothing to check", s)
		return
	}
	st := streamID()
	if _, ok, err := ls.LastSeq(st); err != nil || ok {
		t.Fatalf("LastSeq of an unknown stream: ok %v, err %v; want not ok", ok, err)
	}
	appendN(t, s, st, 1, 5)
	s.Discard(st, 5) // every event discarded: the number stays
	if seq, ok, err := ls.LastSeq(st); err != nil || !ok || seq != 5 {
		t.Errorf("LastSeq after 5 appends, all discarded: %d, ok %v, err %v; want 5", seq, ok, err)
	}
	appendN(t, s, st, 6, 1)
	if seq, ok, err := ls.LastSeq(st); err != nil || !ok || seq != 6 {
		t.Errorf("LastSeq after a sixth append: %d, ok %v, err %v; want 6", seq, ok, err)
	}
	s.Drop(st)
	if _, ok, err := ls.LastSeq(st); err != nil || ok {
		t.Errorf("LastSeq of a dropped stream: ok %v, err %v; want not ok", ok, err)
	}
}
