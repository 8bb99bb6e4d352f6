package session_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestExtensionMethod: a client calls an extension's method with the
// method's table entry (session.ExtensionMethod); without it the call is
// refused before anything is sent.
func TestExtensionMethod(t *testing.T) {
	x := &probeExt{id: testExtID, methods: []string{"probe/echo"}}
	srv := m26.NewServer(m26.Implementation{Name: "ext", Version: "1"}, m26.WithExtension(x))
	echo := wire.Method{Name: "probe/echo", Direction: wire.ClientToServer, Message: "ProbeRequest"}
	tests := []struct {
		name   string
		method string
		opts   []session.CallOption
		want   string // the result, or the error's text
		sent   bool
	}{
		{"with the entry", "probe/echo", []session.CallOption{session.ExtensionMethod(echo)}, `{"method":"probe/echo","declared":false,"v":7,`, true},
		{"without it", "probe/echo", nil, "probe/echo: not a request a client may send in revision 2026-07-28", false},
		{"another method's entry", "probe/other", []session.CallOption{session.ExtensionMethod(echo)}, "probe/other: not a request a client may send", false},
		{"an entry the server does not serve", "probe/none", []session.CallOption{session.ExtensionMethod(wire.Method{Name: "probe/none", Direction: wire.ClientToServer})}, "-32601", true},
		{"a server-to-client entry", "probe/back", []session.CallOption{session.ExtensionMethod(wire.Method{Name: "probe/back", Direction: wire.ServerToClient})}, "probe/back: not a request a client may send", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, rec := connect26(t, srv.Handler(), m26.UnimplementedClient{}, session.Options{})
			raw, err := cs.Call(t.Context(), tt.method, session.Raw(`{"v":7}`), tt.opts...)
			got := string(raw)
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("Call = %s, want %s", got, tt.want)
			}
			want := []string{"server/discover"}
			if tt.sent {
				want = append(want, tt.method)
			}
			if diff := cmp.Diff(want, rec.methods()); diff != "" {
				t.Errorf("methods sent (-want +got):\n%s", diff)
			}
		})
	}
}
