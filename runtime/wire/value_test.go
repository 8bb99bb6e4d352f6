package wire_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestDecodeValue(t *testing.T) {
	type args struct {
		Text  string `json:"text"`
		Count int    `json:"count"`
	}
	var a args
	if err := wire.DecodeValue(jsontext.Value(`{"text":"hi","count":2}`), &a); err != nil || a.Text != "hi" || a.Count != 2 {
		t.Fatalf("DecodeValue = %+v, %v", a, err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"text":"a","text":"b"}`, "duplicate"},
		{`{"count":"two"}`, "/count"},
		{``, "no value"},
	} {
		err := wire.DecodeValue(jsontext.Value(tc.in), &a)
		var we *wire.Error
		if err == nil || !errors.As(err, &we) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeValue(%s) = %v, want a *wire.Error mentioning %q", tc.in, err, tc.want)
		}
	}
	// Member names match case-sensitively: "Text" is not "text".
	a = args{}
	if err := wire.DecodeValue(jsontext.Value(`{"Text":"x"}`), &a); err != nil || a.Text != "" {
		t.Errorf("case-insensitive match: %+v, %v", a, err)
	}
	v, err := wire.EncodeValue(args{Text: "x", Count: 1})
	if err != nil || string(v) != `{"text":"x","count":1}` {
		t.Errorf("EncodeValue = %s, %v", v, err)
	}
	if _, err := wire.EncodeValue(func() {}); err == nil {
		t.Error("EncodeValue of a func succeeded")
	}
}
