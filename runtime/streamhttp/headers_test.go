package streamhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// weatherSchema marks four arguments with x-mcp-header: a string, an
// integer, a boolean and a string one level down.
const weatherSchema = `{
	"type": "object",
	"properties": {
		"region": {"type": "string", "x-mcp-header": "Region"},
		"days": {"type": "integer", "x-mcp-header": "Days"},
		"metric": {"type": ["boolean", "null"], "x-mcp-header": "Metric"},
		"place": {"type": "object", "properties": {"city": {"type": "string", "x-mcp-header": "City"}}},
		"note": {"type": "string"}
	}
}`

// headerServer serves a 2026-07-28 StandardServer whose tool "weather"
// has x-mcp-header annotations, beside a tool without any, a prompt whose
// name is not header-safe and a resource. Every handler answers "ok".
func headerServer(t testing.TB) *streamhttp.Server {
	t.Helper()
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	answer := func(context.Context, *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "ok"}}}}, nil
	}
	if err := srv.AddTool(m26.Tool{Name: "weather", InputSchema: []byte(weatherSchema)}, answer); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddTool(m26.Tool{Name: "plain", InputSchema: []byte(`{"type":"object","properties":{"region":{"type":"string"}}}`)}, answer); err != nil {
		t.Fatal(err)
	}
	srv.MustAddPrompt(m26.Prompt{Name: "grüßen"}, func(context.Context, *m26.GetPromptRequestParams) (*m26.GetPromptResult, error) {
		return &m26.GetPromptResult{Messages: []m26.PromptMessage{{Role: m26.RoleUser, Content: m26.ContentBlock{Value: &m26.TextContent{Text: "ok"}}}}}, nil
	})
	srv.MustAddResource(m26.Resource{URI: "mcpgen://readme", Name: "readme"}, func(_ context.Context, p *m26.ReadResourceRequestParams) (*m26.ReadResourceResult, error) {
		return &m26.ReadResourceResult{Contents: []m26.ReadResourceResultContentsItem{{Value: &m26.TextResourceContents{URI: p.URI, Text: "ok"}}}}, nil
	})
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	t.Cleanup(h.Close)
	return h
}

// statelessBody returns a 2026-07-28 request of method whose params are
// the members params (without braces) and the _meta every request needs.
func statelessBody(method, params string) string {
	if params != "" {
		params += ","
	}
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + meta26 + `}}`
}

// outcome is what a test compares of the answer to a stateless POST: the
// HTTP status, the JSON-RPC error code (0 for a result) and the text of a
// result ("ok" from every handler of headerServer).
type outcome struct {
	Status int
	Code   int64
	Text   string
}

// answered is the outcome of a request the handler answered.
var answered = outcome{Status: http.StatusOK, Text: "ok"}

// refused is the outcome of a request refused for a header (T-N9).
var refused = outcome{Status: http.StatusBadRequest, Code: session.HeaderMismatch}

// statelessRequest returns a POST of body to url with the headers of a
// 2026-07-28 request of method (MCP-Protocol-Version, Mcp-Method) and then
// header: its keys are used as they are, so that over a connection they
// are sent in the case they have, and a key whose values are nil removes
// the header.
func statelessRequest(ctx context.Context, url, method, body string, header http.Header) *http.Request {
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	r.RequestURI = ""
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", method)
	for k, vs := range header {
		if vs == nil {
			r.Header.Del(k)
			delete(r.Header, k)
			continue
		}
		if c := http.CanonicalHeaderKey(k); c != k {
			r.Header.Del(c) // replaced by the key spelled otherwise
		}
		r.Header[k] = vs
	}
	return r
}

// postHeaders sends statelessRequest over a connection to the server at
// url and returns the outcome and the error message, if any.
func postHeaders(t testing.TB, url, method, body string, header http.Header) (outcome, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := http.DefaultClient.Do(statelessRequest(ctx, url, method, body, header))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return readOutcome(t, res.StatusCode, b)
}

// serveHeaders gives statelessRequest to h, with no connection: the header
// values may hold what no HTTP client sends (control characters).
func serveHeaders(t testing.TB, h http.Handler, method, body string, header http.Header) (outcome, string) {
	t.Helper()
	r := statelessRequest(context.Background(), "http://127.0.0.1/mcp", method, body, header)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return readOutcome(t, w.Code, w.Body.Bytes())
}

