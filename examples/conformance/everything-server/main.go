// Command everything-server is the fixture server for the official MCP
// conformance suite (@modelcontextprotocol/conformance, server mode): a
// stateful Streamable HTTP server at /mcp with every tool, prompt, resource
// and completion the suite's scenarios call by name.
//
//	go run ./examples/conformance/everything-server --http 127.0.0.1:0
//
// The first line on stdout is "listening on http://HOST:PORT/mcp"; logs go
// to stderr. scripts/conformance runs the suite against it.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/spf13/pflag"
)

// The suite's raw HTTP requests carry MCP-Protocol-Version 2025-03-26,
// which the transport accepts only for revisions linked into the binary:
// protocol/mcp20260728 links every revision mcpgen ships.

func main() {
	addr := pflag.String("http", "127.0.0.1:0", "serve HTTP on `ADDR` (port 0 picks a free one)")
	retry := pflag.Duration("retry", 500*time.Millisecond, "the SSE retry interval sent to clients")
	verbose := pflag.BoolP("verbose", "v", false, "log transport diagnostics to stderr")
	pflag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: everything-server [flags]\n\nThe fixture server of the MCP conformance suite (scripts/conformance runs it).\n\nFlags:\n%s", pflag.CommandLine.FlagUsages())
	}
	pflag.Parse()
	log.SetFlags(0)
	log.SetPrefix("everything-server: ")

	opts := mcp.HTTPOptions{Retry: *retry}
	if *verbose {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		opts.Session.Logger = opts.Logger
	}
	srv, ts := newServer()
	defer ts.Close()
	h := srv.HTTPHandler(opts)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	os.Stdout.Sync()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// No deadline for a whole response: it would cut the SSE streams,
		// and the answers of calls that run longer than it. The handler
		// bounds each write itself (streamhttp.ServerOptions.WriteTimeout).
		WriteTimeout:   0,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
	}
	go func() {
		<-ctx.Done()
		h.Close()
		hs.Close()
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// Fixed content the scenarios check for.
var (
	redPixelPNG = makePNG()
	silenceWAV  = makeWAV()
)

// makePNG returns a 1×1 red PNG, base64-encoded.
func makePNG() string {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// makeWAV returns a tenth of a second of 8 kHz 8-bit mono silence as a WAV
// file, base64-encoded.
func makeWAV() string {
	const rate, n = 8000, 800
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + n))
	b.WriteString("WAVEfmt ")
	le(uint32(16))   // fmt chunk size
	le(uint16(1))    // PCM
	le(uint16(1))    // channels
	le(uint32(rate)) // sample rate
	le(uint32(rate)) // byte rate
	le(uint16(1))    // block align
	le(uint16(8))    // bits per sample
	b.WriteString("data")
	le(uint32(n))
	b.Write(bytes.Repeat([]byte{128}, n))
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func ptr[T any](v T) *T { return &v }

func text(s string) mcp.ContentBlock { return mcp.ContentBlock{Value: &mcp.TextContent{Text: s}} }

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{text(s)}}
}

// noArgs is the input schema of the tools that take no arguments.
var noArgs = jsontext.Value(`{"type":"object","properties":{}}`)

func newServer() (*mcp.StandardServer, *tasks.Server) {
	srv := mcp.NewServer(mcp.Implementation{Name: "mcpgen-conformance-everything-server", Version: "1.0.0"})
	addTools(srv)
	addPrompts(srv)
	addResources(srv)
	if err := addModernTools(srv); err != nil {
		log.Fatal(err)
	}
	ts, err := addTaskTools(srv)
	if err != nil {
		log.Fatal(err)
	}
	srv.SetCompletion(complete)
	if err := addSkills(srv); err != nil {
		log.Fatal(err)
	}
	return srv, ts
}

