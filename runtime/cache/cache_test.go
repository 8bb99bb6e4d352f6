package cache

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// clock is a fake clock for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// result returns a complete result with the given hints; ttl "" leaves
// ttlMs out, scope "" leaves cacheScope out.
func result(ttl, scope, body string) jsontext.Value {
	var b strings.Builder
	b.WriteString(`{"resultType":"complete"`)
	if ttl != "" {
		b.WriteString(`,"ttlMs":` + ttl)
	}
	if scope != "" {
		b.WriteString(`,"cacheScope":"` + scope + `"`)
	}
	if body != "" {
		b.WriteString("," + body)
	}
	b.WriteString("}")
	return jsontext.Value(b.String())
}

// mustPut stores a result and fails the test if Put refuses it.
func mustPut(t testing.TB, c *Cache, auth, method, params string, res jsontext.Value) {
	t.Helper()
	if err := c.Put(auth, method, jsontext.Value(params), res); err != nil {
		t.Fatalf("Put(%q, %q, %s, %s): %v", auth, method, params, res, err)
	}
}

// lookup returns the result Get finds, "" for none, and whether it is fresh.
func lookup(c *Cache, auth, method, params string) (string, bool) {
	e, ok := c.Get(auth, method, jsontext.Value(params))
	if !ok {
		return "", false
	}
	return string(e.Result), e.Fresh
}

