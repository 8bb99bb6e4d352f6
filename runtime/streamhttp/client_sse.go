package streamhttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// --- Reading SSE ---------------------------------------------------------------

// clientSSE reads the events of one SSE connection, as the WHATWG
// EventSource algorithm interprets the text/event-stream format: lines end
// in CRLF, LF or CR; a line starting with ":" is a comment; "field: value"
// (one space after the colon dropped) sets event, data, id or retry; a
// blank line dispatches the event; data lines are joined with "\n"; an
// event cut off by the end of the stream is discarded.
type clientSSE struct {
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

// clientSSEEvent is one dispatched event.
type clientSSEEvent struct {
	typ  string // "" for the default type, message
	data []byte // nil or empty for an event without data, such as priming
}

// clientSSEKeep is the most of a long line's buffer a clientSSE keeps for
// the next line: a stream that once carried a big event (a GET stream lasts
// as long as its session) does not hold a buffer of that size.
const clientSSEKeep = 64 << 10

// newClientSSE reads r, which continues a stream whose last event id was
// lastID.
func newClientSSE(r io.Reader, lastID string) *clientSSE {
	return &clientSSE{br: bufio.NewReaderSize(r, 4096), first: true, idBuf: lastID, lastID: lastID}
}

// line returns the next line without its end (CRLF, LF or CR), valid until
// the next call, or the read error: io.EOF at the end of the stream. A last
// line without an end is a line. Lines are at most clientMaxPayload bytes.
// A line that fits br's buffer is not copied; a longer one is assembled in
// r.long.
func (r *clientSSE) line() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if cap(r.long) > clientSSEKeep {
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
func (r *clientSSE) take(line []byte, n int, long bool) ([]byte, error) {
	if long {
		if len(r.long)+len(line) > clientMaxPayload {
			r.err = fmt.Errorf("streamhttp: SSE line longer than %d bytes", clientMaxPayload)
			return nil, r.err
		}
		r.long = append(r.long, line...)
		line = r.long
	}
	_, _ = r.br.Discard(n)
	return line, nil
}

var errClientEventTooLarge = fmt.Errorf("streamhttp: SSE event larger than %d bytes", clientMaxPayload)

// next returns the next event that had at least one field, io.EOF at the
// end of the stream, or the read error. After it, lastID is the id of the
// last dispatched event, and retrySet and retry the last valid retry field.
func (r *clientSSE) next() (clientSSEEvent, error) {
	var (
		ev      clientSSEEvent
		data    []byte
		hasData bool
		fields  bool
	)
	for {
		line, err := r.line()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return clientSSEEvent{}, io.EOF
			}
			return clientSSEEvent{}, err
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
				ev.data = data[:len(data)-1] // without the last "\n"
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
			ev.typ = string(value)
		case "data":
			if len(data)+len(value)+1 > clientMaxPayload {
				return clientSSEEvent{}, errClientEventTooLarge
			}
			data = append(append(data, value...), '\n')
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.idBuf = string(value)
			}
		case "retry":
			if ms, ok := clientDigits(value); ok {
				r.retry, r.retrySet = time.Duration(ms)*time.Millisecond, true
			}
		default:
			continue // unknown fields are ignored
		}
		fields = true
	}
}

// clientDigits parses a retry value: ASCII digits only. Values beyond an
// hour are clipped to an hour.
func clientDigits(b []byte) (int64, bool) {
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

// --- Looking into payloads -------------------------------------------------------

// clientMessage is what the transport needs to know of one JSON-RPC
// message.
type clientMessage struct {
	kind    jsonrpc.Kind // 0 when it cannot be told
	id      wire.ID
	method  string
	version string // result.protocolVersion, when a string
}

// clientScan returns the envelopes of the messages in a payload: a message
// or a batch. It reads only the members it needs and stops quietly at the
// first thing it does not understand: validation is the session's business.
func clientScan(data []byte) []clientMessage {
	if k := firstByte(data); k == '{' {
		// One message, the usual payload: probed without a decoder.
		return []clientMessage{clientProbe(data)}
	}
	d := jsontext.NewDecoder(bytes.NewReader(data))
	switch d.PeekKind() {
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return nil
		}
		var msgs []clientMessage
		for d.PeekKind() == '{' {
			var m clientMessage
			if !clientScanMessage(d, &m) {
				return append(msgs, m)
			}
			msgs = append(msgs, m)
		}
		return msgs
	}
	return nil
}

// firstByte returns the first byte of data that is not JSON white space, or
// 0.
func firstByte(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// clientProbe reads the envelope of the message object v as
// clientScanMessage does, looking only at the members it needs.
func clientProbe(v []byte) clientMessage {
	var m clientMessage
	raw, hasID := wire.Member(v, "id")
	if hasID {
		if k := jsontext.Value(raw).Kind(); (k != '"' && k != '0') || wire.Unmarshal(raw, &m.id) != nil {
			hasID, m.id = false, wire.ID{}
		}
	}
	raw, hasMethod := wire.Member(v, "method")
	if hasMethod {
		if jsontext.Value(raw).Kind() == '"' {
			m.method, _ = wire.MemberString(v, "method")
		} else {
			hasMethod = false
		}
	}
	result, hasResult := wire.Member(v, "result")
	if hasResult {
		if pv, ok := wire.Member(result, "protocolVersion"); ok && len(pv) > 0 && pv[0] == '"' {
			m.version, _ = wire.MemberString(result, "protocolVersion")
		}
	}
	switch {
	case hasMethod && hasID:
		m.kind = jsonrpc.Request
	case hasMethod:
		m.kind = jsonrpc.Notification
	case hasResult:
		m.kind = jsonrpc.Response
	case wire.Has(v, "error"):
		m.kind = jsonrpc.ErrorResponse
	}
	return m
}

// clientScanMessage reads one message object into m; false when it could
// not read all of it.
func clientScanMessage(d *jsontext.Decoder, m *clientMessage) bool {
	if _, err := d.ReadToken(); err != nil {
		return false
	}
	var hasMethod, hasResult, hasError, hasID bool
	ok := func() bool {
		for d.PeekKind() == '"' {
			tok, err := d.ReadToken()
			if err != nil {
				return false
			}
			switch tok.String() {
			case "id":
				if k := d.PeekKind(); k == '"' || k == '0' {
					// An id that is no valid ID (1.5, 1e99) is no id, as for
					// clientProbe: the rest of the message is still read.
					v, err := d.ReadValue()
					if err != nil {
						return false
					}
					hasID = wire.Unmarshal(v, &m.id) == nil
					continue
				}
			case "method":
				if d.PeekKind() == '"' {
					tok, err := d.ReadToken()
					if err != nil {
						return false
					}
					m.method, hasMethod = tok.String(), true
					continue
				}
			case "result":
				hasResult = true
				v, err := d.ReadValue()
				if err != nil {
					return false
				}
				if pv, ok := wire.Member(v, "protocolVersion"); ok && len(pv) > 0 && pv[0] == '"' {
					m.version, _ = wire.MemberString(v, "protocolVersion")
				}
				continue
			case "error":
				hasError = true
			}
			if err := d.SkipValue(); err != nil {
				return false
			}
		}
		_, err := d.ReadToken() // '}'
		return err == nil
	}()
	switch {
	case hasMethod && hasID:
		m.kind = jsonrpc.Request
	case hasMethod:
		m.kind = jsonrpc.Notification
	case hasResult:
		m.kind = jsonrpc.Response
	case hasError:
		m.kind = jsonrpc.ErrorResponse
	}
	if !hasID {
		m.id = wire.ID{}
	}
	return ok
}
