package streamhttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/go-json-experiment/json/jsontext"
)

// readBody reads what io.ReadAll reads, whatever length the body declares,
// and keeps the reader's limits and errors.
func TestReadBody(t *testing.T) {
	body := strings.Repeat("0123456789", 30) // 300 bytes
	tests := []struct {
		name     string
		declared int64
		r        func() io.Reader
		want     string
		err      error
	}{
		{"exact", 300, func() io.Reader { return strings.NewReader(body) }, body, nil},
		{"shorter than declared", 400, func() io.Reader { return strings.NewReader(body) }, body, nil},
		{"longer than declared", 100, func() io.Reader { return strings.NewReader(body) }, body, nil},
		{"undeclared", -1, func() io.Reader { return strings.NewReader(body) }, body, nil},
		{"declared above the presize bound", maxPresize + 1, func() io.Reader { return strings.NewReader(body) }, body, nil},
		{"one byte at a time", 300, func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) }, body, nil},
		{"empty", 0, func() io.Reader { return strings.NewReader("") }, "", nil},
		{"reader error", 300, func() io.Reader { return iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader(body))) }, body[:1], iotest.ErrTimeout},
		{"limited", 300, func() io.Reader { return io.LimitReader(strings.NewReader(body), 10) }, body[:10], nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readBody(tt.r(), tt.declared)
			if string(got) != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("readBody = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// A body over http.MaxBytesReader's limit still fails with
// *http.MaxBytesError, when it declares a length within the limit too.
func TestReadBodyMaxBytes(t *testing.T) {
	for _, declared := range []int64{5, 20, -1} {
		w := httptest.NewRecorder()
		_, err := readBody(http.MaxBytesReader(w, io.NopCloser(bytes.NewReader(make([]byte, 20))), 10), declared)
		var mbe *http.MaxBytesError
		if !errors.As(err, &mbe) {
			t.Errorf("declared %d: readBody = %v, want a *http.MaxBytesError", declared, err)
		}
	}
}

func TestToolName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`"echo"`, "echo"}, {`"a\"b"`, `a"b`}, {`"\u0065cho"`, "echo"}, {`""`, ""},
		{`5`, ""}, {`null`, ""}, {``, ""}, {`"`, ""}, {"\"\xff\"", ""},
	} {
		if got := toolName(jsontext.Value(tt.in)); got != tt.want {
			t.Errorf("toolName(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