func addTools(srv *mcp.StandardServer) {
	srv.MustAddTool(mcp.Tool{Name: "test_simple_text", Description: ptr("Returns simple text content"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return textResult("This is a simple text response for testing."), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_image_content", Description: ptr("Returns image content (a 1x1 red PNG)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}}}}, nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_audio_content", Description: ptr("Returns audio content (a short WAV)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.AudioContent{Data: silenceWAV, MIMEType: "audio/wav"}}}}, nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_embedded_resource", Description: ptr("Returns an embedded resource"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{Value: &mcp.TextResourceContents{
				URI: "test://embedded-resource", MIMEType: ptr("text/plain"), Text: "This is an embedded resource content.",
			}}}}}}, nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_multiple_content_types", Description: ptr("Returns text, image and resource content"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{
				text("Multiple content types test:"),
				{Value: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}},
				{Value: &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{Value: &mcp.TextResourceContents{
					URI: "test://mixed-content-resource", MIMEType: ptr("application/json"), Text: `{"test":"data","value":123}`,
				}}}},
			}}, nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_tool_with_logging", Description: ptr("Sends three log notifications while it runs"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := sleep(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
				}
				data, err := wire.EncodeValue(msg)
				if err != nil {
					return nil, err
				}
				if err := session.Log(ctx, "info", "everything-server", data); err != nil {
					return nil, err
				}
			}
			return textResult("Tool with logging executed successfully"), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_error_handling", Description: ptr("Always fails, with isError set"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			// A tool error is a result with isError set, not a JSON-RPC
			// error. (Returning a plain error does the same through
			// StandardServer, with the error's text.)
			res := textResult("This tool intentionally returns an error for testing")
			res.IsError = ptr(true)
			return res, nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_tool_with_progress", Description: ptr("Reports progress 0, 50 and 100 of 100"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			total := 100.0
			for i, v := range []float64{0, 50, 100} {
				if i > 0 {
					if err := sleep(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
				}
				// Without a progress token in the request, this does nothing.
				if err := session.ReportProgress(ctx, v, &total, ""); err != nil {
					return nil, err
				}
			}
			return textResult("Tool with progress executed successfully"), nil
		})

	srv.MustAddTool(mcp.Tool{
		Name:        "test_sampling",
		Description: ptr("Asks the client's LLM (sampling/createMessage) and returns its answer"),
		InputSchema: jsontext.Value(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}`),
	}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var args struct {
			Prompt string `json:"prompt"`
		}
		if err := decodeArgs(p, &args); err != nil {
			return nil, err
		}
		res, err := mcp.CreateMessage(ctx, "sampling", &mcp.CreateMessageRequestParams{
			MaxTokens: 100,
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingMessageContent{Value: &mcp.TextContent{Text: args.Prompt}}}},
		})
		if err != nil {
			return nil, err
		}
		answer := "(non-text content)"
		if t, ok := res.Content.Value.(*mcp.TextContent); ok {
			answer = t.Text
		}
		return textResult("LLM response: " + answer), nil
	})

	srv.MustAddTool(mcp.Tool{
		Name:        "test_elicitation",
		Description: ptr("Asks the user (elicitation/create) for a username and an email"),
		InputSchema: jsontext.Value(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`),
	}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var args struct {
			Message string `json:"message"`
		}
		if err := decodeArgs(p, &args); err != nil {
			return nil, err
		}
		res, err := elicit(ctx, args.Message, map[string]mcp.PrimitiveSchemaDefinition{
			"username": {Value: &mcp.StringSchema{Description: ptr("User's response")}},
			"email":    {Value: &mcp.StringSchema{Description: ptr("User's email address")}},
		}, "username", "email")
		if err != nil {
			return nil, err
		}
		return textResult("User response: " + describe(res)), nil
	})

	srv.MustAddTool(mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: ptr("Elicits with a default for every primitive type (SEP-1034)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			res, err := elicit(ctx, "Please review and update the form fields with defaults", map[string]mcp.PrimitiveSchemaDefinition{
				"name":     {Value: &mcp.StringSchema{Description: ptr("User name"), Default: ptr("John Doe")}},
				"age":      {Value: &mcp.NumberSchema{Type: mcp.NumberSchemaTypeInteger, Description: ptr("User age"), Default: ptr(30.0)}},
				"score":    {Value: &mcp.NumberSchema{Type: mcp.NumberSchemaTypeNumber, Description: ptr("User score"), Default: ptr(95.5)}},
				"status":   {Value: &mcp.UntitledSingleSelectEnumSchema{Description: ptr("User status"), Enum: []string{"active", "inactive", "pending"}, Default: ptr("active")}},
				"verified": {Value: &mcp.BooleanSchema{Description: ptr("Verification status"), Default: ptr(true)}},
			})
			if err != nil {
				return nil, err
			}
			return textResult("Elicitation completed: " + describe(res)), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: ptr("Elicits with the five enum schema variants (SEP-1330)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			res, err := elicit(ctx, "Please select options from the enum fields", map[string]mcp.PrimitiveSchemaDefinition{
				"untitledSingle": {Value: &mcp.UntitledSingleSelectEnumSchema{
					Description: ptr("Select one option"),
					Enum:        []string{"option1", "option2", "option3"},
				}},
				"titledSingle": {Value: &mcp.TitledSingleSelectEnumSchema{
					Description: ptr("Select one option with titles"),
					OneOf: []mcp.TitledSingleSelectEnumSchemaOneOfItem{
						{Const: "value1", Title: "First Option"},
						{Const: "value2", Title: "Second Option"},
						{Const: "value3", Title: "Third Option"},
					},
				}},
				"legacyEnum": {Value: &mcp.LegacyTitledEnumSchema{
					Description: ptr("Select one option (legacy)"),
					Enum:        []string{"opt1", "opt2", "opt3"},
					EnumNames:   []string{"Option One", "Option Two", "Option Three"},
				}},
				"untitledMulti": {Value: &mcp.UntitledMultiSelectEnumSchema{
					Description: ptr("Select multiple options"),
					Items:       mcp.UntitledMultiSelectEnumSchemaItems{Enum: []string{"option1", "option2", "option3"}},
				}},
				"titledMulti": {Value: &mcp.TitledMultiSelectEnumSchema{
					Description: ptr("Select multiple options with titles"),
					Items: mcp.TitledMultiSelectEnumSchemaItems{AnyOf: []mcp.TitledMultiSelectEnumSchemaItemsAnyOfItem{
						{Const: "value1", Title: "First Choice"},
						{Const: "value2", Title: "Second Choice"},
						{Const: "value3", Title: "Third Choice"},
					}},
				}},
			})
			if err != nil {
				return nil, err
			}
			return textResult("Elicitation completed: " + describe(res)), nil
		})

	srv.MustAddTool(mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: ptr("Tool with JSON Schema 2020-12 features"),
		InputSchema: jsontext.Value(`{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type": "object",
			"$defs": {
				"address": {
					"$anchor": "addressDef",
					"type": "object",
					"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
				}
			},
			"properties": {
				"name": {"type": "string"},
				"address": {"$ref": "#/$defs/address"},
				"contactMethod": {"type": "string", "enum": ["phone", "email"]},
				"phone": {"type": "string"},
				"email": {"type": "string"}
			},
			"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
			"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
			"then": {"required": ["phone"]},
			"else": {"required": ["email"]},
			"additionalProperties": false
		}`),
	}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult("JSON Schema 2020-12 tool called with: " + string(orEmptyObject(p.Arguments))), nil
	})

	srv.MustAddTool(mcp.Tool{Name: "test_reconnection", Description: ptr("Closes its SSE stream mid-call; the answer arrives after the client resumes (SEP-1699)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			// The POST's SSE connection attaches just after the request is
			// handed to the session: wait for it, then end it.
			closed := false
			for deadline := time.Now().Add(2 * time.Second); !closed && time.Now().Before(deadline); {
				if closed = streamhttp.CloseSSEStream(ctx); !closed {
					if err := sleep(ctx, 5*time.Millisecond); err != nil {
						return nil, err
					}
				}
			}
			if !closed {
				return nil, errors.New("no SSE stream to close (JSON response mode?)")
			}
			// Answer once the connection is surely gone, so that the answer
			// is delivered on the resumed stream.
			if err := sleep(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return textResult("Reconnection test completed successfully"), nil
		})
}

// elicit sends a form elicitation and returns the client's answer.
func elicit(ctx context.Context, message string, props map[string]mcp.PrimitiveSchemaDefinition, required ...string) (*mcp.ElicitResult, error) {
	return mcp.Elicit(ctx, "elicitation", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message:         message,
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: props, Required: required},
	}})
}

