package httpguard

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRequireHeader(t *testing.T) {
	for _, tt := range []struct {
		name   string
		keys   []string
		values []string // of the header, in order
		want   string   // the error; "" lets the request through
	}{
		{"the key", []string{"k1"}, []string{"k1"}, ""},
		{"another key", []string{"k1", "k2"}, []string{"k2"}, ""},
		{"missing", []string{"k1"}, nil, "the X-API-Key header is missing"},
		{"repeated", []string{"k1"}, []string{"k1", "k1"}, "the X-API-Key header is repeated"},
		{"wrong", []string{"k1"}, []string{"k10"}, "the X-API-Key header does not hold a valid key"},
		{"a prefix", []string{"k10"}, []string{"k1"}, "does not hold a valid key"},
		{"empty keys are ignored", []string{"", "k1"}, []string{""}, "does not hold a valid key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			for _, v := range tt.values {
				r.Header.Add("x-api-key", v)
			}
			err := RequireHeader("X-API-Key", tt.keys...)(r)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			var c interface{ Challenge() string }
			if !errors.As(err, &c) || c.Challenge() != `APIKey header="X-API-Key"` {
				t.Errorf("no challenge, or a wrong one")
			}
		})
	}
}

// A RequireHeader gate that can let nothing through (no header name, or
// no key) refuses every request saying it is misconfigured, and says so
// once, at ERROR level, in the default log when it is made.
func TestRequireHeaderMisconfigured(t *testing.T) {
	for _, tt := range []struct {
		name, header string
		keys         []string
		want         string
	}{
		{"no header name", "", []string{"k1"}, "the server's RequireHeader gate is misconfigured (it names no header): every request is refused"},
		{"a blank header name", " ", []string{"k1"}, "misconfigured (it names no header)"},
		{"no keys", "X-API-Key", nil, "misconfigured (it has no key for the X-API-Key header (every key given is empty))"},
		{"empty keys only", "X-API-Key", []string{"", ""}, "misconfigured (it has no key for the X-API-Key header"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logged strings.Builder
			defer slog.SetDefault(slog.Default())
			slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
			gate := RequireHeader(tt.header, tt.keys...)
			for _, v := range []string{"", "k1"} {
				r := httptest.NewRequest(http.MethodGet, "/", nil)
				if v != "" {
					r.Header.Set("X-API-Key", v)
				}
				err := gate(r)
				if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "  ") {
					t.Errorf("request with %q: error %v, want %q", v, err, tt.want)
				}
			}
			if n := strings.Count(logged.String(), "level=ERROR"); n != 1 || !strings.Contains(logged.String(), "misconfigured") {
				t.Errorf("logged %q, want the fault once at ERROR", logged.String())
			}
		})
	}
}

// Gate reads at most GateBodyBytes (and the body limit) of a refused POST:
// the ids of the requests in that much are found.
func TestGateReadsBounded(t *testing.T) {
	deny := func(*http.Request) error { return errors.New("no") }
	filler := `{"jsonrpc":"2.0","id":"a","method":"ping","params":{"x":"` + strings.Repeat("y", GateBodyBytes) + `"}}`
	for _, tt := range []struct {
		name    string
		body    string
		maxBody int64
		ids     int
	}{
		{"small", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, 0, 2},
		{"cut by the body limit", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, 45, 1},
		{"a request past GateBodyBytes", `[` + filler + `,{"jsonrpc":"2.0","id":2,"method":"ping"}]`, 1 << 30, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
			rf := Gate(deny, r, tt.maxBody)
			if rf == nil || rf.Message != "unauthorized: no" {
				t.Fatalf("refusal %+v", rf)
			}
			if len(rf.IDs) != tt.ids {
				t.Errorf("ids %v, want %d", rf.IDs, tt.ids)
			}
		})
	}
	if Gate(nil, httptest.NewRequest(http.MethodGet, "/", nil), 0) != nil {
		t.Error("a nil gate refused")
	}
}
