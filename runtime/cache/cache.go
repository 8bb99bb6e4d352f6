// Package cache is the client-side result cache of MCP 2026-07-28 (the
// specification's server/utilities/caching page:
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
//
// It works on raw JSON, so one cache serves every generated package: a
// client looks a request up before sending it, stores the result it
// receives, and drops entries when the server's notifications say they
// changed:
//
//	e, ok := c.Get(auth, method, params)
//	if ok && e.Fresh {
//		return e.Result, nil
//	}
//	result, err := send(method, params)
//	if err != nil {
//		if ok {
//			return e.Result, nil // stale, which a client MAY serve when a re-fetch fails
//		}
//		return nil, err
//	}
//	c.Put(auth, method, params, result)
//
// and, for every notification received, c.Invalidate(method, params).
//
// The rules it applies:
//   - Only the results of Methods are stored, only when their resultType is
//     "complete" (or absent, as from a server of an earlier revision) and
//     their cacheScope is "public" or "private".
//   - An entry is found only by the same method and the same params, _meta
//     aside (Key). A multi round-trip retry, whose params carry
//     inputResponses or requestState, is never looked up nor stored.
//   - An entry is fresh while now < received + ttlMs; a ttlMs that is 0,
//     absent or negative makes it stale at once. Stale entries are
//     still returned, marked, until they are evicted or invalidated.
//   - A "private" entry is seen only by the authorization context it was
//     stored with, a "public" one by all. The authorization context is
//     a string the caller chooses, such as a hash of the access token; ""
//     stands for no authorization (docs/requirements.md#private-cache-scope).
//   - The list_changed and resources/updated notifications drop the entries
//     they concern.
//
// Memory is bounded by a number of entries and a number of bytes; the least
// recently used entry goes first. A Cache is safe for concurrent use.
package cache

