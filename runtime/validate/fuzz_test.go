package validate_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/validate"
)

// fuzzSeeds are real messages (the captured sessions, one per line) and
// broken ones.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		data, err := os.ReadFile("testdata/session-" + rev + ".jsonl")
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(append(seeds, data), bytes.Split(data, []byte("\n"))...)
	}
	for _, s := range []string{
		"", " \n", "[", "[]", "{}", `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":2.0,"method":"ping","params":{"_meta":{"-bad-":1,"io.modelcontextprotocol/x":2}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":[{"src":"javascript:x","sizes":["0x1"]}]}]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"x":{}}}},"name":"t"}}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"bogus"}}` + "\n" + `{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{}}`,
		"{\"a\":1,\"a\":2}\n{nope\n\"\xff\"", `{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"} 1 "x" null`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzSplit checks that Split never panics and cuts the input into parts
// that, with only blanks between them, make up the input again, in order,
// each on the line where it starts; when the input is a sequence of JSON
// values, each part is one of them.
func FuzzSplit(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := validate.Split(data)
		lenient := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
		values := true
		d := jsontext.NewDecoder(bytes.NewReader(data), lenient...)
		for {
			if _, err := d.ReadValue(); err != nil {
				values = err.Error() == "EOF"
				break
			}
		}
		at := 0
		for i, p := range parts {
			if len(bytes.TrimSpace(p.Data)) != len(p.Data) || len(p.Data) == 0 {
				t.Fatalf("part %d %q is empty or has blanks around it", i, p.Data)
			}
			off := bytes.Index(data[at:], p.Data)
			if off < 0 {
				t.Fatalf("part %d %q is not in the input after byte %d", i, p.Data, at)
			}
			if gap := data[at : at+off]; len(bytes.TrimSpace(gap)) != 0 {
				t.Fatalf("before part %d: %q is not blank", i, gap)
			}
			if want := 1 + bytes.Count(data[:at+off], []byte("\n")); p.Line != want {
				t.Fatalf("part %d on line %d, want %d", i, p.Line, want)
			}
			if values {
				pd := jsontext.NewDecoder(bytes.NewReader(p.Data), lenient...)
				if v, err := pd.ReadValue(); err != nil || len(v) != len(p.Data) {
					t.Fatalf("part %d %q is not one JSON value: %v", i, p.Data, err)
				}
			}
			at += off + len(p.Data)
		}
		if rest := data[at:]; len(bytes.TrimSpace(rest)) != 0 {
			t.Fatalf("after the last part: %q is not blank", rest)
		}
	})
}

// FuzzStream feeds the parts of arbitrary input to a Stream, from the
// client, the server or either side in turn. It must never panic, report
// each message once with consecutive indices, and give only known kinds
// and rules, with a message valid exactly when it has no problem.
func FuzzStream(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	kinds := []string{validate.KindRequest, validate.KindNotification, validate.KindResponse, validate.KindError, validate.KindInvalid}
	rules := []string{validate.RuleJSON, validate.RuleSchema, validate.RuleMethod, validate.RuleDirection, validate.RuleBatch, validate.RuleID, validate.RuleResponse, validate.RuleMeta, validate.RuleIcon, validate.RuleResult}
	vs := map[string]*validate.Validator{}
	for _, rev := range []string{"2025-03-26", "2025-11-25", "2026-07-28"} {
		r := revisions[rev]
		v, err := validate.New(rev, r.schema(), validate.WithMethods(r.methods()))
		if err != nil {
			f.Fatal(err)
		}
		vs[rev] = v
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for rev, v := range vs {
			s := v.Stream()
			next := 0
			for i, p := range validate.Split(data) {
				from := []validate.Side{validate.AnySide, validate.Client, validate.Server}[i%3]
				reports := s.Payload(p.Data, p.Line, from)
				if len(reports) == 0 {
					t.Fatalf("%s: payload %q: no report", rev, p.Data)
				}
				for _, r := range reports {
					if r.Index != next {
						t.Fatalf("%s: report index %d, want %d", rev, r.Index, next)
					}
					next++
					if !slices.Contains(kinds, r.Kind) {
						t.Fatalf("%s: kind %q", rev, r.Kind)
					}
					if r.Valid() != (len(r.Problems) == 0) {
						t.Fatalf("%s: Valid() = %v with problems %v", rev, r.Valid(), r.Problems)
					}
					for _, pr := range r.Problems {
						if !slices.Contains(rules, pr.Rule) || pr.Reason == "" {
							t.Fatalf("%s: problem %+v", rev, pr)
						}
					}
				}
			}
		}
	})
}
