package bench

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The benchmarks' raw client reads answers with a few byte scans; these
// tests pin what the scans accept, and that the requests it sends are valid
// 2026-07-28 tools/call requests.

func TestModernRequestsAreValid(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		caps       string
		responses  bool
		state      string
	}{
		{"echo", string(modernEchoRequest(nil, 7)), `{}`, false, ""},
		{"MRTR call", string(mrtrAskRequest(nil, 8)), `{"elicitation":{}}`, false, ""},
		{"MRTR retry", string(mrtrRetryRequest(nil, 9, []byte(`AQ-x_y`))), `{"elicitation":{}}`, true, "AQ-x_y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, batch, err := jsonrpc.DecodeOwned([]byte(tc.body), false)
			if err != nil || batch || len(items) != 1 || items[0].Err != nil {
				t.Fatalf("DecodeOwned(%s) = %v, batch %v, %v", tc.body, items, batch, err)
			}
			m := items[0].Msg
			if m.Kind != jsonrpc.Request || m.Method != "tools/call" {
				t.Fatalf("decoded %+v, want a tools/call request", m)
			}
			var p m26.CallToolRequestParams
			if err := wire.Unmarshal(m.Params, &p); err != nil {
				t.Fatalf("params are not 2026-07-28 CallToolRequestParams: %v", err)
			}
			meta, _ := wire.Member(m.Params, "_meta")
			v, _ := wire.MemberString(meta, session.MetaProtocolVersion)
			caps, _ := wire.Member(meta, session.MetaClientCapabilities)
			got := struct {
				Version, Caps, State string
				Info, Responses      bool
			}{v, string(caps), "", wire.Has(meta, session.MetaClientInfo), p.InputResponses != nil}
			if p.RequestState != nil {
				got.State = *p.RequestState
			}
			want := struct {
				Version, Caps, State string
				Info, Responses      bool
			}{modernVersion, tc.caps, tc.state, true, tc.responses}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("request (-want +got):\n%s", d)
			}
		})
	}
}

func TestRequestState(t *testing.T) {
	for _, tc := range []struct {
		name, ans, want string
		ok              bool
	}{
		{"plain", `{"result":{"resultType":"input_required","requestState":"abc"}}`, "abc", true},
		{"escapes kept", `{"result":{"resultType":"input_required","requestState":"a\"b\\\\c\u003c"}}`, `a\"b\\\\c\u003c`, true},
		{"empty", `{"result":{"resultType":"input_required","requestState":""}}`, "", true},
		{"complete", `{"result":{"resultType":"complete","requestState":"abc"}}`, "", false},
		{"no state", `{"result":{"resultType":"input_required"}}`, "", false},
		{"unterminated", `{"result":{"resultType":"input_required","requestState":"ab\"`, "", false},
		{"trailing backslash", `{"resultType":"input_required","requestState":"ab\`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := requestState([]byte(tc.ans))
			if (err == nil) != tc.ok {
				t.Fatalf("requestState(%s) error %v, want ok %v", tc.ans, err, tc.ok)
			}
			if d := cmp.Diff(tc.want, string(got)); d != "" {
				t.Errorf("requestState(%s) (-want +got):\n%s", tc.ans, d)
			}
		})
	}
}

func TestAnswerID(t *testing.T) {
	for _, tc := range []struct {
		line string
		id   int64
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":42,"result":{}}`, 42, true},
		{`{"jsonrpc":"2.0","result":{},"id":7}`, 7, true},
		{`{"jsonrpc":"2.0","method":"notifications/message"}`, 0, false},
		{`{"jsonrpc":"2.0","id":"s-1","result":{}}`, 0, false},
		{`{"jsonrpc":"2.0","id":null,"error":{}}`, 0, false},
		{`{"id":99999999999999999999}`, 0, false},
	} {
		id, ok := answerID([]byte(tc.line))
		if d := cmp.Diff(struct {
			ID int64
			OK bool
		}{tc.id, tc.ok}, struct {
			ID int64
			OK bool
		}{id, ok}); d != "" {
			t.Errorf("answerID(%s) (-want +got):\n%s", tc.line, d)
		}
	}
}

func TestLastSSEData(t *testing.T) {
	for _, tc := range []struct{ stream, want string }{
		{"event: message\ndata: {\"a\":1}\n\n", `{"a":1}`},
		{"event: message\ndata: {\"a\":1}\n\nevent: message\ndata:{\"b\":2}\n\n", `{"b":2}`},
		{": keep-alive\n\n", ""},
		{"", ""},
	} {
		if d := cmp.Diff(tc.want, string(lastSSEData([]byte(tc.stream)))); d != "" {
			t.Errorf("lastSSEData(%q) (-want +got):\n%s", tc.stream, d)
		}
	}
}

// FuzzRequestState: any answer bytes give the state or an error, never a
// panic; a state found lies inside the answer after the tag and holds no
// unescaped quote.
func FuzzRequestState(f *testing.F) {
	f.Add([]byte(`{"result":{"resultType":"input_required","requestState":"a\"b"}}`))
	f.Add([]byte(`"resultType":"input_required","requestState":"\`))
	f.Fuzz(func(t *testing.T, ans []byte) {
		st, err := requestState(ans)
		if err != nil {
			return
		}
		if !strings.Contains(string(ans), string(stateTag)+string(st)+`"`) {
			t.Fatalf("state %q is not followed by its quote in %q", st, ans)
		}
		for i := 0; i < len(st); i++ {
			switch st[i] {
			case '\\':
				i++
			case '"':
				t.Fatalf("state %q holds an unescaped quote", st)
			}
		}
	})
}

// FuzzAnswerID: any line gives an id or not, never a panic; an id found is
// not negative and follows an "id": in the line.
func FuzzAnswerID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":42,"result":{}}`))
	f.Add([]byte(`"id":`))
	f.Fuzz(func(t *testing.T, line []byte) {
		id, ok := answerID(line)
		if !ok {
			return
		}
		i := strings.Index(string(line), `"id":`)
		if id < 0 || i < 0 || i+5 >= len(line) || line[i+5] < '0' || line[i+5] > '9' {
			t.Fatalf("answerID(%q) = %d, but the line has no digits after its first \"id\":", line, id)
		}
	})
}
