package mcpheader_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

// The values of the encoding table of the 2026-07-28 transports page
// ("Value Encoding") and of SEP-2243's conformance test cases ("Value
// Encoding Edge Cases"), and the arguments of the http-custom-headers
// scenario (test_custom_headers), with the header value each must travel as.
func TestEncode(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  string
	}{
		// Spec table and SEP-2243 edge cases.
		{"plain ASCII", "us-west1", "us-west1"},
		{"non-ASCII (spec table)", "Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{"leading and trailing spaces (spec table)", " padded ", "=?base64?IHBhZGRlZCA=?="},
		{"newline", "line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"literal sentinel", "=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"leading space", " us-west1", "=?base64?IHVzLXdlc3Qx?="},
		{"trailing space", "us-west1 ", "=?base64?dXMtd2VzdDEg?="},
		{"leading and trailing space", " us-west1 ", "=?base64?IHVzLXdlc3QxIA==?="},
		{"internal spaces only", "us west 1", "us west 1"},
		{"non-ASCII only", "日本語", "=?base64?5pel5pys6Kqe?="},
		{"CRLF", "line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?="},
		{"leading tab", "\tindented", "=?base64?CWluZGVudGVk?="},
		{"empty string", "", ""},
		// http-custom-headers: the arguments of test_custom_headers.
		{"custom-headers method_val", "test-method", "test-method"},
		{"custom-headers query (SQL)", "SELECT * FROM users", "SELECT * FROM users"},
		// Edge cases.
		{"internal tab", "a\tb", "=?base64?YQli?="},
		{"DEL", "a\x7fb", "=?base64?YX9i?="},
		{"NUL", "a\x00b", "=?base64?YQBi?="},
		{"space only", " ", "=?base64?IA==?="},
		{"all printable ASCII", "!\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~", "!\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~"},
		{"uppercase markers are literal", "=?BASE64?SGk=?=", "=?BASE64?SGk=?="},
		{"prefix without suffix", "=?base64?SGk=", "=?base64?SGk="},
		{"suffix without prefix", "SGk=?=", "SGk=?="},
		{"empty sentinel", "=?base64??=", "=?base64?PT9iYXNlNjQ/Pz0=?="},
		{"overlapping markers", "=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?="},
		{"invalid UTF-8 is encoded byte for byte", "\xff", "=?base64?/w==?="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mcpheader.Encode(tt.value)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Encode(%q) (-want +got):\n%s", tt.value, diff)
			}
			if safe := mcpheader.Safe(tt.value); safe != (got == tt.value) {
				t.Errorf("Safe(%q) = %v, but Encode returned %q", tt.value, safe, got)
			}
			back, err := mcpheader.Decode(got)
			switch {
			case !utf8.ValidString(tt.value):
				if err == nil {
					t.Errorf("Decode(%q) = %q, want an error: the bytes are not UTF-8", got, back)
				}
			case err != nil:
				t.Errorf("Decode(%q): %v", got, err)
			case back != tt.value:
				t.Errorf("Decode(Encode(%q)) = %q", tt.value, back)
			}
		})
	}
}

// Header values as a server reads them: the Base64 cases of the
// http-custom-header-server-validation scenario, the whitespace case of
// http-header-validation, and edge cases.
func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		header  string
		want    string
		wantErr string // a substring of the error; "" for success
	}{
		// http-custom-header-server-validation
		{"ServerAcceptsValidBase64", "=?base64?SGVsbG8=?=", "Hello", ""},
		{"ServerRejectsInvalidBase64Padding", "=?base64?SGVsbG8?=", "", "illegal base64 data"},
		{"ServerRejectsInvalidBase64Chars", "=?base64?SGVs!!!bG8=?=", "", "illegal base64 data"},
		{"ServerLiteralMissingBase64Prefix", "SGVsbG8=", "SGVsbG8=", ""},
		{"ServerLiteralMissingBase64Suffix", "=?base64?SGVsbG8=", "=?base64?SGVsbG8=", ""},
		// SEP-2243 "Non-lowercase prefix".
		{"uppercase prefix is literal", "=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?=", ""},
		// http-header-validation ServerAcceptsWhitespaceHeaderValue.
		{"optional whitespace is trimmed", "  my_tool  ", "my_tool", ""},
		{"tabs are trimmed", "\t my_tool\t", "my_tool", ""},
		{"whitespace around a sentinel", " =?base64?SGVsbG8=?= ", "Hello", ""},
		// Edge cases.
		{"empty", "", "", ""},
		{"only whitespace", " \t ", "", ""},
		{"internal tab is a valid field character", "a\tb", "a\tb", ""},
		{"empty sentinel", "=?base64??=", "", ""},
		{"overlapping markers are literal", "=?base64?=", "=?base64?=", ""},
		{"sentinel of a sentinel", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?=", ""},
		{"non-ASCII", "Région", "", "byte 1 of the header value is 0xc3"},
		{"LF", "a\nb", "", "byte 1 of the header value is 0x0a"},
		{"CR", "a\rb", "", "0x0d"},
		{"NUL", "a\x00b", "", "0x00"},
		{"DEL", "a\x7f", "", "0x7f"},
		{"offset counts trimmed whitespace", "  a\x01", "", "byte 3 of the header value is 0x01"},
		{"newline inside Base64", "=?base64?SGVs\nbG8=?=", "", "byte 13 of the header value is 0x0a"},
		{"space inside Base64", "=?base64?SGVs bG8=?=", "", "illegal base64 data"},
		{"URL-safe alphabet", "=?base64?_w==?=", "", "illegal base64 data"},
		{"non-canonical padding bits", "=?base64?SGVsbG9=?=", "", "illegal base64 data"},
		{"not UTF-8", "=?base64?/w==?=", "", "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mcpheader.Decode(tt.header)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Decode(%q) = %q, %v; want an error containing %q", tt.header, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%q): %v", tt.header, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%q) (-want +got):\n%s", tt.header, diff)
			}
		})
	}
}
