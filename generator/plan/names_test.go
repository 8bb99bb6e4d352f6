package plan

import "testing"

func TestGoName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"RequestId", "RequestID"},
		{"mimeType", "MIMEType"},
		{"_meta", "Meta"},
		{"$schema", "Schema"},
		{"JSONRPCRequest", "JSONRPCRequest"},
		{"ElicitRequestURLParams", "ElicitRequestURLParams"},
		{"websiteUrl", "WebsiteURL"},
		{"uriTemplate", "URITemplate"},
		{"uri", "URI"},
		{"ttl", "TTL"},
		{"toolUseId", "ToolUseID"},
		{"input_required", "InputRequired"},
		{"date-time", "DateTime"},
		{"allServers", "AllServers"},
		{"isError", "IsError"},
		{"id", "ID"},
		{"ref/prompt", "RefPrompt"},
		{"UTF8String", "UTF8String"},
	}
	for _, tt := range tests {
		if got := GoName(tt.in); got != tt.want {
			t.Errorf("GoName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