func TestFreshness(t *testing.T) {
	tests := []struct {
		name string
		ttl  string // ttlMs as JSON, "" for absent
		// fresh is whether the entry is fresh after each of the advances
		// (cumulative, from the time of Put).
		after []time.Duration
		fresh []bool
	}{
		{"one second", "1000", []time.Duration{0, 999 * time.Millisecond, time.Millisecond, time.Hour}, []bool{true, true, false, false}},
		{"zero", "0", []time.Duration{0, time.Millisecond}, []bool{false, false}},
		{"absent", "", []time.Duration{0}, []bool{false}},
		{"negative", "-5000", []time.Duration{0, time.Second}, []bool{false, false}},
		{"integral float", "2e3", []time.Duration{1999 * time.Millisecond, time.Millisecond}, []bool{true, false}},
		{"beyond int64", "99999999999999999999999", []time.Duration{0, 100 * 365 * 24 * time.Hour}, []bool{true, true}},
		{"beyond Duration", "9223372036854775807", []time.Duration{0, 200 * 365 * 24 * time.Hour}, []bool{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			c := New(Options{Now: clk.Now})
			res := result(tt.ttl, "public", `"tools":[]`)
			mustPut(t, c, "", "tools/list", `{}`, res)
			for i, d := range tt.after {
				clk.Advance(d)
				e, ok := c.Get("", "tools/list", nil)
				if !ok {
					t.Fatalf("step %d: no entry", i)
				}
				if e.Fresh != tt.fresh[i] {
					t.Errorf("step %d (%v after Put): Fresh = %v, want %v", i, clk.Now().Sub(e.Received), e.Fresh, tt.fresh[i])
				}
				if diff := cmp.Diff(string(res), string(e.Result)); diff != "" {
					t.Errorf("step %d: result mismatch (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestEntryFields(t *testing.T) {
	clk := newClock()
	c := New(Options{Now: clk.Now})
	start := clk.Now()
	mustPut(t, c, "tok", "resources/read", `{"uri":"file:///a"}`, result("1500", "private", `"contents":[]`))
	clk.Advance(time.Second)
	e, ok := c.Get("tok", "resources/read", jsontext.Value(`{"uri":"file:///a","_meta":{"x":1}}`))
	if !ok {
		t.Fatal("no entry")
	}
	want := Entry{
		Result:   result("1500", "private", `"contents":[]`),
		Scope:    Private,
		Received: start,
		Expires:  start.Add(1500 * time.Millisecond),
		Fresh:    true,
	}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("entry mismatch (-want +got):\n%s", diff)
	}
	// The caller owns the copies: changing them changes nothing stored.
	e.Result[1] = 'X'
	if got, _ := lookup(c, "tok", "resources/read", `{"uri":"file:///a"}`); got != string(want.Result) {
		t.Errorf("after changing a returned result, Get gives %s", got)
	}
	in := result("1500", "public", `"tools":[]`)
	mustPut(t, c, "", "tools/list", `{}`, in)
	in[1] = 'X'
	if got, _ := lookup(c, "", "tools/list", `{}`); got != string(result("1500", "public", `"tools":[]`)) {
		t.Errorf("after changing the result given to Put, Get gives %s", got)
	}
}

func TestPutRefuses(t *testing.T) {
	tests := []struct {
		name         string
		method       string
		params       string
		result       string
		err          string
		notCacheable bool
	}{
		{"input_required", "resources/read", `{"uri":"a:b"}`, `{"resultType":"input_required","requestState":"s","ttlMs":100,"cacheScope":"public"}`, `resultType "input_required"`, true},
		{"unknown resultType", "tools/list", `{}`, `{"resultType":"partial","ttlMs":100,"cacheScope":"public"}`, `resultType "partial"`, true},
		{"no cacheScope", "tools/list", `{}`, `{"resultType":"complete","ttlMs":100,"tools":[]}`, "without cacheScope", true},
		{"unknown cacheScope", "tools/list", `{}`, `{"resultType":"complete","ttlMs":100,"cacheScope":"shared"}`, `cacheScope "shared"`, true},
		{"empty cacheScope", "tools/list", `{}`, `{"resultType":"complete","cacheScope":""}`, "without cacheScope", true},
		{"method", "tools/call", `{"name":"x"}`, `{"resultType":"complete","ttlMs":100,"cacheScope":"public","content":[]}`, `method "tools/call"`, true},
		{"retry", "resources/read", `{"uri":"a:b","inputResponses":{"k":{}}}`, `{"resultType":"complete","ttlMs":100,"cacheScope":"public","contents":[]}`, "inputResponses", true},
		{"retry with state", "prompts/list", `{"requestState":"x"}`, `{"resultType":"complete","ttlMs":100,"cacheScope":"public","prompts":[]}`, "requestState", true},

		{"not JSON", "tools/list", `{}`, `{"resultType":`, "tools/list result", false},
		{"empty", "tools/list", `{}`, ``, "tools/list result", false},
		{"array", "tools/list", `{}`, `[]`, "want a JSON object, got an array", false},
		{"two values", "tools/list", `{}`, `{"cacheScope":"public"} {}`, "more than one JSON value", false},
		{"duplicate ttlMs", "tools/list", `{}`, `{"cacheScope":"public","ttlMs":0,"ttlMs":99999}`, "duplicate", false},
		{"duplicate deep", "tools/list", `{}`, `{"cacheScope":"public","tools":[{"name":"a","name":"b"}]}`, "duplicate", false},
		{"invalid UTF-8", "tools/list", `{}`, "{\"cacheScope\":\"public\",\"x\":\"\xfe\"}", "UTF-8", false},
		{"fractional ttlMs", "tools/list", `{}`, `{"cacheScope":"public","ttlMs":1.5}`, "/ttlMs: want an integer, got 1.5", false},
		{"string ttlMs", "tools/list", `{}`, `{"cacheScope":"public","ttlMs":"100"}`, "/ttlMs: want an integer, got a string", false},
		{"number cacheScope", "tools/list", `{}`, `{"cacheScope":1}`, "/cacheScope: want a string, got a number", false},
		{"null resultType", "tools/list", `{}`, `{"cacheScope":"public","resultType":null}`, "/resultType: want a string, got null", false},
		{"bad params", "tools/list", `[1]`, `{"resultType":"complete","cacheScope":"public"}`, "tools/list params", false},
		{"read without uri", "resources/read", `{}`, `{"resultType":"complete","cacheScope":"public"}`, "want a string uri", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{})
			err := c.Put("", tt.method, jsontext.Value(tt.params), jsontext.Value(tt.result))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Put = %v, want an error containing %q", err, tt.err)
			}
			if errors.Is(err, ErrNotCacheable) != tt.notCacheable {
				t.Errorf("errors.Is(%v, ErrNotCacheable) = %v, want %v", err, !tt.notCacheable, tt.notCacheable)
			}
			if c.Len() != 0 || c.Bytes() != 0 {
				t.Errorf("after a refused Put: Len() = %d, Bytes() = %d, want 0, 0", c.Len(), c.Bytes())
			}
			if _, ok := c.Get("", tt.method, jsontext.Value(tt.params)); ok {
				t.Error("Get found the refused result")
			}
		})
	}
}

func TestResultTypeAbsent(t *testing.T) {
	// A result without resultType is complete (the schema: a client MUST
	// treat the absent field as "complete").
	c := New(Options{})
	mustPut(t, c, "", "tools/list", `{}`, jsontext.Value(`{"ttlMs":100,"cacheScope":"public","tools":[]}`))
	if _, ok := c.Get("", "tools/list", nil); !ok {
		t.Error("a result without resultType was not stored")
	}
}

func TestRetryNotServed(t *testing.T) {
	c := New(Options{})
	mustPut(t, c, "", "resources/read", `{"uri":"file:///a"}`, result("60000", "public", `"contents":[]`))
	for _, p := range []string{
		`{"uri":"file:///a","inputResponses":{"k":{"action":"accept"}}}`,
		`{"uri":"file:///a","requestState":"opaque"}`,
	} {
		if got, _ := lookup(c, "", "resources/read", p); got != "" {
			t.Errorf("Get(%s) served %s to a multi round-trip retry", p, got)
		}
	}
	if got, _ := lookup(c, "", "resources/read", `{"uri":"file:///a"}`); got == "" {
		t.Error("the original request no longer finds its entry")
	}
}

func TestKeysSeparate(t *testing.T) {
	c := New(Options{})
	puts := []struct{ method, params, body string }{
		{"tools/list", `{}`, `"tools":[{"name":"p1"}],"nextCursor":"2"`},
		{"tools/list", `{"cursor":"2"}`, `"tools":[{"name":"p2"}]`},
		{"resources/read", `{"uri":"file:///a"}`, `"contents":[{"uri":"file:///a","text":"A"}]`},
		{"resources/read", `{"uri":"file:///b"}`, `"contents":[{"uri":"file:///b","text":"B"}]`},
		{"resources/list", `{}`, `"resources":[]`},
		{"resources/templates/list", `{}`, `"resourceTemplates":[]`},
	}
	for _, p := range puts {
		mustPut(t, c, "", p.method, p.params, result("60000", "public", p.body))
	}
	for _, p := range puts {
		got, _ := lookup(c, "", p.method, p.params)
		if diff := cmp.Diff(string(result("60000", "public", p.body)), got); diff != "" {
			t.Errorf("Get(%s %s) mismatch (-want +got):\n%s", p.method, p.params, diff)
		}
	}
	if got, _ := lookup(c, "", "tools/list", `{"cursor":"3"}`); got != "" {
		t.Errorf("an unknown page found %s", got)
	}
	if got, _ := lookup(c, "", "resources/read", `{"uri":"file:///c"}`); got != "" {
		t.Errorf("an unknown uri found %s", got)
	}
	if got, _ := lookup(c, "", "tools/list", `{"_meta":{"p":1},"cursor":"2"}`); !strings.Contains(got, "p2") {
		t.Errorf("page 2 with another _meta found %q", got)
	}
}

func TestScopes(t *testing.T) {
	type get struct {
		auth string
		want string // the body of the result Get must find, "" for none
	}
	tests := []struct {
		name string
		puts []struct{ auth, scope, body string }
		gets []get
	}{
		{
			name: "private seen only by its context",
			puts: []struct{ auth, scope, body string }{{"alice", "private", `"v":"alice"`}},
			gets: []get{{"alice", `"v":"alice"`}, {"bob", ""}, {"", ""}},
		},
		{
			name: "private without authorization is its own context",
			puts: []struct{ auth, scope, body string }{{"", "private", `"v":"anon"`}},
			gets: []get{{"", `"v":"anon"`}, {"alice", ""}},
		},
		{
			name: "public shared across contexts",
			puts: []struct{ auth, scope, body string }{{"alice", "public", `"v":"pub"`}},
			gets: []get{{"alice", `"v":"pub"`}, {"bob", `"v":"pub"`}, {"", `"v":"pub"`}},
		},
		{
			name: "two private contexts",
			puts: []struct{ auth, scope, body string }{{"alice", "private", `"v":"a"`}, {"bob", "private", `"v":"b"`}},
			gets: []get{{"alice", `"v":"a"`}, {"bob", `"v":"b"`}, {"carol", ""}},
		},
		{
			name: "newer private over public for its context only",
			puts: []struct{ auth, scope, body string }{{"bob", "public", `"v":"pub"`}, {"alice", "private", `"v":"a"`}},
			gets: []get{{"alice", `"v":"a"`}, {"bob", `"v":"pub"`}, {"", `"v":"pub"`}},
		},
		{
			// A public answer holds no user-specific data, so the newest
			// answer, public, serves every context.
			name: "newer public replaces the context's private",
			puts: []struct{ auth, scope, body string }{{"alice", "private", `"v":"a"`}, {"bob", "private", `"v":"b"`}, {"alice", "public", `"v":"pub"`}},
			gets: []get{{"alice", `"v":"pub"`}, {"bob", `"v":"pub"`}, {"carol", `"v":"pub"`}},
		},
		{
			name: "newer public from another context wins",
			puts: []struct{ auth, scope, body string }{{"alice", "private", `"v":"a"`}, {"bob", "public", `"v":"pub"`}},
			gets: []get{{"alice", `"v":"pub"`}, {"bob", `"v":"pub"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{})
			for _, p := range tt.puts {
				mustPut(t, c, p.auth, "tools/list", `{}`, result("60000", p.scope, p.body))
			}
			for _, g := range tt.gets {
				got, _ := lookup(c, g.auth, "tools/list", `{}`)
				want := ""
				if g.want != "" {
					want = string(result("60000", "", g.want))
				}
				// Compare bodies: the scope in the stored result varies.
				if body(got) != body(want) {
					t.Errorf("Get in context %q = %s, want body %s", g.auth, got, g.want)
				}
			}
		})
	}
}

// body returns the "v" member of a result, or "" for none.
func body(res string) string {
	s, _, _ := memberString(jsontext.Value(res), "v")
	return s
}

func TestInvalidate(t *testing.T) {
	// Every entry is stored in two contexts (a public one under "", a
	// private one under "alice") to show that invalidation crosses them.
	stored := []struct{ method, params string }{
		{"server/discover", `{}`},
		{"tools/list", `{}`},
		{"tools/list", `{"cursor":"2"}`},
		{"prompts/list", `{}`},
		{"prompts/list", `{"cursor":"2"}`},
		{"resources/list", `{}`},
		{"resources/list", `{"cursor":"2"}`},
		{"resources/templates/list", `{}`},
		{"resources/read", `{"uri":"file:///a"}`},
		{"resources/read", `{"uri":"file:///b"}`},
		{"resources/read", `{"uri":"file:///a/b"}`},
	}
	tests := []struct {
		name    string
		method  string
		params  string
		dropped []string // "method params" of the entries that must go
	}{
		{"tools", "notifications/tools/list_changed", `{}`, []string{`tools/list {}`, `tools/list {"cursor":"2"}`}},
		{"tools without params", "notifications/tools/list_changed", ``, []string{`tools/list {}`, `tools/list {"cursor":"2"}`}},
		{"prompts", "notifications/prompts/list_changed", `{"_meta":{}}`, []string{`prompts/list {}`, `prompts/list {"cursor":"2"}`}},
		{"resources", "notifications/resources/list_changed", ``, []string{`resources/list {}`, `resources/list {"cursor":"2"}`, `resources/templates/list {}`}},
		{"updated", "notifications/resources/updated", `{"uri":"file:///a","_meta":{}}`, []string{`resources/read {"uri":"file:///a"}`}},
		{"updated escaped", "notifications/resources/updated", `{"uri":"file:\/\/\/b"}`, []string{`resources/read {"uri":"file:///b"}`}},
		{"updated unknown uri", "notifications/resources/updated", `{"uri":"file:///c"}`, nil},
		{"updated without uri", "notifications/resources/updated", `{}`, []string{`resources/read {"uri":"file:///a"}`, `resources/read {"uri":"file:///b"}`, `resources/read {"uri":"file:///a/b"}`}},
		{"updated malformed", "notifications/resources/updated", `{"uri":`, []string{`resources/read {"uri":"file:///a"}`, `resources/read {"uri":"file:///b"}`, `resources/read {"uri":"file:///a/b"}`}},
		{"other notification", "notifications/message", `{"level":"info","data":"x"}`, nil},
		{"a request method", "tools/list", `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{})
			for _, s := range stored {
				mustPut(t, c, "", s.method, s.params, result("60000", "public", ""))
				mustPut(t, c, "alice", s.method, s.params, result("60000", "private", ""))
			}
			n := c.Invalidate(tt.method, jsontext.Value(tt.params))
			if want := 2 * len(tt.dropped); n != want {
				t.Errorf("Invalidate dropped %d entries, want %d", n, want)
			}
			var gone []string
			for _, s := range stored {
				_, public := c.Get("", s.method, jsontext.Value(s.params))
				_, private := c.Get("alice", s.method, jsontext.Value(s.params))
				if public != private {
					t.Errorf("%s %s: public entry present = %v, private = %v", s.method, s.params, public, private)
				}
				if !public {
					gone = append(gone, s.method+" "+s.params)
				}
			}
			if diff := cmp.Diff(tt.dropped, gone); diff != "" {
				t.Errorf("dropped entries mismatch (-want +got):\n%s", diff)
			}
			if want := 2 * (len(stored) - len(tt.dropped)); c.Len() != want {
				t.Errorf("Len() = %d, want %d", c.Len(), want)
			}
			invariants(t, c)
		})
	}
}

func TestClear(t *testing.T) {
	c := New(Options{})
	mustPut(t, c, "", "tools/list", `{}`, result("60000", "public", ""))
	mustPut(t, c, "a", "resources/read", `{"uri":"x:y"}`, result("60000", "private", ""))
	c.Clear()
	if c.Len() != 0 || c.Bytes() != 0 {
		t.Errorf("after Clear: Len() = %d, Bytes() = %d", c.Len(), c.Bytes())
	}
	if _, ok := c.Get("a", "resources/read", jsontext.Value(`{"uri":"x:y"}`)); ok {
		t.Error("Get found an entry after Clear")
	}
	if n := c.Invalidate("notifications/resources/updated", jsontext.Value(`{"uri":"x:y"}`)); n != 0 {
		t.Errorf("Invalidate after Clear dropped %d entries", n)
	}
	mustPut(t, c, "", "tools/list", `{}`, result("60000", "public", ""))
	if c.Len() != 1 {
		t.Errorf("Len() = %d after a Put following Clear, want 1", c.Len())
	}
}

func TestSupersede(t *testing.T) {
	tests := []struct {
		name  string
		newer string
		err   error // ErrNotCacheable or nil
		want  string
	}{
		{"newer result replaces", `{"resultType":"complete","ttlMs":1,"cacheScope":"public","v":"new"}`, nil, "new"},
		{"newer without cacheScope drops", `{"resultType":"complete","ttlMs":1,"v":"new"}`, ErrNotCacheable, ""},
		{"newer unknown scope drops", `{"resultType":"complete","cacheScope":"x","v":"new"}`, ErrNotCacheable, ""},
		{"newer too large drops", `{"resultType":"complete","cacheScope":"public","v":"` + strings.Repeat("x", 300) + `"}`, ErrNotCacheable, ""},
		{"input_required keeps", `{"resultType":"input_required","requestState":"s"}`, ErrNotCacheable, "old"},
		{"malformed keeps", `{"resultType":"complete","cacheScope":"public","v":`, nil, "old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{MaxBytes: 200})
			for _, auth := range []string{"", "a"} {
				// "" holds the public entry, "a" a private one of its own.
				scope := "public"
				if auth != "" {
					scope = "private"
				}
				mustPut(t, c, auth, "resources/read", `{"uri":"x:y"}`, jsontext.Value(`{"resultType":"complete","ttlMs":60000,"cacheScope":"`+scope+`","v":"old"}`))
			}
			err := c.Put("a", "resources/read", jsontext.Value(`{"uri":"x:y"}`), jsontext.Value(tt.newer))
			switch {
			case tt.err == nil && tt.want == "old":
				if err == nil || errors.Is(err, ErrNotCacheable) {
					t.Fatalf("Put = %v, want a malformed-result error", err)
				}
			case tt.err == nil:
				if err != nil {
					t.Fatalf("Put: %v", err)
				}
			case !errors.Is(err, tt.err):
				t.Fatalf("Put = %v, want %v", err, tt.err)
			}
			got, _ := lookup(c, "a", "resources/read", `{"uri":"x:y"}`)
			if body(got) != tt.want {
				t.Errorf("Get = %s, want v %q", got, tt.want)
			}
			invariants(t, c)
		})
	}
}

func TestLRUCount(t *testing.T) {
	c := New(Options{MaxEntries: 3})
	page := func(i int) string { return fmt.Sprintf(`{"cursor":"%d"}`, i) }
	for i := range 3 {
		mustPut(t, c, "", "tools/list", page(i), result("60000", "public", ""))
	}
	// Use page 0, so page 1 is now the least recently used.
	if _, ok := c.Get("", "tools/list", jsontext.Value(page(0))); !ok {
		t.Fatal("page 0 missing")
	}
	mustPut(t, c, "", "tools/list", page(3), result("60000", "public", ""))
	want := map[int]bool{0: true, 1: false, 2: true, 3: true}
	for i, present := range want {
		if _, ok := c.Get("", "tools/list", jsontext.Value(page(i))); ok != present {
			t.Errorf("page %d present = %v, want %v", i, ok, present)
		}
	}
	if c.Len() != 3 {
		t.Errorf("Len() = %d, want 3", c.Len())
	}
	// Replacing an entry does not count twice.
	mustPut(t, c, "", "tools/list", page(3), result("1", "public", ""))
	if c.Len() != 3 {
		t.Errorf("Len() = %d after replacing an entry, want 3", c.Len())
	}
}

func TestLRUBytes(t *testing.T) {
	res := func(i int) jsontext.Value {
		return result("60000", "public", fmt.Sprintf(`"v":"%d%s"`, i, strings.Repeat("x", 60)))
	}
	params := func(i int) string { return fmt.Sprintf(`{"uri":"u:%d"}`, i) }
	size := int64(len(res(0))) + int64(len(`resources/read {"uri":"u:0"}`))
	c := New(Options{MaxBytes: 3*size + size/2})
	for i := range 3 {
		mustPut(t, c, "", "resources/read", params(i), res(i))
	}
	if c.Bytes() != 3*size {
		t.Fatalf("Bytes() = %d, want %d", c.Bytes(), 3*size)
	}
	c.Get("", "resources/read", jsontext.Value(params(0)))
	mustPut(t, c, "", "resources/read", params(3), res(3))
	for i, present := range map[int]bool{0: true, 1: false, 2: true, 3: true} {
		if _, ok := c.Get("", "resources/read", jsontext.Value(params(i))); ok != present {
			t.Errorf("entry %d present = %v, want %v", i, ok, present)
		}
	}
	if c.Bytes() != 3*size || c.Len() != 3 {
		t.Errorf("Bytes() = %d, Len() = %d; want %d, 3", c.Bytes(), c.Len(), 3*size)
	}
	// One entry of exactly the bound is stored and evicts all the others.
	empty := int64(len(result("60000", "public", `"v":""`)) + len(`resources/read {"uri":"u:9"}`))
	big := result("60000", "public", `"v":"`+strings.Repeat("y", int(c.maxBytes-empty))+`"`)
	mustPut(t, c, "", "resources/read", params(9), big)
	if c.Len() != 1 || c.Bytes() != c.maxBytes {
		t.Errorf("Len() = %d, Bytes() = %d after an entry of the bound's size, want 1, %d", c.Len(), c.Bytes(), c.maxBytes)
	}
	// An entry beyond the bound is refused and evicts nothing.
	mustPut(t, c, "", "resources/read", params(0), res(0))
	huge := result("60000", "public", `"v":"`+strings.Repeat("z", int(4*size))+`"`)
	err := c.Put("", "resources/read", jsontext.Value(params(5)), huge)
	if !errors.Is(err, ErrNotCacheable) || !strings.Contains(err.Error(), "larger than the bound") {
		t.Errorf("Put of a huge entry = %v, want ErrNotCacheable for the bound", err)
	}
	if c.Len() != 1 {
		t.Errorf("Len() = %d after a refused huge entry, want 1", c.Len())
	}
	if _, ok := c.Get("", "resources/read", jsontext.Value(params(0))); !ok {
		t.Error("a refused huge entry evicted another one")
	}
	invariants(t, c)
}

func TestPrivateCountsAuth(t *testing.T) {
	c := New(Options{})
	res := result("60000", "private", "")
	mustPut(t, c, "a-long-authorization-context", "tools/list", `{}`, res)
	want := int64(len(res) + len(`tools/list {}`) + len("a-long-authorization-context"))
	if c.Bytes() != want {
		t.Errorf("Bytes() = %d, want %d", c.Bytes(), want)
	}
}

func TestDefaults(t *testing.T) {
	c := New(Options{MaxEntries: -1, MaxBytes: -1})
	if c.maxEntries != DefaultMaxEntries || c.maxBytes != DefaultMaxBytes || c.now == nil {
		t.Errorf("New with negative bounds: maxEntries %d, maxBytes %d, now set %v", c.maxEntries, c.maxBytes, c.now != nil)
	}
	for i := range DefaultMaxEntries + 10 {
		mustPut(t, c, "", "tools/list", fmt.Sprintf(`{"cursor":"%d"}`, i), result("60000", "public", ""))
	}
	if c.Len() != DefaultMaxEntries {
		t.Errorf("Len() = %d, want the default bound %d", c.Len(), DefaultMaxEntries)
	}
}

// TestConcurrent runs Put, Get, Invalidate and Clear together; under -race
// it checks the locking, and afterwards the bounds and the byte count.
func TestConcurrent(t *testing.T) {
	c := New(Options{MaxEntries: 50, MaxBytes: 4000})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 300 {
				params := fmt.Sprintf(`{"uri":"u:%d"}`, (i*7+w)%80)
				auth := fmt.Sprint(w % 3)
				switch i % 10 {
				case 0:
					c.Invalidate("notifications/resources/updated", jsontext.Value(params))
				case 1:
					c.Invalidate("notifications/tools/list_changed", nil)
				case 2:
					if i%100 == 2 {
						c.Clear()
					}
				case 3, 4, 5:
					scope := []string{"public", "private"}[i%2]
					if err := c.Put(auth, "resources/read", jsontext.Value(params), result("60000", scope, `"w":`+fmt.Sprint(w))); err != nil {
						t.Error(err)
						return
					}
					c.Put(auth, "tools/list", jsontext.Value(fmt.Sprintf(`{"cursor":"%d"}`, i)), result("10", "public", ""))
				default:
					if e, ok := c.Get(auth, "resources/read", jsontext.Value(params)); ok && !jsontext.Value(e.Result).IsValid() {
						t.Errorf("Get returned invalid JSON %s", e.Result)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if c.Len() > 50 || c.Bytes() > 4000 {
		t.Errorf("bounds exceeded: Len() = %d, Bytes() = %d", c.Len(), c.Bytes())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	checkInvariants(t, c)
}

// invariants locks c and checks its invariants.
func invariants(t testing.TB, c *Cache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	checkInvariants(t, c)
}

// checkInvariants checks that the map, the list, the indexes and the byte
// count agree. c.mu is held.
func checkInvariants(t testing.TB, c *Cache) {
	t.Helper()
	if len(c.entries) != c.lru.Len() {
		t.Errorf("%d map entries, %d list entries", len(c.entries), c.lru.Len())
	}
	var bytes int64
	indexed := 0
	for el := c.lru.Front(); el != nil; el = el.Next() {
		e := el.Value.(*entry)
		bytes += e.size
		if c.entries[e.slot] != el {
			t.Errorf("list entry %q is not in the map", e.slot.key)
		}
		if _, ok := c.byMethod[e.method][e]; !ok {
			t.Errorf("entry %q is not in the method index", e.slot.key)
		}
		if e.method == methodResourcesRead {
			if _, ok := c.byURI[e.uri][e]; !ok {
				t.Errorf("entry %q is not in the uri index", e.slot.key)
			}
			indexed++
		}
	}
	for _, idx := range []map[string]map[*entry]struct{}{c.byMethod, c.byURI} {
		for k, set := range idx {
			if len(set) == 0 {
				t.Errorf("an empty set stays in an index under %q", k)
			}
		}
	}
	n := 0
	for _, set := range c.byMethod {
		n += len(set)
	}
	if n != c.lru.Len() {
		t.Errorf("method index holds %d entries, the list %d", n, c.lru.Len())
	}
	n = 0
	for _, set := range c.byURI {
		n += len(set)
	}
	if n != indexed {
		t.Errorf("uri index holds %d entries, the list %d reads", n, indexed)
	}
	if bytes != c.bytes {
		t.Errorf("entries sum to %d bytes, the count says %d", bytes, c.bytes)
	}
}

func BenchmarkGetHit(b *testing.B) {
	c := New(Options{})
	res := result("60000", "public", `"tools":[`+strings.Repeat(`{"name":"tool","inputSchema":{"type":"object"}},`, 20)+`{"name":"last","inputSchema":{"type":"object"}}]`)
	params := jsontext.Value(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"cursor":"page-2"}`)
	mustPut(b, c, "", "tools/list", string(params), res)
	b.ReportAllocs()
	b.SetBytes(int64(len(res)))
	for b.Loop() {
		if _, ok := c.Get("", "tools/list", params); !ok {
			b.Fatal("miss")
		}
	}
}

// TestPublicReplacesOwnPrivate checks that a public answer frees the private
// entry of the same context, which nothing could return any more, and keeps
// those of other contexts.
func TestPublicReplacesOwnPrivate(t *testing.T) {
	c := New(Options{})
	mustPut(t, c, "alice", "tools/list", `{}`, result("60000", "private", `"v":"a"`))
	mustPut(t, c, "bob", "tools/list", `{}`, result("60000", "private", `"v":"b"`))
	mustPut(t, c, "alice", "tools/list", `{}`, result("60000", "public", `"v":"pub"`))
	if c.Len() != 2 {
		t.Errorf("Len() = %d, want 2 (bob's private entry and the public one)", c.Len())
	}
	want := int64(2*len(`tools/list {}`) + len("bob") + len(result("60000", "private", `"v":"b"`)) + len(result("60000", "public", `"v":"pub"`)))
	if c.Bytes() != want {
		t.Errorf("Bytes() = %d, want %d", c.Bytes(), want)
	}
	invariants(t, c)
}
