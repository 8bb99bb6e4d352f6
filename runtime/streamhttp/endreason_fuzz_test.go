package streamhttp

import (
	"testing"

	"github.com/go-json-experiment/json"
)

// FuzzEndReason checks endReason, which reads the data of a session-ended
// event (a server's, untrusted): whatever the bytes, it does not panic and
// returns printable ASCII of at most maxEndReason bytes, never empty; for a
// JSON object with a short printable "reason", that reason.
func FuzzEndReason(f *testing.F) {
	for _, s := range []string{
		`{"reason":"the server is shutting down"}`,
		`{"reason":""}`,
		`{"reason":"\u0000\n\u001b[31mred"}`,
		`{"reason":42}`,
		`{"why":"x"}`,
		`{"reason":"a","reason":"b"}`,
		`["reason"]`,
		`{"reason":"` + string(make([]byte, 300)) + `"}`,
		``,
		`{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := endReason(data)
		if got == "" || len(got) > maxEndReason {
			t.Fatalf("endReason(%q) = %q: want 1 to %d bytes", data, got, maxEndReason)
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 0x20 || got[i] >= 0x7f {
				t.Fatalf("endReason(%q) = %q: byte %d is not printable ASCII", data, got, i)
			}
		}
		var v struct {
			Reason string `json:"reason"`
		}
		if json.Unmarshal(data, &v) != nil || v.Reason == "" || len(v.Reason) > maxEndReason {
			return
		}
		for i := 0; i < len(v.Reason); i++ {
			if v.Reason[i] < 0x20 || v.Reason[i] >= 0x7f {
				return
			}
		}
		if got != v.Reason {
			t.Fatalf("endReason(%q) = %q, want %q", data, got, v.Reason)
		}
	})
}
