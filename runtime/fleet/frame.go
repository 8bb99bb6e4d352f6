package fleet

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/go-json-experiment/json"
)

// frame is one message of a Tunnel: a JSON head, a newline, and the
// payload's raw bytes (a request's body, a piece of an answer's body).
type frame struct {
	// Op says what the frame is: opRequest goes to the owner, opHead,
	// opData and opEnd come back, opCancel and opPing go to the owner.
	Op string `json:"op"`
	// Key names the request: the forwarding instance's ID, a dot, a
	// number.
	Key string `json:"key"`
	// Request: the method, the target (path and query), the headers, the
	// principal the forwarding instance found.
	Method    string      `json:"method,omitzero"`
	Target    string      `json:"target,omitzero"`
	Header    http.Header `json:"header,omitzero"`
	Principal string      `json:"principal,omitzero"`
	Host      string      `json:"host,omitzero"`
	Remote    string      `json:"remote,omitzero"` // the client's address, for logs
	// Head: the status.
	Status int `json:"status,omitzero"`
	// Data: the number of the piece, from 1.
	Seq int64 `json:"seq,omitzero"`

	payload []byte
}

const (
	opRequest = "request"
	opHead    = "head"
	opData    = "data"
	opEnd     = "end"
	opCancel  = "cancel"
	opPing    = "ping"
)

// maxFrameHead bounds the JSON head of a frame.
const maxFrameHead = 64 << 10

func (f *frame) encode() ([]byte, error) {
	head, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("fleet: encoding a tunnel frame: %w", err)
	}
	b := make([]byte, 0, len(head)+1+len(f.payload))
	b = append(b, head...)
	b = append(b, '\n')
	return append(b, f.payload...), nil
}

// decodeFrame reads a frame another instance sent. It refuses what no
// instance sends: a head that is not one JSON object, that is too long,
// or that has an unknown op or no key.
func decodeFrame(msg []byte) (*frame, error) {
	i := bytes.IndexByte(msg, '\n')
	if i < 0 {
		return nil, fmt.Errorf("fleet: tunnel frame of %d bytes has no head", len(msg))
	}
	if i > maxFrameHead {
		return nil, fmt.Errorf("fleet: tunnel frame head of %d bytes is longer than %d", i, maxFrameHead)
	}
	f := &frame{}
	if err := json.Unmarshal(msg[:i], f, json.RejectUnknownMembers(false)); err != nil {
		return nil, fmt.Errorf("fleet: tunnel frame head: %w", err)
	}
	switch f.Op {
	case opRequest, opHead, opData, opEnd, opCancel, opPing:
	default:
		return nil, fmt.Errorf("fleet: tunnel frame has unknown op %q", f.Op)
	}
	if f.Key == "" {
		return nil, fmt.Errorf("fleet: tunnel frame %q has no key", f.Op)
	}
	if f.Op == opHead && (f.Status < 100 || f.Status > 999) {
		return nil, fmt.Errorf("fleet: tunnel frame head has status %d", f.Status)
	}
	f.payload = msg[i+1:]
	return f, nil
}
