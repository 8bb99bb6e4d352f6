package httpmsg

import (
	"bytes"
	"errors"
	"io"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// PeekRequestIDs reads the ids of the requests in body, a payload that was
// cut at the size limit or could not be read to its end: as far as it goes,
// the members of each message object are read (values skipped), and a
// message whose "method" is a string and whose "id" a string or number
// counts as a request (a number id that ends the input may be cut short,
// and does not count). A message with "result" or "error" does not. A
// message that is not JSON, or repeats a member name, before the cut is not
// trusted: it and what follows give no ids.
func PeekRequestIDs(body []byte) (ids []wire.ID, batch bool) {
	d := jsontext.NewDecoder(bytes.NewReader(body))
	switch d.PeekKind() {
	case '{':
		if id, ok, _ := peekRequestID(d); ok {
			ids = []wire.ID{id}
		}
		return ids, false
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, true
		}
		for d.PeekKind() == '{' {
			id, ok, complete := peekRequestID(d)
			if ok {
				ids = append(ids, id)
			}
			if !complete {
				break
			}
		}
		return ids, true
	}
	return nil, false
}

// peekRequestID reads one message object from d for PeekRequestIDs. ok
// says whether it is a request with a readable id; complete whether the
// whole object was read.
func peekRequestID(d *jsontext.Decoder) (id wire.ID, ok, complete bool) {
	var hasID, hasMethod, response bool
	var err error
	if _, err = d.ReadToken(); err == nil {
	members:
		for d.PeekKind() == '"' {
			var name jsontext.Token
			if name, err = d.ReadToken(); err != nil {
				break
			}
			switch name.String() {
			case "id":
				if k := d.PeekKind(); k == '"' || k == '0' {
					if err = id.UnmarshalJSONFrom(d); err != nil {
						break members
					}
					// A number the input ends with may be cut short (12 read
					// as 1): only one followed by something counts.
					hasID = k == '"' || d.PeekKind() != 0
					continue
				}
			case "method":
				if d.PeekKind() == '"' {
					if _, err = d.ReadToken(); err != nil {
						break members
					}
					hasMethod = true
					continue
				}
			case "result", "error":
				response = true
			}
			if err = d.SkipValue(); err != nil {
				break
			}
		}
		if err == nil {
			_, err = d.ReadToken() // '}'
		}
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return wire.ID{}, false, false // not JSON, or ambiguous: not trusted
	}
	return id, hasID && hasMethod && !response, err == nil
}