// describe renders an elicitation result as "action=A, content={...}".
func describe(res *mcp.ElicitResult) string {
	content := jsontext.Value("{}")
	if b, err := res.AppendJSON(nil); err == nil {
		if c, ok := wire.Member(b, "content"); ok {
			content = c
		}
	}
	return fmt.Sprintf("action=%s, content=%s", res.Action, content)
}

func decodeArgs(p *mcp.CallToolRequestParams, out any) error {
	return wire.DecodeValue(orEmptyObject(p.Arguments), out)
}

func orEmptyObject(v jsontext.Value) jsontext.Value {
	if len(v) == 0 {
		return jsontext.Value("{}")
	}
	return v
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func addPrompts(srv *mcp.StandardServer) {
	srv.MustAddPrompt(mcp.Prompt{Name: "test_simple_prompt", Description: ptr("A simple prompt without arguments")},
		func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: text("This is a simple prompt for testing.")}}}, nil
		})

	srv.MustAddPrompt(mcp.Prompt{
		Name:        "test_prompt_with_arguments",
		Description: ptr("A prompt with two required arguments"),
		Arguments: []mcp.PromptArgument{
			{Name: "arg1", Description: ptr("First test argument"), Required: ptr(true)},
			{Name: "arg2", Description: ptr("Second test argument"), Required: ptr(true)},
		},
	}, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		s := fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", p.Arguments["arg1"], p.Arguments["arg2"])
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: text(s)}}}, nil
	})

	srv.MustAddPrompt(mcp.Prompt{
		Name:        "test_prompt_with_embedded_resource",
		Description: ptr("A prompt that embeds a resource"),
		Arguments:   []mcp.PromptArgument{{Name: "resourceUri", Description: ptr("URI of the resource to embed"), Required: ptr(true)}},
	}, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		uri := p.Arguments["resourceUri"]
		if uri == "" {
			uri = "test://example-resource"
		}
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{Value: &mcp.TextResourceContents{
				URI: uri, MIMEType: ptr("text/plain"), Text: "Embedded resource content for testing.",
			}}}}},
			{Role: mcp.RoleUser, Content: text("Please process the embedded resource above.")},
		}}, nil
	})

	srv.MustAddPrompt(mcp.Prompt{Name: "test_prompt_with_image", Description: ptr("A prompt with image content")},
		func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}}},
				{Role: mcp.RoleUser, Content: text("Please analyze the image above.")},
			}}, nil
		})
}

