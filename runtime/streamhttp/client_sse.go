package streamhttp

import (
	"bytes"

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
		if k := rawID.Kind(); (k != '"' && k != '0') || wire.Unmarshal(rawID, &m.id) != nil {
			hasID, m.id = false, wire.ID{}
		}
	}
	if hasMethod {
		if rawMethod.Kind() == '"' {
			m.method, _ = wire.MemberString(v, "method")
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
