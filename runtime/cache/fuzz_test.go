package cache

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// fuzzMethods are the methods a fuzz input picks from by index: the
// cacheable ones and one that is not.
var fuzzMethods = append(Methods(), "tools/call")

// fuzzNotifications are the notifications a fuzz input picks from by index.
var fuzzNotifications = []string{
	"notifications/tools/list_changed",
	"notifications/prompts/list_changed",
	"notifications/resources/list_changed",
	"notifications/resources/updated",
	"notifications/message",
}

// FuzzCache feeds arbitrary params, results and notification params to Key,
// Put, Get and Invalidate. They must never panic; Put must store only
// results that are one valid JSON object and give back, through Get, the
// very bytes it stored; a key must be valid, canonical JSON after the
// method; a refused Put must leave nothing behind; and the cache's map, list,
// indexes and byte count must agree throughout.
func FuzzCache(f *testing.F) {
	seeds := []struct {
		method       uint8
		auth         string
		params       string
		result       string
		notification uint8
		note         string
	}{
		{5, "", `{"_meta":{},"cursor":"2"}`, `{"resultType":"complete","ttlMs":60000,"cacheScope":"public","tools":[],"nextCursor":"3"}`, 0, `{}`},
		{2, "tok", `{"uri":"file:///a"}`, `{"resultType":"complete","ttlMs":0,"cacheScope":"private","contents":[{"uri":"file:///a","text":"x"}]}`, 3, `{"uri":"file:///a"}`},
		{2, "", `{"uri":"file:\/\/\/a","_meta":{"x":1}}`, `{"ttlMs":-1,"cacheScope":"public","contents":[]}`, 3, `{"uri":`},
		{2, "", `{"uri":"a:b","requestState":"s"}`, `{"resultType":"complete","cacheScope":"public"}`, 3, ``},
		{2, "", `{"uri":"a:b"}`, `{"resultType":"input_required","requestState":"s"}`, 2, ``},
		{4, "", ``, `{"resultType":"complete","ttlMs":1e400,"cacheScope":"public","capabilities":{}}`, 4, `{}`},
		{0, "", `{"cursor":"a","cursor":"b"}`, `{"cacheScope":"public"}`, 1, `[]`},
		{0, "", `{}`, `{"cacheScope":"public","ttlMs":0,"ttlMs":9}`, 1, `null`},
		{1, "", `{"n":12345678901234567890,"f":1.50}`, "{\"cacheScope\":\"public\",\"x\":\"\xff\"}", 2, `{}`},
		{3, "", `{"a":{"b":[1,{"c":null}]}}`, `{"cacheScope":"private","ttlMs":1.5}`, 2, `{}`},
		{6, "", `{"name":"t"}`, `{"resultType":"complete","ttlMs":5,"cacheScope":"public","content":[]}`, 0, `{}`},
		{1, "", `{}`, `{"cacheScope":"public"} {}`, 0, `{}`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.auth, []byte(s.params), []byte(s.result), s.notification, []byte(s.note))
	}
	f.Fuzz(func(t *testing.T, m uint8, auth string, params, result []byte, n uint8, note []byte) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		clk := newClock()
		c := New(Options{MaxEntries: 4, MaxBytes: 4096, Now: clk.Now})

		key, keyErr := Key(method, params)
		if keyErr == nil {
			canon, ok := strings.CutPrefix(key, method+" ")
			if !ok || !jsontext.Value(canon).IsValid() {
				t.Fatalf("Key(%q, %q) = %q: not the method and valid JSON", method, params, key)
			}
			again, err := Key(method, jsontext.Value(canon))
			if err != nil || again != key {
				t.Fatalf("Key of the key's params %s = %q, %v; want the same key", canon, again, err)
			}
		}

		err := c.Put(auth, method, params, result)
		invariants(t, c)
		if err != nil {
			if keyErr == nil && !jsontext.Value(result).IsValid() && errors.Is(err, ErrNotCacheable) {
				t.Fatalf("Put of invalid JSON %q failed with %v, want a malformed-result error", result, err)
			}
			if c.Len() != 0 {
				t.Fatalf("Put failed with %v but the cache holds %d entries", err, c.Len())
			}
			if _, ok := c.Get(auth, method, params); ok {
				t.Fatalf("Put failed with %v but Get finds an entry", err)
			}
		} else {
			if keyErr != nil {
				t.Fatalf("Put stored what Key rejects (%v)", keyErr)
			}
			if !jsontext.Value(result).IsValid() || jsontext.Value(result).Kind() != '{' {
				t.Fatalf("Put stored %q, which is not one valid JSON object", result)
			}
			e, ok := c.Get(auth, method, params)
			if !ok {
				t.Fatal("Put stored a result that Get does not find")
			}
			if !bytes.Equal(e.Result, result) {
				t.Fatalf("Get = %q, want the stored %q", e.Result, result)
			}
			if e.Scope != Public && e.Scope != Private {
				t.Fatalf("stored scope %q", e.Scope)
			}
			if want := e.Expires.After(e.Received); e.Fresh != want {
				t.Fatalf("Fresh = %v right after Put, want %v (expires %v after)", e.Fresh, want, e.Expires.Sub(e.Received))
			}
			_, other := c.Get(auth+"-other", method, params)
			if other != (e.Scope == Public) {
				t.Fatalf("another context sees the %s entry: %v", e.Scope, other)
			}
			clk.Advance(e.Expires.Sub(e.Received))
			if e, _ := c.Get(auth, method, params); e.Fresh {
				t.Fatalf("entry still fresh at its expiry %v", e.Expires)
			}
		}

		notification := fuzzNotifications[int(n)%len(fuzzNotifications)]
		before := c.Len()
		dropped := c.Invalidate(notification, note)
		invariants(t, c)
		if dropped < 0 || c.Len() != before-dropped {
			t.Fatalf("Invalidate dropped %d of %d entries, %d are left", dropped, before, c.Len())
		}
		if err == nil && method == methodResourcesRead && notification == "notifications/resources/updated" {
			// The read's own uri, as a notification, always drops it.
			uri, _, _ := memberString(jsontext.Value(key[len(method)+1:]), "uri")
			note, _ := jsontext.AppendQuote([]byte(`{"uri":`), uri)
			c.Invalidate(notification, append(note, '}'))
			if c.Len() != 0 {
				t.Fatalf("resources/updated for %q left %d entries", uri, c.Len())
			}
		}
		c.Clear()
		invariants(t, c)
		if c.Len() != 0 || c.Bytes() != 0 {
			t.Fatalf("after Clear: Len() = %d, Bytes() = %d", c.Len(), c.Bytes())
		}
	})
}
