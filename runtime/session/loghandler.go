package session

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The slog levels of the MCP log levels slog does not name; LevelDebug,
// LevelInfo, LevelWarn and LevelError are MCP's debug, info, warning and
// error.
const (
	LevelNotice    = slog.Level(2)
	LevelCritical  = slog.Level(12)
	LevelAlert     = slog.Level(16)
	LevelEmergency = slog.Level(20)
)

// mcpLevel returns the index in logLevels of the MCP level a slog level
// falls in: below slog.LevelInfo is debug, [Info, LevelNotice) info,
// [LevelNotice, Warn) notice, [Warn, Error) warning, [Error,
// LevelCritical) error, and so on up to emergency from LevelEmergency.
func mcpLevel(l slog.Level) int {
	switch {
	case l < slog.LevelInfo:
		return 0
	case l < LevelNotice:
		return 1
	case l < slog.LevelWarn:
		return 2
	case l < slog.LevelError:
		return 3
	case l < LevelCritical:
		return 4
	case l < LevelAlert:
		return 5
	case l < LevelEmergency:
		return 6
	}
	return 7
}

// MessageHandler is a slog.Handler that sends each record to the peer as
// notifications/message: its level mapped to MCP's (see LevelNotice), and
// as data an object with the message under "msg" and the attributes,
// groups as nested objects (a later attribute replaces an earlier one of
// the same name). Records below the level the client asked for are not
// sent: on a legacy session the level of logging/setLevel (all of them
// before the client sets one), on a stateless request the log level of its
// _meta (none when it names none).
//
// Handle returns the error of sending, which slog.Logger drops; it is an
// error to log on a session whose server did not declare the logging
// capability.
type MessageHandler struct {
	ctx    context.Context // a handler's, or nil when bound to s
	s      *Session
	logger string
	ops    []attrOp
	groups []string
}

// attrOp is a WithAttrs call: attributes under the groups open then.
type attrOp struct {
	groups []string
	attrs  []slog.Attr
}

// LogHandler returns a MessageHandler for the request whose handler ctx
// belongs to: its records go where the request's notifications go (on
// Streamable HTTP, the request's stream), by the request's level rules.
// Outside a handler's context it sends nothing. Use it as
// slog.New(session.LogHandler(ctx)).
func LogHandler(ctx context.Context) *MessageHandler {
	return &MessageHandler{ctx: ctx}
}

// LogHandler returns a MessageHandler bound to the session rather than to
// one request: for a server's log messages that belong to no request. Its
// records are sent with the context Handle gets.
func (s *Session) LogHandler() *MessageHandler {
	return &MessageHandler{s: s}
}

// WithLogger returns a handler whose messages name the logger name (the
// "logger" member of notifications/message).
func (h *MessageHandler) WithLogger(name string) *MessageHandler {
	h2 := *h
	h2.logger = name
	return &h2
}

// Enabled reports whether a record at level would be sent now.
func (h *MessageHandler) Enabled(_ context.Context, level slog.Level) bool {
	i := mcpLevel(level)
	if h.s != nil {
		h.s.mu.Lock()
		min := h.s.logLevel
		h.s.mu.Unlock()
		return i >= min
	}
	ri, ok := h.ctx.Value(requestKey{}).(*requestInfo)
	if !ok {
		return false
	}
	if ri.mod() != nil {
		return ri.levelAllowed(i)
	}
	if ri.s == nil {
		return false
	}
	ri.s.mu.Lock()
	min := ri.s.logLevel
	ri.s.mu.Unlock()
	return i >= min
}

// Handle sends r, if Enabled.
func (h *MessageHandler) Handle(ctx context.Context, r slog.Record) error {
	if !h.Enabled(ctx, r.Level) {
		return nil
	}
	root := &logObject{}
	root.set("msg", quote(r.Message))
	for _, op := range h.ops {
		o := root.path(op.groups)
		for _, a := range op.attrs {
			o.add(a)
		}
	}
	if r.NumAttrs() > 0 {
		o := root.path(h.groups)
		r.Attrs(func(a slog.Attr) bool {
			o.add(a)
			return true
		})
	}
	e := wire.NewEncoder(nil)
	root.encode(&e)
	data, err := e.Bytes()
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	level := logLevels[mcpLevel(r.Level)]
	if h.s != nil {
		return h.s.Log(ctx, level, h.logger, data)
	}
	return Log(h.ctx, level, h.logger, data)
}

