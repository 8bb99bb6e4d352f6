package urimatch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/urimatch"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		template, uri string
		want          urimatch.Vars // nil: no match
	}{
		{"test://template/{id}/data", "test://template/42/data", urimatch.Vars{"id": {"42"}}},
		{"test://template/{id}/data", "test://template/4/2/data", nil},
		{"test://template/{id}/data", "test://template/42/data/x", nil},
		{"test://static", "test://static", urimatch.Vars{}},
		{"test://static", "test://static2", nil},
		// Level 2: reserved expansion keeps slashes.
		{"file:///{+path}", "file:///a/b/c.txt", urimatch.Vars{"path": {"a/b/c.txt"}}},
		// Level 3: query and several variables.
		{"search://q{?q,lang}", "search://q?q=go&lang=en", urimatch.Vars{"q": {"go"}, "lang": {"en"}}},
		{"weather://{city}/{days}", "weather://Oslo/3", urimatch.Vars{"city": {"Oslo"}, "days": {"3"}}},
		// Level 4: an exploded path list.
		{"x://{/segments*}", "x:///a/b/c", urimatch.Vars{"segments": {"a", "b", "c"}}},
		// Percent-encoded values are decoded.
		{"x://{id}", "x://a%20b", urimatch.Vars{"id": {"a b"}}},
		{"x://{id}", "x://" + strings.Repeat("a", urimatch.MaxURI), nil},
	}
	for _, tt := range tests {
		tmpl, err := urimatch.Parse(tt.template)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.template, err)
		}
		got, ok := tmpl.Match(tt.uri)
		if ok != (tt.want != nil) {
			t.Errorf("%q.Match(%.40q) ok = %v, want %v", tt.template, tt.uri, ok, tt.want != nil)
			continue
		}
		if d := cmp.Diff(tt.want, got); ok && d != "" {
			t.Errorf("%q.Match(%q) (-want +got):\n%s", tt.template, tt.uri, d)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ bad, want string }{
		{"x://{id", "incomplete expression at byte 7"},
		{"x://{}", "unacceptable variable name at byte 5"},
		{"x://{a b}", "unacceptable variable name at byte 6"},
		{"x://}", "at byte"},
		{"x://{id:0}", "max-length must be (0, 9999] at byte"},
	} {
		_, err := urimatch.Parse(tc.bad)
		if err == nil || !strings.Contains(err.Error(), `URI template "`+tc.bad+`": `) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error naming the template and %q", tc.bad, err, tc.want)
		}
	}
}

func TestRouter(t *testing.T) {
	var r urimatch.Router[string]
	for _, add := range []struct{ tmpl, h string }{
		{"res://items/{id}", "item"},
		{"res://{kind}/{id}", "any"},
	} {
		if err := r.Add(add.tmpl, add.h); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Add("res://{bad", "bad"); err == nil {
		t.Error("Add of a bad template: no error")
	}
	for uri, want := range map[string]string{
		"res://items/7": "item", // the first added wins
		"res://users/7": "any",
		"res://x":       "",
	} {
		h, vars, ok := r.Match(uri)
		if h != want || ok != (want != "") {
			t.Errorf("Match(%q) = %q, %v; want %q", uri, h, ok, want)
		}
		if ok && vars.Get("id") != "7" {
			t.Errorf("Match(%q) id = %q", uri, vars.Get("id"))
		}
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if v := urimatch.FromContext(ctx); v != nil {
		t.Errorf("FromContext(empty) = %v", v)
	}
	ctx = urimatch.NewContext(ctx, urimatch.Vars{"id": {"1"}})
	if got := urimatch.FromContext(ctx).Get("id"); got != "1" {
		t.Errorf("id = %q, want 1", got)
	}
	if got := (urimatch.Vars{}).Get("none"); got != "" {
		t.Errorf("Get of a missing name = %q", got)
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("test://template/{id}/data", "test://template/42/data")
	f.Add("search://q{?q,lang}", "search://q?q=go&lang=en")
	f.Add("x://{/segments*}{?k*}", "x:///a/b?x=1&y=2")
	f.Add("file:///{+path}{#frag}", "file:///a/b#c")
	f.Fuzz(func(t *testing.T, template, uri string) {
		tmpl, err := urimatch.Parse(template)
		if err != nil {
			return
		}
		vars, ok := tmpl.Match(uri)
		if ok && vars == nil {
			t.Fatal("a match without variables map")
		}
	})
}

// Set replaces a template's value in its place; Remove takes it out.
func TestRouterSetRemove(t *testing.T) {
	var r urimatch.Router[string]
	for _, tt := range []struct {
		op, tmpl, h  string
		wantReplaced bool
		want         map[string]string // Match afterwards, uri to value
	}{
		{"set", "res://items/{id}", "item", false, map[string]string{"res://items/7": "item"}},
		{"set", "res://{kind}/{id}", "any", false, map[string]string{"res://items/7": "item", "res://users/7": "any"}},
		{"set", "res://items/{id}", "item2", true, map[string]string{"res://items/7": "item2", "res://users/7": "any"}},
		{"remove", "res://items/{id}", "", true, map[string]string{"res://items/7": "any"}},
		{"remove", "res://items/{id}", "", false, map[string]string{"res://items/7": "any"}},
		{"remove", "res://{kind}/{id}", "", true, map[string]string{"res://items/7": ""}},
	} {
		var replaced bool
		if tt.op == "set" {
			var err error
			if replaced, err = r.Set(tt.tmpl, tt.h); err != nil {
				t.Fatal(err)
			}
		} else {
			replaced = r.Remove(tt.tmpl)
		}
		if replaced != tt.wantReplaced {
			t.Errorf("%s %s: reported %v, want %v", tt.op, tt.tmpl, replaced, tt.wantReplaced)
		}
		for uri, want := range tt.want {
			if h, _, _ := r.Match(uri); h != want {
				t.Errorf("after %s %s: Match(%q) = %q, want %q", tt.op, tt.tmpl, uri, h, want)
			}
		}
	}
	if _, err := r.Set("res://{bad", "bad"); err == nil {
		t.Error("Set of a bad template: no error")
	}
}
