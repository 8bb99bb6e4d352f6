package otelmcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// inject puts the context in _meta, keeping every other member of params
// and of _meta, whatever the params look like.
func TestInject(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	const tp = `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	for _, tt := range []struct {
		name, params, want string
		ok                 bool
	}{
		{"none", ``, `{"_meta":{` + tp + `}}`, true},
		{"empty", `{}`, `{"_meta":{` + tp + `}}`, true},
		{"spaces", ` { } `, `{"_meta":{` + tp + `}}`, true},
		{"members", `{"name":"x","arguments":{"a":1}}`, `{"name":"x","arguments":{"a":1},"_meta":{` + tp + `}}`, true},
		{"meta kept", `{"name":"x","_meta":{"progressToken":3,"traceparent":"old"}}`, `{"name":"x","_meta":{` + tp + `,"progressToken":3}}`, true},
		{"meta not an object", `{"_meta":5}`, `{"_meta":{` + tp + `}}`, true},
		{"not an object", `[1]`, `[1]`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := inject(ctx, prop, jsontext.Value(tt.params))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !json.Valid(out) && tt.ok {
				t.Fatalf("invalid JSON %s", out)
			}
			var got, want any
			if tt.ok {
				_ = json.Unmarshal(out, &got)
				_ = json.Unmarshal([]byte(tt.want), &want)
			} else {
				got, want = string(out), tt.want
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("inject(%s) = %s (-want +got):\n%s", tt.params, out, d)
			}
		})
	}
	// Nothing to inject: params go as they are.
	if out, ok := inject(context.Background(), prop, jsontext.Value(`{"a":1}`)); ok || string(out) != `{"a":1}` {
		t.Errorf("without a span context: %s, %v", out, ok)
	}
}

// FuzzParams reads arbitrary params as the middleware does (the target of
// the span, the carried context, the injection of its own): nothing
// panics, and injecting into a JSON object gives a JSON object whose
// members are the same but _meta.
func FuzzParams(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"name":"x","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","baggage":"a=b"}}`,
		`{"_meta":5}`, `{"uri":"file:///a","ref":{"type":"ref/prompt","name":"p"}}`, `[`, `{"_meta":{"traceparent":7}}`, "{\"name\":\"\\u00e9\"}"} {
		f.Add([]byte(s))
	}
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	f.Fuzz(func(t *testing.T, b []byte) {
		params := jsontext.Value(b)
		for _, k := range []string{"name", "uri"} {
			stringMember(params, k)
		}
		if meta, ok := metaOf(params); ok {
			c := metaCarrier{meta}
			c.Keys()
			prop.Extract(context.Background(), c)
		}
		out, ok := inject(ctx, prop, params)
		if !ok {
			return
		}
		var in, got map[string]any
		if json.Unmarshal(b, &in) != nil {
			return // not valid JSON to begin with: nothing to compare
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("inject(%q) = %q: %v", b, out, err)
		}
		if _, ok := got["_meta"].(map[string]any)["traceparent"]; !ok {
			t.Fatalf("inject(%q) = %q: no traceparent", b, out)
		}
		delete(in, "_meta")
		delete(got, "_meta")
		if d := cmp.Diff(in, got); d != "" {
			t.Fatalf("inject(%q) changed other members:\n%s", b, d)
		}
	})
}
