// Package sse reads text/event-stream, the Server-Sent Events format the
// MCP HTTP transports carry messages in (Streamable HTTP and the HTTP+SSE
// transport of 2024-11-05), with bounded memory.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// Reader reads the events of one SSE connection, as the WHATWG
// EventSource algorithm interprets the text/event-stream format: lines end
// in CRLF, LF or CR; a line starting with ":" is a comment; "field: value"
// (one space after the colon dropped) sets event, data, id or retry; a
// blank line dispatches the event; data lines are joined with "\n"; an
// event cut off by the end of the stream is discarded.
type Reader struct {
	max      int // the longest line, and event data
	br       *bufio.Reader
	long     []byte // a line longer than what br holds, assembled
	skipLF   bool   // the last line ended in a CR at the end of br's data
	err      error  // the read error, once there was one
	first    bool   // before the first line (a BOM is skipped)
	idBuf    string // the last event ID buffer
	lastID   string // the id of the last dispatched event
	retry    time.Duration
	retrySet bool
}

// Event is one dispatched event.
type Event struct {
	// Type is the event field: "" for the default type, message.
	Type string
	// Data is the data lines joined with "\n": nil for an event without
	// data, empty for one whose data is empty (such as a priming event).
	Data []byte
}

// keepLong is the most of a long line's buffer a Reader keeps for
// the next line: a stream that once carried a big event (a GET stream lasts
// as long as its session) does not hold a buffer of that size.
const keepLong = 64 << 10

// NewReader reads r, which continues a stream whose last event id was
// lastID ("" for a new stream). A line, and the data of an event, longer
// than max bytes ends the stream with an error wrapping ErrTooLarge.
func NewReader(r io.Reader, lastID string, max int) *Reader {
	return &Reader{max: max, br: bufio.NewReaderSize(r, 4096), first: true, idBuf: lastID, lastID: lastID}
}

// LastID returns the id of the last event dispatched (the last event ID
// buffer, which a client sends as Last-Event-ID to resume).
func (r *Reader) LastID() string { return r.lastID }

// Retry returns the last valid retry field read, in milliseconds as a
// duration, and whether there was one.
func (r *Reader) Retry() (time.Duration, bool) { return r.retry, r.retrySet }

// line returns the next line without its end (CRLF, LF or CR), valid until
// the next call, or the read error: io.EOF at the end of the stream. A last
// line without an end is a line. Lines are at most r.max bytes.
// A line that fits br's buffer is not copied; a longer one is assembled in
// r.long.
func (r *Reader) line() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if cap(r.long) > keepLong {
		r.long = nil
	}
	r.long = r.long[:0]
	long := false // the line so far is in r.long
	searched := 0 // bytes of br's data without a line end
	for {
		b, err := r.br.Peek(searched + 1)
		if len(b) <= searched {
			// The end of the stream (or a read error): what is left is
			// the last line.
			r.err = err
			if len(b) == 0 && !long {
				return nil, err
			}
			return r.take(b, len(b), long)
		}
		b, _ = r.br.Peek(r.br.Buffered())
		if r.skipLF {
			r.skipLF = false
			if b[0] == '\n' {
				_, _ = r.br.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(b[searched:], "\r\n")
		if i < 0 {
			if len(b) < r.br.Size() {
				searched = len(b) // read more into br's buffer
				continue
			}
			// br's buffer is full: the line goes on in r.long.
			if _, err := r.take(b, len(b), true); err != nil {
				return nil, err
			}
			long, searched = true, 0
			continue
		}
		i += searched
		adv := i + 1
		if b[i] == '\r' {
			if i+1 == len(b) {
				r.skipLF = true // an LF may follow in the next read
			} else if b[i+1] == '\n' {
				adv++
			}
		}
		line, err := r.take(b[:i], adv, long)
		if err != nil {
			return nil, err
		}
		return line, nil
	}
}

// take consumes n bytes of br's data and returns line, its start; with
// long set, line is appended to r.long, and r.long returned.
func (r *Reader) take(line []byte, n int, long bool) ([]byte, error) {
	if long {
		if len(r.long)+len(line) > r.max {
			r.err = fmt.Errorf("%w: a line is longer than %d bytes", ErrTooLarge, r.max)
			return nil, r.err
		}
		r.long = append(r.long, line...)
		line = r.long
	}
	_, _ = r.br.Discard(n)
	return line, nil
}

// ErrTooLarge is wrapped by the error Next returns when a line or the data
// of an event exceeds the Reader's limit.
var ErrTooLarge = errors.New("SSE event too large")

// Next returns the next event that had at least one field, io.EOF at the
// end of the stream, or the read error. After it, lastID is the id of the
// last dispatched event, and retrySet and retry the last valid retry field.
func (r *Reader) Next() (Event, error) {
	var (
		ev      Event
		data    []byte
		hasData bool
		fields  bool
	)
	for {
		line, err := r.line()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Event{}, io.EOF
			}
			return Event{}, err
		}
		if r.first {
			r.first = false
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(line) == 0 {
			r.lastID = r.idBuf
			if !fields {
				continue
			}
			if hasData {
				ev.Data = data[:len(data)-1] // without the last "\n"
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue // a comment
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "event":
			ev.Type = string(value)
		case "data":
			if len(data)+len(value)+1 > r.max {
				return Event{}, fmt.Errorf("%w: its data is longer than %d bytes", ErrTooLarge, r.max)
			}
			data = append(append(data, value...), '\n')
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.idBuf = string(value)
			}
		case "retry":
			if ms, ok := digits(value); ok {
				r.retry, r.retrySet = time.Duration(ms)*time.Millisecond, true
			}
		default:
			continue // unknown fields are ignored
		}
		fields = true
	}
}

// digits parses a retry value: ASCII digits only. Values beyond an
// hour are clipped to an hour.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < int64(time.Hour/time.Millisecond) {
			n = n*10 + int64(c-'0')
		}
	}
	return min(n, int64(time.Hour/time.Millisecond)), true
}
