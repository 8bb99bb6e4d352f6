package emit

import (
	"fmt"
	"strings"
	"testing"
)

// testGoNames resolves the schema names a test package declares.
func testGoNames(name string) (string, bool) {
	switch name {
	case "Tool", "CallToolRequest", "MetaObject", "InputRequests":
		return name, true
	case "tool_use":
		return "ToolUse", true
	}
	return "", false
}

func TestLinks(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// The forms the MCP schemas hold, as they hold them.
		{"type", "(except for {@link Tool}, where", "(except for [Tool], where"},
		{"glued method", "returned by the server for a {@link CallToolRequesttools/call} request.", "returned by the server for a tools/call request."},
		{"glued method, unknown type", "sent on a {@link SubscriptionsListenRequestsubscriptions/listen} stream", "sent on a subscriptions/listen stream"},
		{"glued notification", "{@link ResourceListChangedNotificationnotifications/resources/list_changed} is sent", "notifications/resources/list_changed is sent"},
		{"glued method after Notification in a name", "a {@link SubscriptionsAcknowledgedNotificationnotifications/subscriptions/acknowledged}.", "a notifications/subscriptions/acknowledged."},
		{"glued markdown text", "Keys MUST follow the {@link MetaObject`_meta` key naming rules}, with", "Keys MUST follow the `_meta` key naming rules, with"},
		{"dotted path", "if the client declares {@link ClientCapabilities.sampling.context}.", "if the client declares ClientCapabilities.sampling.context."},
		{"dotted path into a known type", "defined an {@link Tool.outputSchema}, this", "defined an Tool.outputSchema, this"},
		{"unknown type", "return an {@link UnsupportedProtocolVersionError}.", "return an UnsupportedProtocolVersionError."},
		{"plural name known", "the keys in the {@link InputRequests} map", "the keys in the [InputRequests] map"},
		// The JSDoc forms.
		{"pipe", "for a {@link CallToolRequest | tools/call} request", "for a tools/call request"},
		{"pipe without spaces", "for a {@link CallToolRequest|tools/call} request", "for a tools/call request"},
		{"space", "see {@link Tool the tool definition} first", "see the tool definition first"},
		{"pipe with markdown", "follow the {@link MetaObject | `_meta` key naming rules}.", "follow the `_meta` key naming rules."},
		{"linkcode and linkplain", "{@linkcode Tool} and {@linkplain Tool | tools}", "[Tool] and tools"},
		{"across a line break", "a {@link\nCallToolRequest | tools/call\nrequest} here", "a tools/call\nrequest here"},
		{"renamed Go type", "a {@link tool_use} block", "a [ToolUse] block"},
		{"several", "{@link Tool}, {@link MetaObject} or {@link Root}.", "[Tool], [MetaObject] or Root."},
		// A doc link must stand as a word of its own.
		{"glued to a word after", "many {@link Tool}s", "many Tools"},
		{"glued to a word before", "pre{@link Tool}", "preTool"},
		// Degenerate links lose no words.
		{"empty", "a {@link} b", "a  b"},
		{"no target", "a {@link | text} b", "a text b"},
		{"no links", "nothing {to} link @link here", "nothing {to} link @link here"},
		{"unclosed", "a {@link Tool b", "a {@link Tool b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := links(tt.in, testGoNames); got != tt.want {
				t.Errorf("links(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLinksWithoutGoNames(t *testing.T) {
	tests := []struct{ in, want string }{
		{"except for {@link Tool}, where", "except for Tool, where"},
		{"a {@link CallToolRequesttools/call} request", "a tools/call request"},
	}
	for _, tt := range tests {
		if got := links(tt.in, nil); got != tt.want {
			t.Errorf("links(%q, nil) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDocOfLinks holds the doc comment of a description with links: every
// word kept, none glued, no link tag left.
func TestDocOfLinks(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{
			"wrapped link",
			"The result returned by the server for a {@link\nCallToolRequesttools/call} request.",
			[]string{"// CallToolResult is the result returned by the server for a tools/call", "// request."},
		},
		{
			"first word",
			"{@link Tool} annotations.",
			[]string{"// CallToolResult: [Tool] annotations."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Split(strings.TrimSpace(fmt.Sprintf("%#v", doc("CallToolResult", links(tt.in, testGoNames), ""))), "\n")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("doc of %q:\n%s\nwant:\n%s", tt.in, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
