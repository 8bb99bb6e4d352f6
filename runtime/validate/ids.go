package validate

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// requestID is a request id as the duplicate-id rule compares it: an
// integer (2, 2.0 and 2e0 are one id, as are 0 and -0), or the text of
// something else: a string id, JSON-quoted, or an integer beyond int64.
type requestID struct {
	n    int64
	text string // "" for an int64 id
}

// String returns the id as JSON text.
func (id requestID) String() string {
	if id.text != "" {
		return id.text
	}
	return strconv.FormatInt(id.n, 10)
}

// idOf returns the request id of a decoded "id" member, and whether it is
// one: a string or an integer.
func idOf(v any) (requestID, bool) {
	switch v := v.(type) {
	case string:
		b, _ := json.Marshal(v)
		return requestID{text: string(b)}, true
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return requestID{n: n}, true
		}
		s := v.String()
		if !strings.ContainsAny(s, ".eE") {
			// An integer beyond int64, kept as text without a sign on 0.
			return requestID{text: s}, true
		}
		// A fraction or an exponent: an integer when it is integral. Only
		// exactly representable values (|f| < 2^53) are taken as integers;
		// the rest are not tracked.
		f, err := strconv.ParseFloat(s, 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return requestID{n: int64(f)}, true
		}
	}
	return requestID{}, false
}

// idSet is the set of request ids one side has used, stored compactly:
// integer ids as a sorted list of disjoint, non-adjacent runs, so that
// ids counted up 1..N take one run (16 bytes) however large N grows, and
// any integer id at most one run; other ids (strings, integers beyond
// int64) as their text in a map, about 50 bytes plus the text each.
type idSet struct {
	runs  []idRun
	other map[string]struct{}
}

// idRun is the integer ids lo..hi, both included.
type idRun struct{ lo, hi int64 }

// add adds id to the set and reports whether it was not there yet.
func (s *idSet) add(id requestID) bool {
	if id.text != "" {
		if _, ok := s.other[id.text]; ok {
			return false
		}
		if s.other == nil {
			s.other = map[string]struct{}{}
		}
		s.other[id.text] = struct{}{}
		return true
	}
	n := id.n
	// The common case: the next id of a counter.
	if k := len(s.runs); k > 0 && s.runs[k-1].hi < n {
		if s.runs[k-1].hi == n-1 {
			s.runs[k-1].hi = n
		} else {
			s.runs = append(s.runs, idRun{n, n})
		}
		return true
	}
	// i is the first run that ends at n or after it.
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].hi >= n })
	if i < len(s.runs) && s.runs[i].lo <= n {
		return false
	}
	// A run before i ends before n, so n-1 does not overflow; run i starts
	// after n, so n+1 does not.
	left := i > 0 && s.runs[i-1].hi == n-1
	right := i < len(s.runs) && s.runs[i].lo == n+1
	switch {
	case left && right:
		s.runs[i-1].hi = s.runs[i].hi
		s.runs = append(s.runs[:i], s.runs[i+1:]...)
	case left:
		s.runs[i-1].hi = n
	case right:
		s.runs[i].lo = n
	default:
		s.runs = append(s.runs, idRun{})
		copy(s.runs[i+1:], s.runs[i:])
		s.runs[i] = idRun{n, n}
	}
	return true
}

// has reports whether id is in the set.
func (s *idSet) has(id requestID) bool {
	if id.text != "" {
		_, ok := s.other[id.text]
		return ok
	}
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].hi >= id.n })
	return i < len(s.runs) && s.runs[i].lo <= id.n
}