// readOutcome reads the JSON body of an answer.
func readOutcome(t testing.TB, status int, body []byte) (outcome, string) {
	t.Helper()
	var m struct {
		Result *struct {
			Content  []struct{ Text string } `json:"content"`
			Messages []struct {
				Content struct{ Text string } `json:"content"`
			} `json:"messages"`
			Contents []struct{ Text string } `json:"contents"`
		} `json:"result"`
		Error *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer %d %q: %v", status, body, err)
	}
	o := outcome{Status: status}
	switch {
	case m.Error != nil:
		o.Code = m.Error.Code
		return o, m.Error.Message
	case m.Result != nil:
		for _, c := range m.Result.Content {
			o.Text += c.Text
		}
		for _, c := range m.Result.Messages {
			o.Text += c.Content.Text
		}
		for _, c := range m.Result.Contents {
			o.Text += c.Text
		}
	}
	return o, ""
}

// T-N7…T-N9 on the stateless POST: Mcp-Name mirrors params.name or
// params.uri, the Mcp-Param headers mirror the arguments the called tool
// marks with x-mcp-header; a header that is missing, extra or different is
// 400 with -32020 naming it. Header names match in any case; values are
// compared after Base64 decoding, integers numerically.
func TestStatelessHeaderRules(t *testing.T) {
	ts := httptest.NewServer(headerServer(t))
	t.Cleanup(ts.Close)
	call := func(args string) string { return statelessBody("tools/call", `"name":"weather","arguments":`+args) }
	all := `{"region":"eu-west","days":3,"metric":true,"place":{"city":"Paris"}}`
	allHeaders := http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {"eu-west"}, "Mcp-Param-Days": {"3"}, "Mcp-Param-Metric": {"true"}, "Mcp-Param-City": {"Paris"}}
	with := func(extra http.Header) http.Header {
		out := allHeaders.Clone()
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name, method, body string
		header             http.Header
		want               outcome
		header400          string // the header the error message names
	}{
		// tools/call: Mcp-Name and the Mcp-Param headers.
		{"every header matches", "tools/call", call(all), allHeaders, answered, ""},
		{"no annotated argument, no Mcp-Param header", "tools/call", call(`{"note":"x"}`), http.Header{"Mcp-Name": {"weather"}}, answered, ""},
		{"no arguments at all", "tools/call", statelessBody("tools/call", `"name":"weather"`), http.Header{"Mcp-Name": {"weather"}}, answered, ""},
		{"null argument, no header", "tools/call", call(`{"metric":null}`), http.Header{"Mcp-Name": {"weather"}}, answered, ""},
		{"Mcp-Name differs", "tools/call", call(all), with(http.Header{"Mcp-Name": {"forecast"}}), refused, "Mcp-Name"},
		{"Mcp-Name missing", "tools/call", call(all), with(http.Header{"Mcp-Name": nil}), refused, "Mcp-Name"},
		{"Mcp-Name twice", "tools/call", call(all), with(http.Header{"Mcp-Name": {"weather", "weather"}}), refused, "Mcp-Name"},
		{"Mcp-Name with spaces around", "tools/call", call(all), with(http.Header{"Mcp-Name": {"  weather\t"}}), answered, ""},
		{"Mcp-Param string differs", "tools/call", call(all), with(http.Header{"Mcp-Param-Region": {"us-east"}}), refused, "Mcp-Param-Region"},
		{"Mcp-Param string differs in case", "tools/call", call(all), with(http.Header{"Mcp-Param-Region": {"EU-WEST"}}), refused, "Mcp-Param-Region"},
		{"Mcp-Param missing for a present argument", "tools/call", call(all), with(http.Header{"Mcp-Param-Days": nil}), refused, "Mcp-Param-Days"},
		{"Mcp-Param for an absent argument", "tools/call", call(`{}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {"eu-west"}}, refused, "Mcp-Param-Region"},
		{"Mcp-Param for a null argument", "tools/call", call(`{"metric":null}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Metric": {"false"}}, refused, "Mcp-Param-Metric"},
		{"Mcp-Param nested differs", "tools/call", call(all), with(http.Header{"Mcp-Param-City": {"Lyon"}}), refused, "Mcp-Param-City"},
		{"integer compared numerically", "tools/call", call(all), with(http.Header{"Mcp-Param-Days": {"003"}}), answered, ""},
		{"integer differs", "tools/call", call(all), with(http.Header{"Mcp-Param-Days": {"4"}}), refused, "Mcp-Param-Days"},
		{"integer header not a number", "tools/call", call(all), with(http.Header{"Mcp-Param-Days": {"three"}}), refused, "Mcp-Param-Days"},
		{"boolean differs", "tools/call", call(all), with(http.Header{"Mcp-Param-Metric": {"false"}}), refused, "Mcp-Param-Metric"},
		{"boolean not lowercase", "tools/call", call(all), with(http.Header{"Mcp-Param-Metric": {"True"}}), refused, "Mcp-Param-Metric"},
		{"Mcp-Param twice", "tools/call", call(all), with(http.Header{"Mcp-Param-Region": {"eu-west", "eu-west"}}), refused, "Mcp-Param-Region"},
		// Encoded values.
		{"Base64 value", "tools/call", call(`{"region":"Zürich "}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {mcpheader.Encode("Zürich ")}}, answered, ""},
		{"Base64 value differs", "tools/call", call(`{"region":"Zürich"}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {mcpheader.Encode("Zürich ")}}, refused, "Mcp-Param-Region"},
		{"Base64 without padding", "tools/call", call(`{"region":"Hello"}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {"=?base64?SGVsbG8?="}}, refused, "Mcp-Param-Region"},
		{"Base64 with a foreign character", "tools/call", call(`{"region":"Hello"}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {"=?base64?SGVs!!!bG8=?="}}, refused, "Mcp-Param-Region"},
		{"sentinel without suffix is literal", "tools/call", call(`{"region":"=?base64?SGVsbG8="}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {"=?base64?SGVsbG8="}}, answered, ""},
		{"sentinel in uppercase is literal", "tools/call", call(`{"region":"=?BASE64?SGVsbG8=?="}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {"=?BASE64?SGVsbG8=?="}}, answered, ""},
		{"literal that looks encoded must be encoded", "tools/call", call(`{"region":"=?base64?SGVsbG8=?="}`), http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {"=?base64?SGVsbG8=?="}}, refused, "Mcp-Param-Region"},
		// Header names in any case.
		{"lowercase names", "tools/call", call(`{"region":"eu-west","days":3}`), http.Header{"mcp-method": {"tools/call"}, "mcp-name": {"weather"}, "mcp-param-region": {"eu-west"}, "mcp-param-days": {"3"}}, answered, ""},
		{"uppercase names", "tools/call", call(`{"region":"eu-west","days":3}`), http.Header{"MCP-METHOD": {"tools/call"}, "MCP-NAME": {"weather"}, "MCP-PARAM-REGION": {"eu-west"}, "MCP-PARAM-DAYS": {"3"}}, answered, ""},
		{"lowercase name, value differs", "tools/call", call(`{"region":"eu-west"}`), http.Header{"mcp-name": {"weather"}, "mcp-param-region": {"eu-central"}}, refused, "Mcp-Param-Region"},
		{"method value in another case", "tools/call", call(all), with(http.Header{"Mcp-Method": {"TOOLS/CALL"}}), refused, "Mcp-Method"},
		// Tools without annotations, and unknown tools, have no Mcp-Param headers to check.
		{"tool without annotations ignores Mcp-Param", "tools/call", statelessBody("tools/call", `"name":"plain","arguments":{"region":"eu"}`), http.Header{"Mcp-Name": {"plain"}, "Mcp-Param-Region": {"us"}}, answered, ""},
		{"unknown tool reaches the handler", "tools/call", statelessBody("tools/call", `"name":"nope","arguments":{"region":"eu"}`), http.Header{"Mcp-Name": {"nope"}, "Mcp-Param-Region": {"us"}}, outcome{Status: http.StatusOK, Code: -32602}, ""},
		// prompts/get and resources/read.
		{"prompt name encoded", "prompts/get", statelessBody("prompts/get", `"name":"grüßen"`), http.Header{"Mcp-Name": {mcpheader.Encode("grüßen")}}, answered, ""},
		{"prompt name sent raw", "prompts/get", statelessBody("prompts/get", `"name":"grüßen"`), http.Header{"Mcp-Name": {"gr\xc3\xbc\xc3\x9fen"}}, refused, "Mcp-Name"},
		{"prompt without Mcp-Name", "prompts/get", statelessBody("prompts/get", `"name":"grüßen"`), nil, refused, "Mcp-Name"},
		{"resource uri", "resources/read", statelessBody("resources/read", `"uri":"mcpgen://readme"`), http.Header{"Mcp-Name": {"mcpgen://readme"}}, answered, ""},
		{"resource uri differs", "resources/read", statelessBody("resources/read", `"uri":"mcpgen://readme"`), http.Header{"Mcp-Name": {"mcpgen://other"}}, refused, "Mcp-Name"},
		{"resource without Mcp-Name", "resources/read", statelessBody("resources/read", `"uri":"mcpgen://readme"`), nil, refused, "Mcp-Name"},
		// Other methods need no Mcp-Name, and one sent is not looked at.
		{"tools/list with a stray Mcp-Name", "tools/list", statelessBody("tools/list", ""), http.Header{"Mcp-Name": {"weather"}}, outcome{Status: http.StatusOK}, ""},
		// MCP-Protocol-Version.
		{"version header twice", "tools/list", statelessBody("tools/list", ""), http.Header{"Mcp-Protocol-Version": {"2026-07-28", "2026-07-28"}}, refused, "MCP-Protocol-Version"},
		{"version header missing", "tools/list", statelessBody("tools/list", ""), http.Header{"Mcp-Protocol-Version": nil}, refused, "MCP-Protocol-Version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, msg := postHeaders(t, ts.URL, tc.method, tc.body, tc.header)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("answer (-want +got):\n%s\nmessage: %s", diff, msg)
			}
			if tc.header400 != "" && !strings.Contains(msg, "header mismatch: "+tc.header400+":") {
				t.Errorf("message %q does not name the header %s", msg, tc.header400)
			}
		})
	}
}

