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
	sc       *bufio.Scanner
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

// newClientSSE reads r, which continues a stream whose last event id was
// lastID.
func newClientSSE(r io.Reader, lastID string) *clientSSE {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), clientMaxPayload)
	sc.Split(clientSplitLines())
	return &clientSSE{sc: sc, first: true, idBuf: lastID, lastID: lastID}
}

// clientSplitLines splits at CRLF, LF and CR.
func clientSplitLines() bufio.SplitFunc {
	skipLF := false // the previous line ended in a CR at the end of the data
	return func(data []byte, atEOF bool) (int, []byte, error) {
		adv := 0
		if skipLF && len(data) > 0 {
			skipLF = false
			if data[0] == '\n' {
				adv, data = 1, data[1:]
			}
		}
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			if data[i] == '\n' {
				return adv + i + 1, data[:i], nil
			}
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return adv + i + 2, data[:i], nil
				}
				return adv + i + 1, data[:i], nil
			}
			skipLF = true
			return adv + i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return adv + len(data), data, nil
		}
		return adv, nil, nil
	}
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
	for r.sc.Scan() {
		line := r.sc.Bytes()
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
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return clientSSEEvent{}, fmt.Errorf("streamhttp: SSE line longer than %d bytes", clientMaxPayload)
		}
		return clientSSEEvent{}, err
	}
	return clientSSEEvent{}, io.EOF
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