// WithAttrs returns a handler whose records carry attrs too, in the groups
// open now.
func (h *MessageHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	h2 := *h
	h2.ops = append(h.ops[:len(h.ops):len(h.ops)], attrOp{groups: h.groups, attrs: attrs})
	return &h2
}

// WithGroup returns a handler whose later attributes go in the group name.
func (h *MessageHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.groups = append(h.groups[:len(h.groups):len(h.groups)], name)
	return &h2
}

var _ slog.Handler = (*MessageHandler)(nil)

// logObject is a JSON object being built from attributes, in the order
// its members were first set.
type logObject struct {
	keys []string
	vals []any // jsontext.Value or *logObject
}

// index finds key, whose invalid UTF-8 was replaced (see validKey).
func (o *logObject) index(key string) int {
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (o *logObject) set(key string, v any) {
	key = validKey(key)
	if i := o.index(key); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
}

// sub returns the member object key, made (or replacing a value) if need be.
func (o *logObject) sub(key string) *logObject {
	key = validKey(key)
	if i := o.index(key); i >= 0 {
		if s, ok := o.vals[i].(*logObject); ok {
			return s
		}
	}
	s := &logObject{}
	o.set(key, s)
	return s
}

func (o *logObject) path(groups []string) *logObject {
	for _, g := range groups {
		o = o.sub(g)
	}
	return o
}

// add adds the attribute a, by slog's rules: an empty attribute is
// ignored, an empty group too, and a group without a name is inlined.
func (o *logObject) add(a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		attrs := a.Value.Group()
		if len(attrs) == 0 {
			return
		}
		dst := o
		if a.Key != "" {
			dst = o.sub(a.Key)
		}
		for _, g := range attrs {
			dst.add(g)
		}
		return
	}
	o.set(a.Key, logValue(a.Value))
}

func (o *logObject) encode(e *wire.Encoder) {
	e.BeginObject()
	for i, k := range o.keys {
		e.Name(string(quote(k)) + ":") // invalid UTF-8 replaced, as in values
		switch v := o.vals[i].(type) {
		case *logObject:
			v.encode(e)
		case jsontext.Value:
			e.Raw(v)
		}
	}
	e.EndObject()
}

// validKey is key with its invalid UTF-8 replaced by U+FFFD, so that two
// keys that differ only there are one member.
func validKey(key string) string { return strings.ToValidUTF8(key, "\uFFFD") }

// quote is s as a JSON string; invalid UTF-8 is replaced by U+FFFD.
func quote(s string) jsontext.Value {
	b, err := jsontext.AppendQuote(nil, s)
	if err != nil {
		b, _ = jsontext.AppendQuote(nil, strings.ToValidUTF8(s, "\uFFFD"))
	}
	return b
}

// logValue encodes an attribute's value: numbers and booleans as such,
// times as RFC 3339 strings, durations as Go writes them ("1.5s"), errors
// as their text, other values as JSON when they encode as JSON and as
// fmt's %v text when not. NaN and infinities are strings.
func logValue(v slog.Value) jsontext.Value {
	switch v.Kind() {
	case slog.KindString:
		return quote(v.String())
	case slog.KindInt64:
		return strconv.AppendInt(nil, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(nil, v.Uint64(), 10)
	case slog.KindFloat64:
		f := v.Float64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return quote(strconv.FormatFloat(f, 'g', -1, 64))
		}
		e := wire.NewEncoder(nil)
		e.Float(f)
		b, _ := e.Bytes()
		return b
	case slog.KindBool:
		return strconv.AppendBool(nil, v.Bool())
	case slog.KindDuration:
		return quote(v.Duration().String())
	case slog.KindTime:
		return quote(v.Time().Format(time.RFC3339Nano))
	}
	a := v.Any()
	if err, ok := a.(error); ok && err != nil {
		return quote(err.Error())
	}
	b, jerr := json.Marshal(a)
	if jerr != nil || !jsontext.Value(b).IsValid() {
		return quote(fmt.Sprint(a))
	}
	return b
}
