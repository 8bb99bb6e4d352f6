package icon_test

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/icon"
)

func TestCheckSource(t *testing.T) {
	tests := []struct {
		src  string
		want string // substring of the error; "" for valid
	}{
		{"https://example.com/icon.png", ""},
		{"HTTPS://example.com/i.svg?x=1#f", ""},
		{"data:image/png;base64,iVBORw0KGgo=", ""},
		{"data:image/svg+xml;charset=utf-8;base64,PHN2Zy8+", ""},
		{"http://example.com/icon.png", `scheme "http" is not allowed`},
		{"javascript:alert(1)", `scheme "javascript" is not allowed`},
		{"file:///etc/passwd", `scheme "file" is not allowed`},
		{"ftp://example.com/i.png", `scheme "ftp"`},
		{"ws://example.com/i", `scheme "ws"`},
		{"app://local/icon", `scheme "app"`},
		{"/icon.png", "no scheme"},
		{"", "no scheme"},
		{"https:icon.png", "no host"},
		{"https:///icon.png", "no host"},
		{"https://user:pw@example.com/i.png", "credentials"},
		{"https://exa mple.com/", "not a URL"},
		{"data:text/html;base64,PHNjcmlwdD4=", `media type "text/html"`},
		{"data:,abc", "media type"},
		{"data:image/png,rawbytes", "not base64"},
		{"data:image/png;base64,!!!", "not base64"},
		{"data:image/png;base64,", "no data"},
		{"data:image/png;base64", "no comma"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			err := icon.CheckSource(tt.src)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckSource(%q) = %v, want nil", tt.src, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckSource(%q) = %v, want an error with %q", tt.src, err, tt.want)
			}
		})
	}
}

func TestCheckSizes(t *testing.T) {
	tests := []struct {
		sizes []string
		want  string // substring of the error; "" for valid
	}{
		{nil, ""},
		{[]string{"48x48", "96X96", "any", "ANY", "1x2"}, ""},
		{[]string{"48x48", "48"}, `sizes[1] "48"`},
		{[]string{"0x48"}, "sizes[0]"},
		{[]string{"048x48"}, "sizes[0]"},
		{[]string{"48x48 96x96"}, "sizes[0]"},
		{[]string{"-1x2"}, "sizes[0]"},
		{[]string{"x"}, "sizes[0]"},
		{[]string{""}, "sizes[0]"},
		{[]string{"48×48"}, "sizes[0]"},
		{[]string{"9999999999x1"}, "sizes[0]"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.sizes, ","), func(t *testing.T) {
			err := icon.CheckSizes(tt.sizes)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckSizes(%q) = %v, want nil", tt.sizes, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckSizes(%q) = %v, want an error with %q", tt.sizes, err, tt.want)
			}
		})
	}
}
