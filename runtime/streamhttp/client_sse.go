package streamhttp

import (
	"bytes"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

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
	return clientScanInto(nil, data)
}

// clientScanInto is clientScan that puts the envelope of a single message
// in one, a caller's array (on its stack, say), rather than a new slice.
func clientScanInto(one *[1]clientMessage, data []byte) []clientMessage {
	if k := firstByte(data); k == '{' {
		// One message, the usual payload: probed without a decoder.
		if one == nil {
			one = new([1]clientMessage)
		}
		one[0] = clientProbe(data)
		return one[:]
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

// clientMethod returns the method of the message object v, whose method
// member is the JSON string raw: the methods a client sends most without
// allocating (the Write of every POST probes its payload), others unescaped.
func clientMethod(v, raw jsontext.Value) string {
	if len(raw) >= 2 {
		switch string(raw[1 : len(raw)-1]) { // no escapes in these: the bytes are the name
		case "tools/call":
			return "tools/call"
		case "tools/list":
			return "tools/list"
		case "resources/read":
			return "resources/read"
		case "prompts/get":
			return "prompts/get"
		case "ping":
			return "ping"
		case "initialize":
			return "initialize"
		case "notifications/initialized":
			return "notifications/initialized"
		case "notifications/cancelled":
			return "notifications/cancelled"
		case "notifications/progress":
			return "notifications/progress"
		}
	}
	s, _ := wire.MemberString(v, "method")
	return s
}

// clientProbe reads the envelope of the message object v as
// clientScanMessage does, looking only at the members it needs.
func clientProbe(v []byte) clientMessage {
	var m clientMessage
	var rawID, rawMethod, result jsontext.Value
	var hasID, hasMethod, hasResult, hasError bool
	// One pass over the members (the first of each name counts, as with
	// wire.Member).
	ms := wire.ScanMembers(v)
	for ms.Next() {
		switch {
		case !hasID && ms.NameIs("id"):
			rawID, hasID = ms.Value(), true
		case !hasMethod && ms.NameIs("method"):
			rawMethod, hasMethod = ms.Value(), true
		case !hasResult && ms.NameIs("result"):
			result, hasResult = ms.Value(), true
		case !hasError && ms.NameIs("error"):
			hasError = true
		}
	}
	if hasID {
		if k := rawID.Kind(); k == '"' || k == '0' {
			m.id, hasID = readID(rawID)
		} else {
			hasID = false
		}
	}
	if hasMethod {
		if rawMethod.Kind() == '"' {
			m.method = clientMethod(v, rawMethod)
		} else {
			hasMethod = false
		}
	}
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
	case hasError:
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

// readID reads the JSON-RPC id raw (a string or an integer) as
// wire.Unmarshal does, without a decoder for the usual ids: an integer
// written plainly, a string with no escapes. Anything else goes through
// wire.Unmarshal. ok is false when raw is not an id.
func readID(raw jsontext.Value) (wire.ID, bool) {
	if n, ok := plainInt(raw); ok {
		return wire.IntID(n), true
	}
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		inner := raw[1 : len(raw)-1]
		plain := utf8.Valid(inner)
		for _, c := range inner {
			if c < 0x20 || c == '\\' || c == '"' {
				plain = false
				break
			}
		}
		if plain {
			return wire.StringID(string(inner)), true
		}
	}
	return decodeID(raw)
}

// decodeID reads raw with wire.Unmarshal (its id escapes to the heap: a
// function of its own keeps readID's fast paths free of that).
func decodeID(raw jsontext.Value) (wire.ID, bool) {
	var id wire.ID
	if wire.Unmarshal(raw, &id) != nil {
		return wire.ID{}, false
	}
	return id, true
}

// plainInt reads raw if it is a JSON integer without fraction or exponent
// that fits an int64.
func plainInt(raw []byte) (int64, bool) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || digits[0] == '0' && len(digits) > 1 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if raw[0] == '-' {
		n = -n
	}
	return n, true
}
