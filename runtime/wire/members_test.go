package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

func ExampleScanMembers() {
	params := jsontext.Value(`{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":7}}`)
	ms := wire.ScanMembers(params)
	for ms.Next() {
		switch {
		case ms.NameIs("name"):
			fmt.Printf("name %s\n", ms.Value())
		case ms.NameIs("_meta"):
			fmt.Printf("_meta %s\n", ms.Value())
		}
	}
	// Output:
	// name "echo"
	// _meta {"progressToken":7}
}

// TestScanMembers checks that ScanMembers finds every member Member finds,
// in order, and stops without panicking at what is not an object.
func TestScanMembers(t *testing.T) {
	tests := []struct {
		in   string
		want string // name=value pairs, space-separated
	}{
		{`{}`, ``},
		{` { } `, ``},
		{`{"a":1}`, `"a"=1`},
		{`{ "a" : 1 , "b":"x,}" ,"c":{"d":[1,{"e":2}]},"f":null}`, `"a"=1 "b"="x,}" "c"={"d":[1,{"e":2}]} "f"=null`},
		{`{"\u0061":true,"q\"":[]}`, `"\u0061"=true "q\""=[]`},
		{`[1,2]`, ``},
		{`"s"`, ``},
		{``, ``},
		{`{"a"`, ``},
		{`{"a":`, `"a"=`},
		{`{1:2}`, ``},
		{`{"a" 1}`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got []string
			ms := wire.ScanMembers(jsontext.Value(tt.in))
			for i := 0; ms.Next(); i++ {
				if i > len(tt.in) {
					t.Fatal("Next did not stop")
				}
				got = append(got, string(ms.Name())+"="+string(ms.Value()))
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("members = %q, want %q", g, tt.want)
			}
		})
	}
}

// TestScanMembersNameIs checks that NameIs compares unescaped names.
func TestScanMembersNameIs(t *testing.T) {
	ms := wire.ScanMembers(jsontext.Value(`{"\u0061b":1,"ab\"":2}`))
	for _, want := range []struct {
		name string
		is   bool
	}{{"ab", true}, {"ab\"", true}} {
		if !ms.Next() {
			t.Fatal("Next = false, want a member")
		}
		if ms.NameIs(want.name) != want.is {
			t.Errorf("NameIs(%q) on %s = %v, want %v", want.name, ms.Name(), !want.is, want.is)
		}
		if ms.NameIs("zz") {
			t.Errorf("NameIs(%q) on %s = true", "zz", ms.Name())
		}
	}
	if ms.Next() {
		t.Error("Next after the last member = true")
	}
}
