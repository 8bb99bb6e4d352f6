package validate_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/validate"
)

// TestStreamIDs checks the duplicate-id rule (M-2) and the pairing of
// responses with requests over the compact id store: runs of integer ids
// merged as they grow, answered requests forgotten but for their id.
func TestStreamIDs(t *testing.T) {
	type msg struct {
		from validate.Side
		text string
	}
	req := func(id string) msg {
		return msg{validate.Client, `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`}
	}
	resp := func(id string) msg {
		return msg{validate.Server, `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`}
	}
	reqs := func(ids ...string) []msg {
		var out []msg
		for _, id := range ids {
			out = append(out, req(id))
		}
		return out
	}
	pairs := func(ids ...string) []msg {
		var out []msg
		for _, id := range ids {
			out = append(out, req(id), resp(id))
		}
		return out
	}
	cat := func(parts ...[]msg) []msg {
		var out []msg
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	type finding struct {
		Index int
		Rule  string
	}
	dup := func(i int) finding { return finding{i, validate.RuleID} }
	stray := func(i int) finding { return finding{i, validate.RuleResponse} }
	tests := []struct {
		name string
		msgs []msg
		want []finding
	}{
		{"sequential, no duplicate", reqs("1", "2", "3", "4"), nil},
		{"inside a merged run", reqs("1", "2", "3", "2"), []finding{dup(3)}},
		{"ends of a merged run", reqs("5", "6", "7", "5", "7", "8", "4", "8", "4"), []finding{dup(3), dup(4), dup(7), dup(8)}},
		{"runs joined by the id between them", reqs("1", "2", "4", "5", "3", "1", "3", "5", "6"), []finding{dup(5), dup(6), dup(7)}},
		{"out of order", reqs("10", "3", "7", "1", "9", "2", "8", "7", "10", "3"), []finding{dup(7), dup(8), dup(9)}},
		{"negative ids", reqs("-1", "0", "-2", "1", "-1", "-3", "-2"), []finding{dup(4), dup(6)}},
		{"minus zero is zero", reqs("0", "-0"), []finding{dup(1)}},
		{"integral float is the integer", reqs("2", "2.0", "2e0"), []finding{dup(1), dup(2)}},
		{"int64 ends", reqs("9223372036854775807", "-9223372036854775808", "9223372036854775806", "9223372036854775807", "-9223372036854775808", "-9223372036854775807"), []finding{dup(3), dup(4)}},
		{"beyond int64", reqs("9223372036854775808", "99999999999999999999999", "9223372036854775808", "9223372036854775807"), []finding{dup(2)}},
		{"strings", reqs(`"a"`, `"1"`, "1", `"a"`, `"\u0061"`), []finding{dup(3), dup(4)}},
		{"answered ids stay used", cat(pairs("1", "2", "3"), reqs("2")), []finding{dup(6)}},
		{"answered string ids stay used", cat(pairs(`"x"`), reqs(`"x"`)), []finding{dup(2)}},
		{"answered out of order", cat(reqs("1", "2", "3"), []msg{resp("3"), resp("1"), resp("2")}, reqs("4")), nil},
		{"answered twice", cat(pairs("1", "2"), []msg{resp("1")}), []finding{stray(4)}},
		{"answered twice inside a run", cat(pairs("1", "2", "3", "4"), []msg{resp("2"), resp("5")}), []finding{stray(8), stray(9)}},
		{"answer before the request", cat([]msg{resp("1")}, reqs("1"), []msg{resp("1")}), []finding{stray(0)}},
	}
	v := validator(t, "2025-11-25")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := v.Stream()
			var got []finding
			for _, m := range tt.msgs {
				for _, r := range s.Payload([]byte(m.text), 0, m.from) {
					for _, p := range r.Problems {
						got = append(got, finding{r.Index, p.Rule})
						if p.Rule != validate.RuleID && p.Rule != validate.RuleResponse {
							t.Errorf("message %d: %v", r.Index, p)
						}
						if p.Rule == validate.RuleID && !strings.Contains(p.Reason, "already used") {
							t.Errorf("message %d: %v", r.Index, p)
						}
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