func addResources(srv *mcp.StandardServer) {
	srv.MustAddResource(mcp.Resource{URI: "test://static-text", Name: "static-text", Description: ptr("A static text resource"), MIMEType: ptr("text/plain")},
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{
				URI: p.URI, MIMEType: ptr("text/plain"), Text: "This is the content of the static text resource.",
			}}}}, nil
		})

	srv.MustAddResource(mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: ptr("A static binary resource (a 1x1 red PNG)"), MIMEType: ptr("image/png")},
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.BlobResourceContents{
				URI: p.URI, MIMEType: ptr("image/png"), Blob: redPixelPNG,
			}}}}, nil
		})

	srv.MustAddResource(mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: ptr("A resource to subscribe to"), MIMEType: ptr("text/plain")},
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{
				URI: p.URI, MIMEType: ptr("text/plain"), Text: "Watched resource content.",
			}}}}, nil
		})

	err := srv.AddResourceTemplate(mcp.ResourceTemplate{
		URITemplate: "test://template/{id}/data",
		Name:        "template-data",
		Description: ptr("Data for an ID, substituted into the URI"),
		MIMEType:    ptr("application/json"),
	}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		id := mcp.TemplateVars(ctx).Get("id")
		body, err := wire.EncodeValue(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{
			URI: p.URI, MIMEType: ptr("application/json"), Text: string(body),
		}}}}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
}

// completions are the suggestions for each prompt argument.
var completions = map[string][]string{
	"arg1": {"paris", "park", "party", "test", "testValue1"},
	"arg2": {"world", "wonder", "testValue2"},
}

// complete answers completion/complete for the arguments of
// test_prompt_with_arguments: the suggestions that start with what was typed.
func complete(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	values := []string{}
	if ref, ok := p.Ref.Value.(*mcp.PromptReference); ok && ref.Name == "test_prompt_with_arguments" {
		for _, v := range completions[p.Argument.Name] {
			if strings.HasPrefix(v, p.Argument.Value) {
				values = append(values, v)
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompleteResultCompletion{Values: values, Total: ptr(int64(len(values))), HasMore: ptr(false)}}, nil
}