import (
	"container/list"
	"fmt"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// The default bounds of a Cache.
const (
	DefaultMaxEntries = 1024
	DefaultMaxBytes   = 8 << 20 // 8 MiB
)

// Options configures a Cache. The zero value gives the defaults.
type Options struct {
	// MaxEntries is the most entries the cache holds; 0 or less means
	// DefaultMaxEntries.
	MaxEntries int
	// MaxBytes bounds the bytes of the entries the cache holds, an entry
	// counting the length of its result plus that of its key (the method, the
	// canonical params, and for a private entry the authorization context);
	// 0 or less means DefaultMaxBytes. An entry larger than MaxBytes is not
	// stored.
	MaxBytes int64
	// Now returns the current time; nil means time.Now. Tests inject a fake
	// clock here.
	Now func() time.Time
}

// Entry is a cached result as Get returns it.
type Entry struct {
	// Result is a copy of the result as it was received, caching hints
	// included; the caller may keep and modify it.
	Result jsontext.Value
	// Scope is the result's cacheScope.
	Scope Scope
	// Received is when Put stored the result.
	Received time.Time
	// Expires is Received plus the result's ttlMs: the entry is fresh before
	// it. It equals Received when ttlMs was 0, absent or negative.
	Expires time.Time
	// Fresh reports whether the entry was fresh at the time of the Get.
	// A stale entry may still serve when a re-fetch fails.
	Fresh bool
}

// Cache is a bounded, concurrency-safe store of results. Create one with New.
type Cache struct {
	maxEntries int
	maxBytes   int64
	now        func() time.Time

	mu      sync.Mutex
	entries map[slot]*list.Element // of *entry
	lru     list.List              // of *entry, most recently used first
	bytes   int64
	seq     uint64
	// byMethod holds the entries of each method, and byURI the resources/read
	// entries of each uri, for Invalidate.
	byMethod map[string]map[*entry]struct{}
	byURI    map[string]map[*entry]struct{}
}

// slot identifies an entry: a public one by its key alone, a private one by
// its key and its authorization context.
type slot struct {
	key     string
	private bool
	auth    string // "" for public entries
}

// entry is one stored result.
type entry struct {
	slot     slot
	method   string
	uri      string // for resources/read
	result   jsontext.Value
	scope    Scope
	received time.Time
	expires  time.Time
	seq      uint64 // order of storing, to pick the newer of two candidates
	size     int64
}

// New returns an empty cache.
func New(opts Options) *Cache {
	c := &Cache{
		maxEntries: opts.MaxEntries,
		maxBytes:   opts.MaxBytes,
		now:        opts.Now,
		entries:    make(map[slot]*list.Element),
		byMethod:   make(map[string]map[*entry]struct{}),
		byURI:      make(map[string]map[*entry]struct{}),
	}
	if c.maxEntries <= 0 {
		c.maxEntries = DefaultMaxEntries
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxBytes
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Get returns the entry that answers a request of method with params in the
// authorization context auth, and whether there is one. Of a public entry
// and a private one of auth, the one stored last answers. The entry may be
// stale (Entry.Fresh false). Get finds nothing for a method outside Methods,
// a multi round-trip retry, or params Key rejects.
func (c *Cache) Get(auth, method string, params jsontext.Value) (Entry, bool) {
	r, err := parseRequest(method, params)
	if err != nil {
		return Entry{}, false
	}
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *list.Element
	for _, s := range [2]slot{{key: r.key}, {key: r.key, private: true, auth: auth}} {
		if el, ok := c.entries[s]; ok && (best == nil || el.Value.(*entry).seq > best.Value.(*entry).seq) {
			best = el
		}
	}
	if best == nil {
		return Entry{}, false
	}
	c.lru.MoveToFront(best)
	e := best.Value.(*entry)
	return Entry{
		Result:   e.result.Clone(),
		Scope:    e.scope,
		Received: e.received,
		Expires:  e.expires,
		Fresh:    now.Before(e.expires),
	}, true
}

// Put stores result, received now in answer to a request of method with
// params in the authorization context auth, and returns nil when it did.
//
// It returns an error wrapping ErrNotCacheable when the rules leave the
// result out: a method outside Methods, a multi round-trip retry, a result
// whose resultType is not "complete", a result without a cacheScope of
// "public" or "private", or an entry larger than Options.MaxBytes. In the
// last two cases, the result being a newer complete answer to the request,
// Put also drops the entries Get would have returned for it. Params that Key
// rejects and a result that is not one valid JSON object (with no duplicate
// member names and valid UTF-8), or whose resultType, cacheScope or ttlMs
// has the wrong JSON type, are errors and change nothing.
//
// Put keeps a copy of result; the caller may reuse it.
func (c *Cache) Put(auth, method string, params, result jsontext.Value) error {
	r, err := parseRequest(method, params)
	if err != nil {
		return err
	}
	h, err := parseHints(method, result)
	public, private := slot{key: r.key}, slot{key: r.key, private: true, auth: auth}
	if err != nil {
		if h.complete {
			c.mu.Lock()
			c.remove(public)
			c.remove(private)
			c.mu.Unlock()
		}
		return err
	}
	s := public
	if h.scope == Private {
		s = private
	}
	size := int64(len(result)) + int64(len(s.key)) + int64(len(s.auth))
	if size > c.maxBytes {
		c.mu.Lock()
		c.remove(public)
		c.remove(private)
		c.mu.Unlock()
		return fmt.Errorf("cache: %s result: an entry of %d bytes is larger than the bound of %d: %w", method, size, c.maxBytes, ErrNotCacheable)
	}
	now := c.now()
	e := &entry{
		slot:     s,
		method:   method,
		uri:      r.uri,
		result:   result.Clone(),
		scope:    h.scope,
		received: now,
		expires:  now.Add(h.ttl),
		size:     size,
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	e.seq = c.seq
	c.remove(s)
	if !s.private {
		// auth's private entry is older, and no other context sees it. A
		// public entry stays beside a new private one: other contexts still
		// see it, and Get gives auth the newer of the two.
		c.remove(private)
	}
	c.entries[s] = c.lru.PushFront(e)
	c.bytes += size
	index(c.byMethod, method, e)
	if method == methodResourcesRead {
		index(c.byURI, r.uri, e)
	}
	// Each iteration removes one entry; the new one alone is within both
	// bounds, so the loop stops before reaching it.
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.lru.Back().Value.(*entry).slot)
	}
	return nil
}

// Invalidate drops the entries that the notification method with params
// makes obsolete and returns how many it dropped:
//
//   - notifications/tools/list_changed: every tools/list entry (all pages,
//     all authorization contexts);
//   - notifications/prompts/list_changed: every prompts/list entry;
//   - notifications/resources/list_changed: every resources/list and
//     resources/templates/list entry;
//   - notifications/resources/updated: every resources/read entry whose uri
//     is the params' uri, compared as strings; when the params have no
//     string uri (a malformed notification), every resources/read entry, so
//     that nothing the server may have meant stays.
//
// Other methods drop nothing.
func (c *Cache) Invalidate(method string, params jsontext.Value) int {
	var uri string
	var uriOK bool
	if method == "notifications/resources/updated" {
		var err error
		uri, uriOK, err = memberString(params, "uri")
		uriOK = uriOK && err == nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch method {
	case "notifications/tools/list_changed":
		return c.drop(c.byMethod[methodToolsList])
	case "notifications/prompts/list_changed":
		return c.drop(c.byMethod[methodPromptsList])
	case "notifications/resources/list_changed":
		return c.drop(c.byMethod[methodResourcesList]) + c.drop(c.byMethod[methodTemplatesList])
	case "notifications/resources/updated":
		if !uriOK {
			return c.drop(c.byMethod[methodResourcesRead])
		}
		return c.drop(c.byURI[uri])
	}
	return 0
}

// Clear drops every entry.
func (c *Cache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
	clear(c.byMethod)
	clear(c.byURI)
	c.lru.Init()
	c.bytes = 0
}

// Len returns the number of entries, fresh and stale.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Bytes returns the size of the entries as Options.MaxBytes counts it.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// drop removes the entries of set, which is one of the indexes, and returns
// how many there were. c.mu is held.
func (c *Cache) drop(set map[*entry]struct{}) int {
	n := 0
	// remove deletes from set while the loop runs, which Go allows; every
	// entry is visited once.
	for e := range set {
		c.remove(e.slot)
		n++
	}
	return n
}

// remove deletes the entry of s, if any. c.mu is held.
func (c *Cache) remove(s slot) {
	el, ok := c.entries[s]
	if !ok {
		return
	}
	e := el.Value.(*entry)
	c.lru.Remove(el)
	delete(c.entries, s)
	c.bytes -= e.size
	unindex(c.byMethod, e.method, e)
	if e.method == methodResourcesRead {
		unindex(c.byURI, e.uri, e)
	}
}

func index(m map[string]map[*entry]struct{}, k string, e *entry) {
	set := m[k]
	if set == nil {
		set = make(map[*entry]struct{})
		m[k] = set
	}
	set[e] = struct{}{}
}

func unindex(m map[string]map[*entry]struct{}, k string, e *entry) {
	set := m[k]
	delete(set, e)
	if len(set) == 0 {
		delete(m, k)
	}
}
