package otelmcp

import (
	"context"
	"errors"
	"time"

	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ended records the duration of a legacy session (one that began with
// initialize) once it has ended; a session of the stateless era is no
// session in the convention's sense, and records nothing.
func (st *sessionState) ended(s *session.Session) {
	rev := s.Revision()
	if rev == nil || !rev.Handshake() {
		return
	}
	d := time.Since(st.start).Seconds()
	m := &message{net: transport.Describe(s.Transport()), version: rev.Name}
	kv := make([]attribute.KeyValue, 0, 8)
	if err := s.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		kv = append(kv, attribute.String(attrErrorType, sessionError(err)))
	}
	kv = append(kv, attribute.String(attrProtocolVersion, rev.Name))
	kv = m.network(kv)
	h := st.in.serverSession
	if s.Role() == session.Client {
		h = st.in.clientSession
		m.peerAddr, m.peerPort = m.net.Address, m.net.Port
		kv = m.peer(kv, session.Client)
	}
	h.Record(context.Background(), d, metric.WithAttributeSet(attribute.NewSet(kv...)))
}

// sessionError is error.type of a session that ended with err.
func sessionError(err error) string {
	if errors.Is(err, session.ErrPeerNotReading) {
		return "peer_not_reading"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errTimeout
	}
	return errOther
}
