package mcp20260728_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	legacy "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

func textTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return mcp.TextResult("t"), nil
}

func textPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	return mcp.PromptText(mcp.RoleUser, "p"), nil
}

func textResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	return mcp.ResourceText(p.URI, "", "r"), nil
}

// capsJSON returns the members of caps that are set, as JSON.
func capsJSON(t *testing.T, caps mcp.ServerCapabilities) string {
	t.Helper()
	b, err := caps.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The capabilities follow what was registered; WithCapabilities declares
// by hand, member by member; server/discover and a legacy session's
// initialize say the same.
func TestCapabilitiesInferred(t *testing.T) {
	yes := true
	for _, tt := range []struct {
		name string
		opts []mcp.ServerOption
		add  func(srv *mcp.StandardServer)
		want string
	}{
		{"nothing registered: logging", nil, func(*mcp.StandardServer) {}, `{"logging":{}}`},
		{"a tool", nil, func(srv *mcp.StandardServer) { srv.MustAddTool(mcp.NewTool("t", ""), textTool) },
			`{"logging":{},"tools":{"listChanged":true}}`},
		{"a prompt", nil, func(srv *mcp.StandardServer) { srv.MustAddPrompt(mcp.NewPrompt("p", ""), textPrompt) },
			`{"logging":{},"prompts":{"listChanged":true}}`},
		{"a resource", nil, func(srv *mcp.StandardServer) {
			srv.MustAddResource(mcp.NewResource("notes://a", "a", ""), textResource)
		}, `{"logging":{},"resources":{"listChanged":true,"subscribe":true}}`},
		{"a template", nil, func(srv *mcp.StandardServer) {
			srv.MustAddResourceTemplate(mcp.ResourceTemplate{Name: "n", URITemplate: "notes://{id}"}, textResource)
		}, `{"logging":{},"resources":{"listChanged":true,"subscribe":true}}`},
		{"completions", nil, func(srv *mcp.StandardServer) {
			srv.SetCompletion(func(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) { return nil, nil })
		}, `{"completions":{},"logging":{}}`},
		{"a tool registered and removed", nil, func(srv *mcp.StandardServer) {
			srv.MustAddTool(mcp.NewTool("t", ""), textTool)
			srv.RemoveTool("t")
		}, `{"logging":{}}`},
		{"declared by hand, before any tool", []mcp.ServerOption{mcp.WithCapabilities(mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{ListChanged: &yes}})},
			func(*mcp.StandardServer) {}, `{"logging":{},"tools":{"listChanged":true}}`},
		{"declared by hand, over the inferred", []mcp.ServerOption{mcp.WithCapabilities(mcp.ServerCapabilities{Resources: &mcp.ServerCapabilitiesResources{}})},
			func(srv *mcp.StandardServer) {
				srv.MustAddResource(mcp.NewResource("notes://a", "a", ""), textResource)
			},
			`{"logging":{},"resources":{}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, tt.opts...)
			tt.add(srv)
			ctx := context.Background()
			d, err := srv.Discover(ctx, &mcp.RequestParams{})
			if err != nil {
				t.Fatal(err)
			}
			if got := capsJSON(t, d.Capabilities); got != tt.want {
				t.Errorf("server/discover capabilities %s, want %s", got, tt.want)
			}
			// A legacy session's initialize declares the same.
			a, b := transport.Pipe()
			s := session.New(session.Server, a, srv.Handler(), session.Options{})
			defer s.Close()
			c := session.New(session.Client, b, legacy.NewClientHandler(legacy.UnimplementedClient{}), session.Options{})
			defer c.Close()
			ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			res, err := c.Initialize(ictx, &legacy.InitializeRequestParams{ProtocolVersion: legacy.Revision, ClientInfo: legacy.Implementation{Name: "c", Version: "1"}})
			if err != nil {
				t.Fatal(err)
			}
			var init struct{ Capabilities json.RawMessage }
			if err := json.Unmarshal(res, &init); err != nil {
				t.Fatal(err)
			}
			if got := string(init.Capabilities); got != tt.want {
				t.Errorf("initialize capabilities %s, want %s", got, tt.want)
			}
		})
	}
}

// A resource that is not found is error -32602 at this revision and
// -32002 on a session of an older one, the URI in data, whether the
// server finds no handler or a handler says so.
func TestResourceNotFound(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.MustAddResourceTemplate(mcp.ResourceTemplate{Name: "note", URITemplate: "notes://{id}"},
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			if mcp.TemplateVars(ctx).Get("id") != "a" {
				return nil, fmt.Errorf("reading: %w", mcp.ResourceNotFound(p.URI))
			}
			return mcp.ResourceText(p.URI, "", "a"), nil
		})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Stateless requests.
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{})
	defer s.Close()
	modern := session.New(session.Client, b, mcp.NewClientHandler(mcp.UnimplementedClient{}), session.Options{})
	defer modern.Close()
	if err := modern.Connect(ctx, &mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientCapabilities{}); err != nil {
		t.Fatal(err)
	}
	// A legacy session.
	a2, b2 := transport.Pipe()
	s2 := session.New(session.Server, a2, srv.Handler(), session.Options{})
	defer s2.Close()
	old := session.New(session.Client, b2, legacy.NewClientHandler(legacy.UnimplementedClient{}), session.Options{})
	defer old.Close()
	if _, err := old.Initialize(ctx, &legacy.InitializeRequestParams{ProtocolVersion: legacy.Revision, ClientInfo: legacy.Implementation{Name: "c", Version: "1"}}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		c    *session.Session
		uri  string
		code int64
	}{
		{"stateless, no handler", modern, "other://x", -32602},
		{"stateless, the handler's", modern, "notes://b", -32602},
		{"legacy, no handler", old, "other://x", -32002},
		{"legacy, the handler's", old, "notes://b", -32002},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var params interface{ AppendJSON([]byte) ([]byte, error) } = &mcp.ReadResourceRequestParams{URI: tt.uri}
			if tt.c == old {
				params = &legacy.ReadResourceRequestParams{URI: tt.uri}
			}
			_, err := tt.c.Call(ctx, "resources/read", params)
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != tt.code || string(je.Data) != `{"uri":"`+tt.uri+`"}` || !strings.Contains(je.Message, "resource not found: "+tt.uri) {
				t.Errorf("resources/read %s = %v (data %s), want %d with the URI", tt.uri, err, je.Data, tt.code)
			}
		})
	}
}

// Every Add* refuses what cannot be served, with an error naming it and
// the fault, and registers nothing; the Must forms panic with that error.
func TestRegistrationErrors(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	for _, tt := range []struct {
		name string
		add  func() error
		must func()
		want string
	}{
		{"tool without a name", func() error { return srv.AddTool(mcp.Tool{}, textTool) }, func() { srv.MustAddTool(mcp.Tool{}, textTool) }, "AddTool: the tool has no name"},
		{"tool without a handler", func() error { return srv.AddTool(mcp.NewTool("t", ""), nil) }, func() { srv.MustAddTool(mcp.NewTool("t", ""), nil) }, `AddTool: tool "t": the handler is nil`},
		{"typed tool with a bad input", func() error {
			return mcp.AddTypedTool(srv, mcp.NewTool("t", ""), func(ctx context.Context, in int) (string, error) { return "", nil })
		}, func() {
			mcp.MustAddTypedTool(srv, mcp.NewTool("t", ""), func(ctx context.Context, in int) (string, error) { return "", nil })
		}, `AddTypedTool: tool "t"`},
		{"typed tool without a handler", func() error {
			return mcp.AddTypedTool[struct{}, string](srv, mcp.NewTool("t", ""), nil)
		}, func() {
			mcp.MustAddTypedTool[struct{}, string](srv, mcp.NewTool("t", ""), nil)
		}, `AddTypedTool: tool "t": the handler is nil`},
		{"prompt without a name", func() error { return srv.AddPrompt(mcp.Prompt{}, textPrompt) }, func() { srv.MustAddPrompt(mcp.Prompt{}, textPrompt) }, "AddPrompt: the prompt has no name"},
		{"prompt without a handler", func() error { return srv.AddPrompt(mcp.NewPrompt("p", ""), nil) }, func() { srv.MustAddPrompt(mcp.NewPrompt("p", ""), nil) }, `AddPrompt: prompt "p": the handler is nil`},
		{"prompt with an argument twice", func() error {
			return srv.AddPrompt(mcp.NewPrompt("p", "", mcp.RequiredArgument("a", ""), mcp.OptionalArgument("a", "")), textPrompt)
		}, func() {
			srv.MustAddPrompt(mcp.NewPrompt("p", "", mcp.RequiredArgument("a", ""), mcp.OptionalArgument("a", "")), textPrompt)
		}, `AddPrompt: prompt "p": argument "a" is listed twice`},
		{"typed prompt of a bad type", func() error {
			return mcp.AddTypedPrompt(srv, mcp.NewPrompt("p", ""), func(ctx context.Context, in int) (*mcp.GetPromptResult, error) { return nil, nil })
		}, func() {
			mcp.MustAddTypedPrompt(srv, mcp.NewPrompt("p", ""), func(ctx context.Context, in int) (*mcp.GetPromptResult, error) { return nil, nil })
		}, `AddTypedPrompt: prompt "p"`},
		{"typed prompt without a handler", func() error {
			return mcp.AddTypedPrompt[struct{}](srv, mcp.NewPrompt("p", ""), nil)
		}, func() {
			mcp.MustAddTypedPrompt[struct{}](srv, mcp.NewPrompt("p", ""), nil)
		}, `AddTypedPrompt: prompt "p": the handler is nil`},
		{"typed prompt with an argument twice", func() error {
			return mcp.AddTypedPrompt(srv, mcp.NewPrompt("p", "", mcp.RequiredArgument("a", ""), mcp.RequiredArgument("a", "")), func(ctx context.Context, in struct{}) (*mcp.GetPromptResult, error) { return nil, nil })
		}, func() {
			mcp.MustAddTypedPrompt(srv, mcp.NewPrompt("p", "", mcp.RequiredArgument("a", ""), mcp.RequiredArgument("a", "")), func(ctx context.Context, in struct{}) (*mcp.GetPromptResult, error) { return nil, nil })
		}, `AddTypedPrompt: AddPrompt: prompt "p": argument "a" is listed twice`},
		{"resource with a relative URI", func() error { return srv.AddResource(mcp.NewResource("notes", "n", ""), textResource) }, func() { srv.MustAddResource(mcp.NewResource("notes", "n", ""), textResource) }, `AddResource: resource "notes": the URI is not absolute`},
		{"resource without a name", func() error { return srv.AddResource(mcp.NewResource("notes://a", "", ""), textResource) }, func() { srv.MustAddResource(mcp.NewResource("notes://a", "", ""), textResource) }, `AddResource: resource "notes://a" has no name`},
		{"resource without a handler", func() error { return srv.AddResource(mcp.NewResource("notes://a", "a", ""), nil) }, func() { srv.MustAddResource(mcp.NewResource("notes://a", "a", ""), nil) }, `AddResource: resource "notes://a": the handler is nil`},
		{"template not RFC 6570", func() error {
			return srv.AddResourceTemplate(mcp.ResourceTemplate{Name: "n", URITemplate: "notes://{id"}, textResource)
		}, func() {
			srv.MustAddResourceTemplate(mcp.ResourceTemplate{Name: "n", URITemplate: "notes://{id"}, textResource)
		}, `AddResourceTemplate: URI template "notes://{id"`},
		{"template without a handler", func() error {
			return srv.AddResourceTemplate(mcp.ResourceTemplate{Name: "n", URITemplate: "notes://{id}"}, nil)
		}, func() { srv.MustAddResourceTemplate(mcp.ResourceTemplate{Name: "n", URITemplate: "notes://{id}"}, nil) }, `AddResourceTemplate: template "notes://{id}": the handler is nil`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.add()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
			defer func() {
				p := recover()
				if perr, ok := p.(error); !ok || !strings.Contains(perr.Error(), tt.want) {
					t.Errorf("the Must form panicked with %v, want the error saying %q", p, tt.want)
				}
			}()
			tt.must()
		})
	}
	d, _ := srv.Discover(context.Background(), &mcp.RequestParams{})
	if got := capsJSON(t, d.Capabilities); got != `{"logging":{}}` {
		t.Errorf("after the refusals the server declares %s: something was registered", got)
	}
}

// Every Add* replaces what has the same name, URI or URI template, in its
// place; every Remove* takes it out; each change announces the list's
// change on the server's Bus.
func TestRegistrationReplaces(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	var events []string
	cancel := srv.Bus().Subscribe(func(ev session.Event) { events = append(events, ev.Method) })
	defer cancel()
	reply := func(text string) mcp.ResourceHandler {
		return func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return mcp.ResourceText(p.URI, "", text), nil
		}
	}
	ctx := context.Background()
	read := func(uri string) string {
		res, err := srv.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: uri})
		if err != nil {
			return "error"
		}
		b, _ := res.Contents[0].MarshalJSON()
		return string(b)
	}
	templates := func() (names []string) {
		res, _ := srv.ListResourceTemplates(ctx, nil)
		for _, x := range res.ResourceTemplates {
			names = append(names, x.Name)
		}
		return names
	}
	resources := func() (names []string) {
		res, _ := srv.ListResources(ctx, nil)
		for _, x := range res.Resources {
			names = append(names, x.Name)
		}
		return names
	}
	for _, tt := range []struct {
		name      string
		do        func() error
		event     string
		list      func() []string
		wantList  []string
		uri, text string // read uri: its text contains text
	}{
		{"a template", func() error {
			return srv.AddResourceTemplate(mcp.NewResourceTemplate("notes://{id}", "one", "text/plain"), reply("first"))
		}, session.ResourcesListChanged, templates, []string{"one"}, "notes://7", "first"},
		{"another template", func() error {
			return srv.AddResourceTemplate(mcp.NewResourceTemplate("notes://{id}/x", "two", ""), reply("other"))
		}, session.ResourcesListChanged, templates, []string{"one", "two"}, "notes://7", "first"},
		{"the template again", func() error {
			return srv.AddResourceTemplate(mcp.NewResourceTemplate("notes://{id}", "one again", ""), reply("second"))
		}, session.ResourcesListChanged, templates, []string{"one again", "two"}, "notes://7", "second"},
		{"a resource", func() error { return srv.AddResource(mcp.NewResource("notes://7", "seven", ""), reply("own")) },
			session.ResourcesListChanged, resources, []string{"seven"}, "notes://7", "own"},
		{"the resource again", func() error {
			return srv.AddResource(mcp.NewResource("notes://7", "seven again", ""), reply("own again"))
		},
			session.ResourcesListChanged, resources, []string{"seven again"}, "notes://7", "own again"},
		{"the resource removed", func() error { srv.RemoveResource("notes://7"); return nil },
			session.ResourcesListChanged, resources, nil, "notes://7", "second"},
		{"the template removed", func() error { srv.RemoveResourceTemplate("notes://{id}"); return nil },
			session.ResourcesListChanged, templates, []string{"two"}, "notes://7", "error"},
		{"a tool twice", func() error {
			srv.MustAddTool(mcp.NewTool("t", "first"), textTool)
			return srv.AddTool(mcp.NewTool("t", "second"), textTool)
		}, session.ToolsListChanged, func() (names []string) {
			res, _ := srv.ListTools(ctx, nil)
			for _, x := range res.Tools {
				names = append(names, x.Name+" "+*x.Description)
			}
			return names
		}, []string{"t second"}, "", ""},
		{"a prompt twice", func() error {
			srv.MustAddPrompt(mcp.NewPrompt("p", "first"), textPrompt)
			return srv.AddPrompt(mcp.NewPrompt("p", "second"), textPrompt)
		}, session.PromptsListChanged, func() (names []string) {
			res, _ := srv.ListPrompts(ctx, nil)
			for _, x := range res.Prompts {
				names = append(names, x.Name+" "+*x.Description)
			}
			return names
		}, []string{"p second"}, "", ""},
	} {
		events = nil
		if err := tt.do(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(events) == 0 || events[len(events)-1] != tt.event {
			t.Errorf("%s: events %v, want %s", tt.name, events, tt.event)
		}
		if got := tt.list(); !slices.Equal(got, tt.wantList) {
			t.Errorf("%s: listed %q, want %q", tt.name, got, tt.wantList)
		}
		if tt.uri != "" && !strings.Contains(read(tt.uri), tt.text) {
			t.Errorf("%s: read %s = %s, want %q", tt.name, tt.uri, read(tt.uri), tt.text)
		}
	}
}

func ExampleNewResourceTemplate() {
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1"})
	srv.MustAddResourceTemplate(mcp.NewResourceTemplate("notes://{id}", "note", "text/plain"),
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return mcp.ResourceText(p.URI, "text/plain", "note "+mcp.TemplateVars(ctx).Get("id")), nil
		})
	list, _ := srv.ListResourceTemplates(context.Background(), nil)
	for _, t := range list.ResourceTemplates {
		fmt.Println(t.URITemplate, t.Name, *t.MIMEType)
	}
	// Output: notes://{id} note text/plain
}

// InvalidParams from a tool is a protocol error, not a tool result.
func TestInvalidParams(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(mcp.NewTool("t", ""), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return nil, mcp.InvalidParams("city %q is unknown", "Atlantis")
	})
	_, err := srv.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "t"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32602 || je.Message != `city "Atlantis" is unknown` {
		t.Errorf("CallTool = %v, want -32602 with the message", err)
	}
}

// SessionOptions: WithMiddleware's middleware before WithSessionOptions's,
// WithRevisions over its Revisions, whatever the order; a later
// WithSessionOptions replaces an earlier.
func TestSessionOptions(t *testing.T) {
	tag := func(name string, out *[]string) mcp.Middleware {
		return func(next mcp.MessageHandler) mcp.MessageHandler {
			return func(ctx context.Context, m *mcp.Message) (mcp.RawJSON, error) {
				*out = append(*out, name)
				return next(ctx, m)
			}
		}
	}
	var order []string
	a, b, c := tag("a", &order), tag("b", &order), tag("c", &order)
	for _, tt := range []struct {
		name        string
		opts        []mcp.ServerOption
		middleware  []string
		maxInFlight int
		revisions   []string
	}{
		{"none", nil, nil, 0, nil},
		{"middleware, then session options", []mcp.ServerOption{mcp.WithMiddleware(a), mcp.WithSessionOptions(session.Options{Middleware: []session.Middleware{c}, MaxInFlight: 5})}, []string{"a", "c"}, 5, nil},
		{"session options, then middleware", []mcp.ServerOption{mcp.WithSessionOptions(session.Options{Middleware: []session.Middleware{c}, MaxInFlight: 5}), mcp.WithMiddleware(a), mcp.WithMiddleware(b)}, []string{"a", "b", "c"}, 5, nil},
		{"revisions over the session options'", []mcp.ServerOption{mcp.WithRevisions("2025-11-25"), mcp.WithSessionOptions(session.Options{Revisions: []string{"2025-06-18"}})}, nil, 0, []string{"2025-11-25"}},
		{"the later session options", []mcp.ServerOption{mcp.WithSessionOptions(session.Options{MaxInFlight: 5}), mcp.WithSessionOptions(session.Options{MaxInFlight: 7})}, nil, 7, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, tt.opts...).SessionOptions()
			order = nil
			h := mcp.MessageHandler(func(context.Context, *mcp.Message) (mcp.RawJSON, error) { return nil, nil })
			for i := len(o.Middleware) - 1; i >= 0; i-- {
				h = o.Middleware[i](h)
			}
			h(context.Background(), &mcp.Message{})
			if strings.Join(order, ",") != strings.Join(tt.middleware, ",") {
				t.Errorf("middleware ran %v, want %v", order, tt.middleware)
			}
			if o.MaxInFlight != tt.maxInFlight || strings.Join(o.Revisions, ",") != strings.Join(tt.revisions, ",") {
				t.Errorf("MaxInFlight %d, Revisions %v; want %d, %v", o.MaxInFlight, o.Revisions, tt.maxInFlight, tt.revisions)
			}
		})
	}
}

// The errors AddTypedPrompt's doc names are those a client gets.
func TestTypedPromptErrors(t *testing.T) {
	type Trip struct {
		City string `json:"city"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	mcp.MustAddTypedPrompt(srv, mcp.NewPrompt("plan-trip", ""), func(ctx context.Context, in Trip) (*mcp.GetPromptResult, error) {
		return mcp.PromptText(mcp.RoleUser, in.City), nil
	})
	for _, tt := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{}, `prompts/get "plan-trip": missing required argument "city"`},
		{map[string]string{"city": "Oslo", "mood": "x"}, `prompts/get "plan-trip": invalid arguments: /mood: unknown member`},
	} {
		_, err := srv.GetPrompt(context.Background(), &mcp.GetPromptRequestParams{Name: "plan-trip", Arguments: tt.args})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != -32602 || !strings.HasPrefix(je.Message, tt.want) {
			t.Errorf("GetPrompt(%v) = %v, want -32602 %q", tt.args, err, tt.want)
		}
	}
}
