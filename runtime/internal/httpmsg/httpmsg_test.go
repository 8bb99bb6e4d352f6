package httpmsg

import (
	"mime"
	"net/http"
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", ExcerptLength) // 2 bytes each: the cut falls inside one
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  a\n\tb  ", "a b"},
		{"\xff ok", "\uFFFD ok"},
		{long, strings.Repeat("é", ExcerptLength/2) + "…"},
	} {
		if got := Excerpt([]byte(tc.in)); got != tc.want {
			t.Errorf("Excerpt(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := BodyExcerpt(strings.NewReader(strings.Repeat("x", 10*ExcerptLength))); got != strings.Repeat("x", ExcerptLength)+"…" {
		t.Errorf("BodyExcerpt of a long body = %q", got)
	}
}

func TestMediaType(t *testing.T) {
	for in, want := range map[string]string{
		"Application/JSON; charset=utf-8": "application/json",
		"text/event-stream":               "text/event-stream",
		"text/event-stream;;bad=":         "text/event-stream",
		"":                                "",
		"application/json":                "application/json",
		" application/json ":              "application/json",
		"application/JSON":                "application/json",
		"application/json\t":              "application/json",
		"no-slash":                        "no-slash",
		"a/b/c":                           "a/b/c",
		"text/\u00e9v\u00e9nement":        "text/\u00e9v\u00e9nement",
	} {
		if got := MediaType(in); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", in, got, want)
		}
		// The fast path answers what the parse answers.
		if plainMediaType(in) {
			if got, want := MediaType(in), slowMediaType(in); got != want {
				t.Errorf("MediaType(%q) = %q, but the parse gives %q", in, got, want)
			}
		}
	}
}

// slowMediaType is MediaType without its fast path.
func slowMediaType(ct string) string {
	t, _, err := mime.ParseMediaType(ct)
	if err != nil {
		t, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// MediaType of a plain value, the usual Content-Type, allocates nothing.
func TestMediaTypePlainNoAllocs(t *testing.T) {
	for _, ct := range []string{"application/json", "text/event-stream"} {
		if n := testing.AllocsPerRun(100, func() { _ = MediaType(ct) }); n != 0 {
			t.Errorf("MediaType(%q): %v allocations, want 0", ct, n)
		}
	}
}

// The tag of an id is the first 8 hex digits of its SHA-256, and does not
// hold the id.
func TestTag(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	// printf %s 0123456789abcdef0123456789abcdef | sha256sum | cut -c1-8
	if got, want := Tag(id), "3eb1bd43"; got != want {
		t.Errorf("Tag(%q) = %q, want %q", id, got, want)
	}
	if strings.Contains(id, Tag(id)) {
		t.Errorf("Tag(%q) = %q is part of the id", id, Tag(id))
	}
}

// Hide replaces each id by its tag, as it is and as escaped in JSON, the
// longer (an event id that holds a session id) first.
func TestHide(t *testing.T) {
	const sid, event = "5e55105e55105e55", "5e55105e55105e55-1_7"
	odd := `a<b>&"c\`
	for _, tc := range []struct {
		body string
		ids  []string
		want string
	}{
		{"no such session " + sid + ".", []string{event, sid}, "no such session " + Tag(sid) + "."},
		{`{"message":"` + sid + ` after ` + event + `"}`, []string{event, sid}, `{"message":"` + Tag(sid) + ` after ` + Tag(event) + `"}`},
		{`{"m":"a\u003cb\u003e\u0026\"c\\"}`, []string{odd}, `{"m":"` + Tag(odd) + `"}`},
		{`{"m":"a<b>&\"c\\"}`, []string{odd}, `{"m":"` + Tag(odd) + `"}`},
		{"a<b>&\"c\\", []string{odd}, Tag(odd)},
		{"nothing to hide", []string{"", sid}, "nothing to hide"},
	} {
		if got := string(Hide([]byte(tc.body), tc.ids...)); got != tc.want {
			t.Errorf("Hide(%q, %q) = %q, want %q", tc.body, tc.ids, got, tc.want)
		}
	}
}

// TestAuthHint says what to do about a 401 by its challenges, and nothing
// about another status.
func TestAuthHint(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		challenges []string
		want       string // a substring; "" for no hint
	}{
		{"an API key gate", 401, []string{`APIKey header="X-API-Key"`}, "an API key in the header X-API-Key: set it in HTTPClientOptions.Header"},
		{"Bearer beside an API key", 401, []string{`APIKey header="X-Key", Bearer realm="mcp"`}, "OAuth"},
		{"an API key gate that names no header", 401, []string{`APIKey`}, "asks for an API key: set the header"},
		{"another scheme", 401, []string{`Basic realm="x"`}, "the scheme Basic"},
		{"no challenge", 401, nil, "asks for credentials"},
		{"a challenge that does not parse", 401, []string{`APIKey header="X`}, "asks for credentials"},
		{"forbidden", 403, []string{`APIKey header="X-API-Key"`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, c := range tt.challenges {
				h.Add("WWW-Authenticate", c)
			}
			got := AuthHint(tt.status, h)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("AuthHint(%d, %q) = %q, want %q in it", tt.status, tt.challenges, got, tt.want)
			}
		})
	}
}
