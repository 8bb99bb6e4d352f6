package validate_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/validate"
)

// described is a transport that tells what it runs over.
type described struct {
	transport.Transport
	info transport.Info
}

func (d described) Describe() transport.Info { return d.info }

// TestTransportDescribe checks that the validating transport tells what
// the transport it wraps tells (transport.Describer), and nothing of one
// that tells nothing.
func TestTransportDescribe(t *testing.T) {
	v := validator(t, "2025-11-25")
	_, pipe := transport.Pipe()
	http := transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "1.1", Address: "127.0.0.1", Port: 8080, SessionID: "s"}
	for _, tc := range []struct {
		name string
		t    transport.Transport
		want transport.Info
	}{
		{"describer", described{pipe, http}, http},
		{"pipe", pipe, transport.Info{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := validate.Transport(tc.t, v, validate.TransportOptions{Side: validate.Server, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if got := transport.Describe(w); got != tc.want {
				t.Errorf("Describe = %+v, want %+v", got, tc.want)
			}
		})
	}
}
