package oauthmeta_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

func TestParseChallenges(t *testing.T) {
	type P = oauthmeta.Param
	tests := []struct {
		in   string
		want []oauthmeta.Challenge
	}{
		{`Bearer`, []oauthmeta.Challenge{{Scheme: "Bearer"}}},
		{`Bearer realm="mcp"`, []oauthmeta.Challenge{{Scheme: "Bearer", Params: []P{{"realm", "mcp"}}}}},
		{`Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write"`,
			[]oauthmeta.Challenge{{Scheme: "Bearer", Params: []P{
				{"resource_metadata", "https://a.example/.well-known/oauth-protected-resource/mcp"},
				{"scope", "files:read files:write"}}}}},
		{`Bearer error="insufficient_scope",scope="a b" , resource_metadata="u"`,
			[]oauthmeta.Challenge{{Scheme: "Bearer", Params: []P{{"error", "insufficient_scope"}, {"scope", "a b"}, {"resource_metadata", "u"}}}}},
		{`Bearer error=invalid_token`, []oauthmeta.Challenge{{Scheme: "Bearer", Params: []P{{"error", "invalid_token"}}}}},
		{`Bearer realm = "sp ace"`, []oauthmeta.Challenge{{Scheme: "Bearer", Params: []P{{"realm", "sp ace"}}}}},
		// RFC 9110 section 11.6.1's example.
		{`Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple"`,
			[]oauthmeta.Challenge{
				{Scheme: "Newauth", Params: []P{{"realm", "apps"}, {"type", "1"}, {"title", `Login to "apps"`}}},
				{Scheme: "Basic", Params: []P{{"realm", "simple"}}}}},
		{`Basic realm="a", Bearer scope="s"`,
			[]oauthmeta.Challenge{{Scheme: "Basic", Params: []P{{"realm", "a"}}}, {Scheme: "Bearer", Params: []P{{"scope", "s"}}}}},
		{`Negotiate abc/def+==, Bearer`, []oauthmeta.Challenge{{Scheme: "Negotiate", Token68: "abc/def+=="}, {Scheme: "Bearer"}}},
		{`Negotiate abc=`, []oauthmeta.Challenge{{Scheme: "Negotiate", Token68: "abc="}}},
		{`Basic, Bearer realm="x"`, []oauthmeta.Challenge{{Scheme: "Basic"}, {Scheme: "Bearer", Params: []P{{"realm", "x"}}}}},
		{` , Bearer realm="x",, `, []oauthmeta.Challenge{{Scheme: "Bearer", Params: []P{{"realm", "x"}}}}},
		{`Bearer realm="back\\slash"`, []oauthmeta.Challenge{{Scheme: "Bearer", Params: []P{{"realm", `back\slash`}}}}},
	}
	for _, tt := range tests {
		got, err := oauthmeta.ParseChallenges(tt.in)
		if err != nil {
			t.Errorf("ParseChallenges(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("ParseChallenges(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestParseChallengesErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "no challenge"},
		{`=x`, "at byte 0: expected an auth scheme"},
		{`Bearer realm="open`, "quoted-string is not closed"},
		{`Bearer realm="a` + "\n" + `b"`, "control character"},
		{`Bearer realm="a" junk`, "expected ','"},
		{`Bearer a="x", realm=`, `expected a value for parameter "realm"`},
		{`Bearer realm="x", "y"`, "expected a parameter or a challenge"},
		{strings.Repeat("a", oauthmeta.MaxChallengeHeader+1), "longer than"},
	}
	for _, tt := range tests {
		_, err := oauthmeta.ParseChallenges(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseChallenges(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestChallengeString(t *testing.T) {
	tests := []struct {
		c    oauthmeta.Challenge
		want string
	}{
		{oauthmeta.Bearer(), `Bearer`},
		{oauthmeta.Bearer(oauthmeta.Param{Name: "resource_metadata", Value: "https://x/.well-known/oauth-protected-resource"}, oauthmeta.Param{Name: "scope", Value: ""}),
			`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`},
		{oauthmeta.Bearer(oauthmeta.Param{Name: "error", Value: "insufficient_scope"}, oauthmeta.Param{Name: "scope", Value: "a b"}),
			`Bearer error="insufficient_scope", scope="a b"`},
		// Attacker-controlled text cannot end the quoted-string nor the header.
		{oauthmeta.Bearer(oauthmeta.Param{Name: "error_description", Value: "x\", evil=\"1\r\nSet-Cookie: a=b\\"}),
			`Bearer error_description="x\", evil=\"1Set-Cookie: a=b\\"`},
		// A name that is not a token is left out.
		{oauthmeta.Bearer(oauthmeta.Param{Name: "bad name", Value: "v"}, oauthmeta.Param{Name: "ok", Value: "v"}), `Bearer ok="v"`},
		{oauthmeta.Challenge{Scheme: "Negotiate", Token68: "abc=="}, `Negotiate abc==`},
	}
	for _, tt := range tests {
		got := tt.c.String()
		if got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
		if strings.ContainsAny(got, "\r\n") {
			t.Errorf("String() = %q holds a line break", got)
		}
		back, err := oauthmeta.ParseChallenges(got)
		if err != nil || len(back) != 1 {
			t.Errorf("ParseChallenges(String()) = %v, %v", back, err)
		}
	}
}

func TestBearerChallenge(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="a", Negotiate`)
	h.Add("WWW-Authenticate", `Bearer "broken`)
	h.Add("WWW-Authenticate", `bearer scope="s"`)
	c, ok := oauthmeta.BearerChallenge(h)
	if !ok {
		t.Fatal("no Bearer challenge found")
	}
	if s, _ := c.Get("SCOPE"); s != "s" {
		t.Errorf("scope = %q, want s", s)
	}
	if _, ok := oauthmeta.BearerChallenge(http.Header{"Www-Authenticate": {`Basic realm="a"`}}); ok {
		t.Error("found a Bearer challenge in a Basic-only header")
	}
}

func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer`, `Bearer realm="mcp", scope="a b"`, `Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple"`,
		`Negotiate abc/def+==, Bearer`, `Bearer error="insufficient_scope",scope="a b" , resource_metadata="u"`,
		`Bearer realm="a\`, ` , ,`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		cs, err := oauthmeta.ParseChallenges(in)
		if err != nil {
			return
		}
		// What parses is written back in a form that parses to the same
		// challenges.
		var parts []string
		for _, c := range cs {
			parts = append(parts, c.String())
		}
		again, err := oauthmeta.ParseChallenges(strings.Join(parts, ", "))
		if err != nil {
			t.Fatalf("re-parse of %q: %v", strings.Join(parts, ", "), err)
		}
		if d := cmp.Diff(cs, again, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("round trip of %q (-first +second):\n%s", in, d)
		}
	})
}
