package wire_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestErrorFormatting(t *testing.T) {
	inner := errors.New("inner")
	tests := []struct {
		err  *wire.Error
		want string
	}{
		{&wire.Error{Msg: "bad"}, "bad"},
		{&wire.Error{Pointer: "/a/0", Msg: "bad"}, "/a/0: bad"},
		{&wire.Error{Pointer: "/", Msg: "empty name"}, "/: empty name"},
		{&wire.Error{Pointer: "/a", Msg: "wrapped", Err: inner}, "/a: wrapped"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	e := &wire.Error{Msg: "m", Err: inner}
	if !errors.Is(e, inner) || e.Unwrap() != inner {
		t.Error("Unwrap does not return Err")
	}
	if (&wire.Error{}).Unwrap() != nil {
		t.Error("Unwrap of no error")
	}
}

func TestErrorf(t *testing.T) {
	err := wire.Errorf("/x", "want %s, got %d", "a", 1)
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("%T", err)
	}
	if diff := cmp.Diff(wire.Error{Pointer: "/x", Msg: "want a, got 1"}, *we, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := wire.Errorf("", "top %d", 1).Error(); got != "top 1" {
		t.Errorf("got %q", got)
	}
}

func TestPrefix(t *testing.T) {
	plain := errors.New("plain")
	tests := []struct {
		name    string
		pointer string
		err     error
		want    string // Error() of the result; "" for nil
		wantPtr string
	}{
		{"nil", "/a", nil, "", ""},
		{"empty pointer keeps error", "", &wire.Error{Pointer: "/b", Msg: "m"}, "/b: m", "/b"},
		{"wire error", "/a", &wire.Error{Pointer: "/b/0", Msg: "m"}, "/a/b/0: m", "/a/b/0"},
		{"wire error at top", "/a", &wire.Error{Msg: "m"}, "/a: m", "/a"},
		{"wrapped wire error", "/a", fmt.Errorf("ctx: %w", &wire.Error{Pointer: "/b", Msg: "m"}), "/a/b: m", "/a/b"},
		{"plain error", "/a", plain, "/a: plain", "/a"},
		{"nested prefixes", "/a", wire.Prefix("/b", wire.Prefix("/c", &wire.Error{Msg: "m"})), "/a/b/c: m", "/a/b/c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wire.Prefix(tt.pointer, tt.err)
			if tt.want == "" {
				if got != nil {
					t.Errorf("got %v, want nil", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var we *wire.Error
			if !errors.As(got, &we) || we.Pointer != tt.wantPtr {
				t.Errorf("pointer of %v, want %q", got, tt.wantPtr)
			}
		})
	}
	// The underlying error survives prefixing.
	err := wire.Prefix("/a", &wire.Error{Pointer: "/b", Msg: "eof", Err: io.ErrUnexpectedEOF})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%v lost its underlying error", err)
	}
	if !errors.Is(wire.Prefix("/a", plain), plain) {
		t.Error("plain error lost")
	}
	// At the top level a plain error is wrapped too, as the doc says, so
	// that callers always get an *Error; an *Error is returned as is.
	var we *wire.Error
	if got := wire.Prefix("", plain); !errors.As(got, &we) || we.Pointer != "" || !errors.Is(got, plain) {
		t.Errorf("Prefix(\"\", plain) = %#v, want an *Error at \"\" wrapping plain", got)
	}
	top := &wire.Error{Msg: "top"}
	if got := wire.Prefix("", top); got != error(top) {
		t.Errorf("Prefix(\"\", *Error) = %#v, want it unchanged", got)
	}
}

func TestVersion(t *testing.T) {
	if wire.Version != 1 || !wire.SupportsVersion1 {
		t.Errorf("Version = %d, SupportsVersion1 = %v", wire.Version, wire.SupportsVersion1)
	}
	if wire.MaxDepth != 100 {
		t.Errorf("MaxDepth = %d", wire.MaxDepth)
	}
}

func TestDirection(t *testing.T) {
	tests := []struct {
		d    wire.Direction
		want string
	}{
		{wire.ClientToServer, "client→server"},
		{wire.ServerToClient, "server→client"},
		{wire.Both, "both"},
		{wire.ClientToServer | wire.ServerToClient, "both"},
		{0, "none"},
		{8, "none"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("Direction(%d).String() = %q, want %q", tt.d, got, tt.want)
		}
	}
	m := wire.Method{
		Name:      "tools/call",
		Direction: wire.ClientToServer,
		NewParams: func() wire.Codec { return new(rec) },
		Results:   []string{"Rec"},
		NewResult: []func() wire.Codec{func() wire.Codec { return new(rec) }},
	}
	p := m.NewParams()
	if err := wire.Unmarshal([]byte(`{"s":"p"}`), p); err != nil {
		t.Fatal(err)
	}
	b, err := wire.Marshal(p)
	if err != nil || string(b) != `{"s":"p"}` {
		t.Errorf("Marshal(params) = %s, %v", b, err)
	}
}