// The same rules over a real connection: what the client sends is what
// mcpheader.Set builds, and a header a client leaves out is refused.
func TestStatelessHeaderRulesHTTP(t *testing.T) {
	ts := httptest.NewServer(headerServer(t))
	t.Cleanup(ts.Close)
	params, err := mcpheader.ParseTool([]byte(weatherSchema))
	if err != nil {
		t.Fatal(err)
	}
	args := `{"region":"Île-de-France","days":2,"metric":false,"place":{"city":" Paris"}}`
	body := statelessBody("tools/call", `"name":"weather","arguments":`+args)
	for _, tc := range []struct {
		name string
		drop string // a header the client leaves out
		want outcome
	}{
		{"as built by mcpheader.Set", "", answered},
		{"without Mcp-Param-City", "Mcp-Param-City", refused},
		{"without Mcp-Name", "Mcp-Name", refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("MCP-Protocol-Version", "2026-07-28")
			var m struct {
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatal(err)
			}
			if err := mcpheader.Set(r.Header, "tools/call", []byte(m.Params), params); err != nil {
				t.Fatal(err)
			}
			if got := r.Header.Get("Mcp-Param-City"); got != mcpheader.Encode(" Paris") || !strings.HasPrefix(got, "=?base64?") {
				t.Fatalf("Mcp-Param-City %q: want the Base64 form", got)
			}
			r.Header.Del(tc.drop)
			res, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			got, msg := readOutcome(t, res.StatusCode, b)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("answer (-want +got):\n%s\nmessage: %s", diff, msg)
			}
			if tc.drop != "" && !strings.Contains(msg, tc.drop) {
				t.Errorf("message %q does not name %s", msg, tc.drop)
			}
		})
	}
}

