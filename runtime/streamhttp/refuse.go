package streamhttp

import (
	"fmt"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A refusal is how the server answers a request it turns away at the HTTP
// level (a bad header, no such session, a body too large, …): an HTTP error
// status and, as the body, JSON-RPC error responses.
//
// Each request of a POST body whose id could be read gets an error response
// with that id: one object for a single message, an array for a batch.
// The id of a response or notification is never echoed: those are not
// answered. When no request id could be read (the body is not JSON, holds
// no request, or the request is a GET or DELETE), the body is one error
// response without an id. Which form that takes depends on the revision the
// request claims (MCP-Protocol-Version) or its session negotiated:
//
//   - 2025-11-25, or no revision known: the id member is left out, as the
//     2025-11-25 schema allows for an error whose request id could not be
//     read;
//   - before it (2025-03-26, 2025-06-18): "id": null. Those schemas require
//     an id and allow no form without one, so every answer is invalid there;
//     null is what JSON-RPC 2.0, which they build on, prescribes for an id
//     that could not be read, and what generic JSON-RPC peers expect.
type refusal struct {
	items []jsonrpc.Item // the decoded body, whose requests are answered
	ids   []wire.ID      // or the ids of the requests of a body not decoded
	batch bool           // the body was an array: the errors go in one
	rev   string         // the revision the MCP-Protocol-Version header names, if linked in
	conn  *conn          // the session, once found: its revision counts when rev is ""
}

// refuse answers with status and the JSON-RPC errors of rf (see refusal).
func refuse(w http.ResponseWriter, rf refusal, status int, code int64, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	b, err := rf.appendBody(nil, &jsonrpc.Error{Code: code, Message: msg})
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// appendBody appends the JSON-RPC body of the refusal with error e.
func (rf refusal) appendBody(b []byte, e *jsonrpc.Error) ([]byte, error) {
	ids := rf.ids
	if rf.items != nil {
		// Read here, not where the body was decoded: what refuse is given
		// escapes, and the POST path would pay for a slice of ids.
		ids = jsonrpc.RequestIDs(rf.items)
	}
	return jsonrpc.AppendErrorResponses(b, ids, rf.batch, rf.nullID(), e)
}

// nullID reports whether an error without a request id is written with
// "id": null: when the revision that applies is one before 2025-11-25.
func (rf refusal) nullID() bool {
	rev := rf.rev
	if rev == "" && rf.conn != nil {
		if r := rf.conn.sess.Revision(); r != nil {
			rev = r.Name
		}
	}
	return rev != "" && rev < "2025-11-25"
}

// claimedRevision returns the revision the MCP-Protocol-Version header of r
// names, or "" when it names none linked in.
func claimedRevision(r *http.Request) string {
	v := r.Header.Get(versionKey)
	if _, ok := revision.Lookup(v); !ok {
		return ""
	}
	return v
}

// peekRequestIDs reads the ids of the requests in body, a payload that was
// cut at the size limit or could not be read to its end (see
// httpmsg.PeekRequestIDs).
func peekRequestIDs(body []byte) (ids []wire.ID, batch bool) { return httpmsg.PeekRequestIDs(body) }
