package validate

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TransportOptions configure Transport.
type TransportOptions struct {
	// Side is the side the session plays: inbound messages come from the
	// other one. AnySide tells senders apart by their methods.
	Side Side
	// Debug validates outbound messages too; their problems are logged and
	// the messages sent anyway.
	Debug bool
	// Logger receives what is dropped or found invalid; nil is
	// slog.Default().
	Logger *slog.Logger
}

// Transport wraps t so that every inbound message is validated against v
// before the session reads it:
//
//   - a request whose params the schema rejects is answered with -32602
//     (invalid params) naming the JSON pointer and reason of each problem
//     (in the message, "invalid params: /params/name: ..."; in data, the
//     list {"problems":[{"pointer","reason"}...]}), and is not passed on;
//   - a notification the schema rejects is dropped and logged (a
//     notification is never answered);
//   - everything else is passed on unchanged, the session answering it as
//     it would: malformed JSON, duplicate member names and bad envelopes
//     (-32700/-32600), unknown methods (-32601). Invalid responses are
//     logged and passed on, so that the pending call still ends;
//   - a message whose only problems are of the metadata rules (RuleMeta,
//     RuleIcon) is logged and passed on: the specification asks receivers
//     to ignore reserved _meta keys they do not know and to refuse such
//     icons, not to reject the message.
//
// In a batch (2025-03-26), the rejected messages are taken out of the batch
// and answered in a batch of their own.
//
// Outbound messages are inspected to pair inbound responses with the
// requests they answer; with Debug they are validated too.
func Transport(t transport.Transport, v *Validator, opts TransportOptions) transport.Transport {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &validating{t: t, v: v, opts: opts, stream: v.Stream()}
}

type validating struct {
	t    transport.Transport
	v    *Validator
	opts TransportOptions

	mu     sync.Mutex
	stream *Stream
}

func (w *validating) Close() error { return w.t.Close() }

// Describe forwards to the transport it wraps (transport.Describer).
func (w *validating) Describe() transport.Info { return transport.Describe(w.t) }

func (w *validating) Write(ctx context.Context, data []byte) error {
	w.mu.Lock()
	reports := w.stream.payload(data, 0, w.opts.Side, w.opts.Debug)
	w.mu.Unlock()
	if w.opts.Debug {
		for _, r := range reports {
			if !r.Valid() {
				w.log("outbound message invalid", r)
			}
		}
	}
	return w.t.Write(ctx, data)
}

func (w *validating) Read(ctx context.Context) ([]byte, error) {
	for {
		data, err := w.t.Read(ctx)
		if err != nil {
			return data, err
		}
		out, answers := w.inbound(data)
		if len(answers) > 0 {
			if err := w.t.Write(ctx, answers); err != nil {
				return nil, err
			}
		}
		if out != nil {
			return out, nil
		}
	}
}

// inbound validates one inbound payload and returns what to pass on (nil
// for nothing) and the error responses to send back (nil for none).
func (w *validating) inbound(data []byte) (pass, answers []byte) {
	w.mu.Lock()
	reports := w.stream.payload(data, 0, w.opts.Side.other(), true)
	w.mu.Unlock()
	elems, _, batch, p := splitPayload(data)
	if p != nil || len(elems) != len(reports) {
		return data, nil // the session rejects it as a whole
	}
	var kept []jsontext.Value
	var errs []*jsonrpc.Message
	for i, r := range reports {
		if r.Valid() {
			kept = append(kept, elems[i])
			continue
		}
		switch reject(r) {
		case KindRequest:
			w.log("inbound request invalid, answered with -32602", r)
			errs = append(errs, invalidParams(r))
		case KindNotification:
			w.log("inbound notification invalid, dropped", r)
		default:
			w.log("inbound message invalid", r)
			kept = append(kept, elems[i])
		}
	}
	if len(errs) > 0 {
		var err error
		if batch {
			answers, err = jsonrpc.AppendBatch(nil, errs)
		} else {
			answers, err = jsonrpc.Encode(errs[0])
		}
		if err != nil {
			w.opts.Logger.Error("validate: encoding an error response", "err", err)
			answers = nil
		} else {
			// The answers never reach Write: show them to the stream, so
			// that it forgets the requests they answer.
			w.mu.Lock()
			w.stream.payload(answers, 0, w.opts.Side, false)
			w.mu.Unlock()
		}
	}
	switch {
	case len(kept) == len(elems):
		return data, answers
	case len(kept) == 0:
		return nil, answers
	}
	var b []byte
	b = append(b, '[')
	for i, k := range kept {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, k...)
	}
	return append(b, ']'), answers
}

// reject returns the kind of an invalid message that Transport keeps from
// the session: a request or notification of a known method, sent in the
// right direction, whose problems are all schema problems of its params;
// "" for a message to pass on.
func reject(r Report) string {
	if r.Kind != KindRequest && r.Kind != KindNotification {
		return ""
	}
	for _, p := range r.Problems {
		if p.Rule != RuleSchema || (p.Pointer != "/params" && !strings.HasPrefix(p.Pointer, "/params/")) {
			return ""
		}
	}
	return r.Kind
}

// invalidParams is the -32602 answer to an invalid request.
func invalidParams(r Report) *jsonrpc.Message {
	var id wire.ID
	_ = id.UnmarshalJSON(r.ID) // the envelope was valid, so is the id
	parts := make([]string, 0, len(r.Problems))
	for _, p := range r.Problems {
		parts = append(parts, p.String())
	}
	data, _ := json.Marshal(struct {
		Problems []Problem `json:"problems"`
	}{r.Problems})
	return &jsonrpc.Message{
		Kind:  jsonrpc.ErrorResponse,
		ID:    id,
		Error: &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "invalid params: " + strings.Join(parts, "; "), Data: data},
	}
}

func (w *validating) log(msg string, r Report) {
	attrs := []any{"index", r.Index, "kind", r.Kind}
	if r.Method != "" {
		attrs = append(attrs, "method", r.Method)
	}
	if r.ID != nil {
		attrs = append(attrs, "id", string(r.ID))
	}
	parts := make([]string, 0, len(r.Problems))
	for _, p := range r.Problems {
		parts = append(parts, p.String())
	}
	attrs = append(attrs, "problems", strings.Join(parts, "; "))
	w.opts.Logger.Warn("validate: "+msg, attrs...)
}