// A tool whose x-mcp-header annotations break the rules is refused when it
// is registered: AddTool names the tool and the annotation, and the tool
// is neither listed nor callable. Replacing or removing a tool replaces or
// removes its annotations.
func TestAddToolHeaderAnnotations(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         mcpheader.Params
		err          string // in AddTool's error; "" for none
	}{
		{"none", `{"type":"object"}`, nil, ""},
		{"no schema", ``, nil, ""},
		{"one", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`,
			mcpheader.Params{{Name: "Region", Path: []string{"r"}, Type: "string"}}, ""},
		{"number", `{"type":"object","properties":{"s":{"type":"number","x-mcp-header":"Score"}}}`, nil,
			`AddTool: tool "bad": x-mcp-header at /properties/s/x-mcp-header: the property's type is "number"`},
		{"duplicate in another case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Id"},"b":{"type":"string","x-mcp-header":"ID"}}}`, nil,
			`x-mcp-header at /properties/b/x-mcp-header: the header name "ID" is already used at /properties/a/x-mcp-header`},
		{"space in the name", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"My Region"}}}`, nil,
			`the header name "My Region" has ' '`},
		{"behind items", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, nil,
			`not reached from the schema root through "properties" alone`},
		{"not JSON", `{"type":`, nil, `AddTool: tool "bad": inputSchema is not valid JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
			name := "good"
			if tc.err != "" {
				name = "bad"
			}
			err := srv.AddTool(m26.Tool{Name: name, InputSchema: []byte(tc.schema)}, noopTool)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("AddTool: %v, want an error with %q", err, tc.err)
			}
			th, ok := srv.Handler().(session.ToolHeaderHandler)
			if !ok {
				t.Fatal("the StandardServer's handler does not report tool headers")
			}
			if diff := cmp.Diff(tc.want, th.ToolHeaderParams(name)); diff != "" {
				t.Errorf("ToolHeaderParams (-want +got):\n%s", diff)
			}
			list, lerr := srv.ListTools(context.Background(), &m26.PaginatedRequestParams{})
			if lerr != nil {
				t.Fatal(lerr)
			}
			listed := len(list.Tools) == 1
			if listed != (err == nil) {
				t.Errorf("listed %v after AddTool returned %v", list.Tools, err)
			}
		})
	}
	t.Run("replaced and removed", func(t *testing.T) {
		srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
		th := srv.Handler().(session.ToolHeaderHandler)
		annotated := m26.Tool{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`)}
		var got []int
		for _, step := range []func() error{
			func() error { return srv.AddTool(annotated, noopTool) },
			func() error {
				return srv.AddTool(m26.Tool{Name: "t", InputSchema: []byte(`{"type":"object"}`)}, noopTool)
			},
			func() error { return srv.AddTool(annotated, noopTool) },
			// A refused replacement leaves the registered tool alone.
			func() error {
				if srv.AddTool(m26.Tool{Name: "t", InputSchema: []byte(`{"properties":{"r":{"x-mcp-header":"R"}}}`)}, noopTool) == nil {
					t.Error("a tool with an untyped annotated property was registered")
				}
				return nil
			},
			func() error { srv.RemoveTool("t"); return nil },
		} {
			if err := step(); err != nil {
				t.Fatal(err)
			}
			got = append(got, len(th.ToolHeaderParams("t")))
		}
		if diff := cmp.Diff([]int{1, 0, 1, 1, 0}, got); diff != "" {
			t.Errorf("annotations after each step (-want +got):\n%s", diff)
		}
	})
}

