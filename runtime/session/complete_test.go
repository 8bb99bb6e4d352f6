package session

import (
	"context"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// infoHandler is a Handler that names its server with info (nil: a
// handler that does not implement ServerInfoHandler is noInfo).
type infoHandler struct{ info jsontext.Value }

func (infoHandler) Revision() *revision.Revision { return nil }
func (infoHandler) HandleRequest(context.Context, *Session, string, jsontext.Value) (wire.Appender, error) {
	return nil, nil
}
func (infoHandler) HandleNotification(context.Context, *Session, string, jsontext.Value) {}
func (h infoHandler) ServerInfo() jsontext.Value                                         { return h.info }

// noInfo is a Handler that does not name its server.
type noInfo struct{}

func (noInfo) Revision() *revision.Revision { return nil }
func (noInfo) HandleRequest(context.Context, *Session, string, jsontext.Value) (wire.Appender, error) {
	return nil, nil
}
func (noInfo) HandleNotification(context.Context, *Session, string, jsontext.Value) {}

const testInfo = `{"name":"s","version":"1"}`

// TestCompleteResult checks both ways completeResult completes a result:
// appending to a result known to be valid, and rebuilding one that is not
// known to be (or whose members must be replaced or merged into). Both
// must give the same bytes for the same compact result.
func TestCompleteResult(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/serverInfo":` + testInfo + `}`
	info := infoHandler{jsontext.Value(testInfo)}
	for _, tc := range []struct {
		name, in string
		h        Handler
		want     string
	}{
		{"both added", `{"content":[]}`, info, `{"content":[],"resultType":"complete",` + meta + `}`},
		{"empty result", `{}`, info, `{"resultType":"complete",` + meta + `}`},
		{"resultType kept", `{"resultType":"input_required"}`, info, `{"resultType":"input_required",` + meta + `}`},
		{"empty resultType replaced", `{"resultType":"","a":1}`, info, `{"a":1,"resultType":"complete",` + meta + `}`},
		{"null resultType kept", `{"resultType":null}`, info, `{"resultType":null,` + meta + `}`},
		{"_meta merged", `{"resultType":"complete","_meta":{"k":1}}`, info, `{"resultType":"complete","_meta":{"k":1,"io.modelcontextprotocol/serverInfo":` + testInfo + `}}`},
		{"serverInfo kept", `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x"}}}`, info, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x"}}}`},
		{"no server info", `{"a":"}"}`, noInfo{}, `{"a":"}","resultType":"complete"}`},
		{"nil server info", `{"a":{}}`, infoHandler{}, `{"a":{},"resultType":"complete"}`},
		{"nothing to add", `{"resultType":"complete"}`, noInfo{}, `{"resultType":"complete"}`},
	} {
		for _, valid := range []bool{true, false} {
			got, err := completeResult([]byte(tc.in), tc.h, valid)
			if err != nil {
				t.Errorf("%s (valid %v): %v", tc.name, valid, err)
				continue
			}
			if d := cmp.Diff(tc.want, string(got)); d != "" {
				t.Errorf("%s (valid %v) (-want +got):\n%s", tc.name, valid, d)
			}
		}
	}
}

// TestCompleteResultSpaces: a valid result with whitespace (which generated
// encoders do not write, but valid JSON may hold) is completed into valid
// JSON with the same members.
func TestCompleteResultSpaces(t *testing.T) {
	for _, in := range []string{"{ }", "{\n\t\"a\" : 1 \n}\n", "{ \"a\":{ } }"} {
		got, err := completeResult([]byte(in), infoHandler{jsontext.Value(testInfo)}, true)
		if err != nil {
			t.Fatalf("completeResult(%q): %v", in, err)
		}
		if !jsontext.Value(got).IsValid() || !wire.Has(got, "_meta", MetaServerInfo) || !wire.Has(got, "resultType") {
			t.Errorf("completeResult(%q) = %s", in, got)
		}
		if strings.Contains(in, `"a"`) && !wire.Has(got, "a") {
			t.Errorf("completeResult(%q) lost a member: %s", in, got)
		}
	}
}

// TestCompleteResultInvalid: a result not known to be valid is checked.
func TestCompleteResultInvalid(t *testing.T) {
	for _, in := range []string{`{"a":}`, `[1]`, `{"a":1`} {
		if got, err := completeResult([]byte(in), infoHandler{jsontext.Value(testInfo)}, false); err == nil {
			t.Errorf("completeResult(%q, not known valid) = %s, want an error", in, got)
		}
	}
}