// FuzzStatelessHeaders sends a tools/call whose argument and Mcp-Param
// header are arbitrary: the server never panics and answers 200 or 400; a
// header built by the client's rules (mcpheader.Encode) is accepted, and
// one that decodes to another value is refused with -32020.
func FuzzStatelessHeaders(f *testing.F) {
	for _, s := range [][2]string{
		{"eu-west", "eu-west"},
		{"Zürich", "=?base64?WsO8cmljaA==?="},
		{"Hello", "=?base64?SGVsbG8?="},
		{" x ", " x "},
		{"", ""},
		{"=?base64?SGk=?=", "=?base64?SGk=?="},
		{"a\nb", "a\nb"},
	} {
		f.Add(s[0], s[1])
	}
	h := headerServer(f)
	f.Fuzz(func(t *testing.T, arg, header string) {
		q, err := json.Marshal(arg)
		if err != nil {
			return
		}
		var back string
		if json.Unmarshal(q, &back) != nil || back != arg {
			return // not valid UTF-8: JSON cannot carry it as is
		}
		body := statelessBody("tools/call", `"name":"weather","arguments":{"region":`+string(q)+`}`)
		got, msg := serveHeaders(t, h, "tools/call", body, http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {mcpheader.Encode(arg)}})
		if got != answered {
			t.Fatalf("argument %q with the header %q: %+v %s", arg, mcpheader.Encode(arg), got, msg)
		}
		got, msg = serveHeaders(t, h, "tools/call", body, http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {header}})
		v, derr := mcpheader.Decode(header)
		switch {
		case derr == nil && v == arg:
			if got != answered {
				t.Fatalf("argument %q, header %q decoding to it: %+v %s", arg, header, got, msg)
			}
		case got != refused || !strings.Contains(msg, "Mcp-Param-Region"):
			t.Fatalf("argument %q, header %q (decodes to %q, %v): %+v %s; want 400 with -32020", arg, header, v, derr, got, msg)
		}
	})
}

// BenchmarkStatelessToolCall measures a stateless tools/call whose four
// Mcp-Param headers are checked against its arguments, served by calling
// ServeHTTP: no network.
func BenchmarkStatelessToolCall(b *testing.B) {
	h := headerServer(b)
	body := statelessBody("tools/call", `"name":"weather","arguments":{"region":"eu-west","days":3,"metric":true,"place":{"city":"Paris"}}`)
	header := http.Header{"Mcp-Name": {"weather"}, "Mcp-Param-Region": {"eu-west"}, "Mcp-Param-Days": {"3"}, "Mcp-Param-Metric": {"true"}, "Mcp-Param-City": {"Paris"}}
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, statelessRequest(context.Background(), "http://127.0.0.1/mcp", "tools/call", body, header))
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// noopTool is the handler of a tool whose calls do not matter.
func noopTool(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
	return m26.TextResult(""), nil
}
