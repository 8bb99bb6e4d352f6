package tasks_test

import (
	"encoding/base64"
	stdjson "encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

var created = time.Date(2026, 7, 28, 10, 0, 0, 123456789, time.UTC)

// full returns a record with every field set.
func full() *tasks.Record {
	return &tasks.Record{
		ID:            "AAECAwQFBgcICQoLDA0ODw",
		Principal:     "alice",
		Method:        "tools/call",
		Params:        jsontext.Value(`{"name":"confirm_delete","arguments":{"filename":"a.txt"}}`),
		Status:        tasks.StatusInputRequired,
		StatusMessage: "waiting",
		CreatedAt:     created,
		UpdatedAt:     created.Add(time.Second),
		TTL:           time.Hour,
		PollInterval:  1500 * time.Millisecond,
		Version:       3,
		Outstanding: map[string]jsontext.Value{
			"z": jsontext.Value(`{"method":"roots/list"}`),
			"a": jsontext.Value(`{"method":"elicitation/create","params":{"message":"Sure?"}}`),
		},
		Answers:         map[string]jsontext.Value{"n": jsontext.Value(`{"action":"decline"}`)},
		Issued:          []string{"n", "a", "z"},
		CancelRequested: true,
		Runner:          "i-1",
		LeaseUntil:      created.Add(time.Minute),
	}
}

// The JSON form is the documented one, member for member: a store outside
// the process relies on these names.
const fullJSON = `{"id":"AAECAwQFBgcICQoLDA0ODw","principal":"alice","method":"tools/call",` +
	`"params":{"name":"confirm_delete","arguments":{"filename":"a.txt"}},"status":"input_required",` +
	`"statusMessage":"waiting","createdAt":"2026-07-28T10:00:00.123456789Z","updatedAt":"2026-07-28T10:00:01.123456789Z",` +
	`"ttlMs":3600000,"pollIntervalMs":1500,"version":3,` +
	`"outstanding":{"a":{"method":"elicitation/create","params":{"message":"Sure?"}},"z":{"method":"roots/list"}},` +
	`"answers":{"n":{"action":"decline"}},"issued":["n","a","z"],"cancelRequested":true,` +
	`"runner":"i-1","leaseUntil":"2026-07-28T10:01:00.123456789Z"}`

func TestRecordJSON(t *testing.T) {
	completed := &tasks.Record{ID: "x", Status: tasks.StatusCompleted, CreatedAt: created, UpdatedAt: created,
		Version: 2, Result: jsontext.Value(`{"content":[],"isError":true}`)}
	failed := &tasks.Record{ID: "y", Status: tasks.StatusFailed, CreatedAt: created, UpdatedAt: created,
		Version: 2, Error: jsontext.Value(`{"code":-32603,"message":"boom"}`)}
	local := time.FixedZone("X", 2*3600)
	tests := []struct {
		name string
		rec  *tasks.Record
		want string
	}{
		{"full", full(), fullJSON},
		{"minimal", &tasks.Record{ID: "m", Status: tasks.StatusWorking},
			`{"id":"m","status":"working","createdAt":"0001-01-01T00:00:00Z","updatedAt":"0001-01-01T00:00:00Z","ttlMs":null,"version":0}`},
		{"completed", completed,
			`{"id":"x","status":"completed","createdAt":"2026-07-28T10:00:00.123456789Z","updatedAt":"2026-07-28T10:00:00.123456789Z","ttlMs":null,"version":2,"result":{"content":[],"isError":true}}`},
		{"failed", failed,
			`{"id":"y","status":"failed","createdAt":"2026-07-28T10:00:00.123456789Z","updatedAt":"2026-07-28T10:00:00.123456789Z","ttlMs":null,"version":2,"error":{"code":-32603,"message":"boom"}}`},
		{"times in UTC, empty collections omitted", &tasks.Record{ID: "u", Status: tasks.StatusCancelled,
			CreatedAt: created.In(local), UpdatedAt: created.In(local), Outstanding: map[string]jsontext.Value{},
			Issued: []string{}, Params: jsontext.Value{}},
			`{"id":"u","status":"cancelled","createdAt":"2026-07-28T10:00:00.123456789Z","updatedAt":"2026-07-28T10:00:00.123456789Z","ttlMs":null,"version":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.rec.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			if string(b) != tt.want {
				t.Errorf("MarshalJSON:\n got %s\nwant %s", b, tt.want)
			}
			// encoding/json, which a store may use, gives the same bytes and
			// comes back to the same record.
			sb, err := stdjson.Marshal(tt.rec)
			if err != nil || string(sb) != tt.want {
				t.Errorf("encoding/json.Marshal: %s, %v; want the same bytes", sb, err)
			}
			var back tasks.Record
			if err := stdjson.Unmarshal(b, &back); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			again, err := back.MarshalJSON()
			if err != nil || string(again) != tt.want {
				t.Errorf("after a round trip: %s, %v; want the same bytes", again, err)
			}
			if !back.CreatedAt.Equal(tt.rec.CreatedAt) || back.TTL != tt.rec.TTL || back.Version != tt.rec.Version {
				t.Errorf("round trip changed the record: %+v", back)
			}
		})
	}
}

func TestRecordDecode(t *testing.T) {
	base := `"id":"a","status":"working"`
	tests := []struct {
		name  string
		in    string
		err   string // a part of the error; "" for success
		check func(t *testing.T, r *tasks.Record)
	}{
		{"minimal", `{` + base + `}`, "", func(t *testing.T, r *tasks.Record) {
			if r.ID != "a" || r.Status != tasks.StatusWorking || r.TTL != 0 || r.Version != 0 {
				t.Errorf("decoded %+v", r)
			}
		}},
		{"unknown members ignored", `{` + base + `,"futureField":{"x":1},"version":7}`, "", func(t *testing.T, r *tasks.Record) {
			if r.Version != 7 {
				t.Errorf("version %d, want 7", r.Version)
			}
		}},
		{"ttl and poll interval", `{` + base + `,"ttlMs":60000,"pollIntervalMs":250}`, "", func(t *testing.T, r *tasks.Record) {
			if r.TTL != time.Minute || r.PollInterval != 250*time.Millisecond {
				t.Errorf("ttl %v poll %v", r.TTL, r.PollInterval)
			}
		}},
		{"time with an offset", `{` + base + `,"createdAt":"2026-07-28T12:00:00+02:00"}`, "", func(t *testing.T, r *tasks.Record) {
			if !r.CreatedAt.Equal(time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)) {
				t.Errorf("createdAt %v", r.CreatedAt)
			}
		}},
		{"full", fullJSON, "", func(t *testing.T, r *tasks.Record) {
			if len(r.Outstanding) != 2 || string(r.Answers["n"]) != `{"action":"decline"}` || !r.CancelRequested {
				t.Errorf("decoded %+v", r)
			}
		}},
		{"no id", `{"status":"working"}`, "id is empty", nil},
		{"no status", `{"id":"a"}`, `status ""`, nil},
		{"unknown status", `{"id":"a","status":"paused"}`, `status "paused"`, nil},
		{"id case", `{"ID":"a","status":"working"}`, "id is empty", nil},
		{"repeated member", `{` + base + `,"id":"b"}`, "duplicate", nil},
		{"repeated member inside params", `{` + base + `,"params":{"a":1,"a":2}}`, "duplicate", nil},
		{"ttl zero", `{` + base + `,"ttlMs":0}`, "/ttlMs: 0", nil},
		{"ttl negative", `{` + base + `,"ttlMs":-5}`, "/ttlMs: -5", nil},
		{"ttl fraction", `{` + base + `,"ttlMs":1.5}`, "ttlMs", nil},
		{"ttl too large", `{` + base + `,"ttlMs":9223372036854775807}`, "/ttlMs", nil},
		{"ttl a string", `{` + base + `,"ttlMs":"60000"}`, "ttlMs", nil},
		{"poll interval negative", `{` + base + `,"pollIntervalMs":-1}`, "/pollIntervalMs", nil},
		{"version negative", `{` + base + `,"version":-1}`, "version", nil},
		{"params an array", `{` + base + `,"params":[1]}`, "params: a JSON array, want an object", nil},
		{"params null", `{` + base + `,"params":null}`, "params: a JSON null", nil},
		{"answer a string", `{` + base + `,"answers":{"k":"yes"}}`, "answers/k: a JSON string", nil},
		{"outstanding null", `{` + base + `,"outstanding":{"k":null}}`, "outstanding/k", nil},
		{"result while working", `{` + base + `,"result":{"content":[]}}`, "a result goes with status completed", nil},
		{"completed without result", `{"id":"a","status":"completed"}`, "a result goes with status completed", nil},
		{"error while completed", `{"id":"a","status":"completed","result":{},"error":{"code":1}}`, "an error goes with status failed", nil},
		{"bad time", `{` + base + `,"createdAt":"yesterday"}`, "createdAt", nil},
		{"year out of range in UTC", `{` + base + `,"createdAt":"0000-01-01T00:00:00+01:00"}`, "createdAt: year -1", nil},
		{"not an object", `["id"]`, "decode record", nil},
		{"trailing data", `{` + base + `} {}`, "decode record", nil},
		{"empty", ``, "decode record", nil},
		{"invalid UTF-8", "{\"id\":\"\xff\",\"status\":\"working\"}", "decode record", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r tasks.Record
			err := r.UnmarshalJSON([]byte(tt.in))
			if tt.err == "" {
				if err != nil {
					t.Fatalf("UnmarshalJSON: %v", err)
				}
				tt.check(t, &r)
				return
			}
			if err == nil {
				t.Fatalf("UnmarshalJSON succeeded with %+v, want an error containing %q", r, tt.err)
			}
			if !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "tasks: decode") {
				t.Errorf("UnmarshalJSON: %q, want a \"tasks: decode\" error containing %q", err, tt.err)
			}
			if r.ID != "" || r.Status != "" {
				t.Errorf("a failed UnmarshalJSON changed the record: %+v", r)
			}
		})
	}
}

func TestRecordDecodeReplaces(t *testing.T) {
	r := full()
	if err := r.UnmarshalJSON([]byte(`{"id":"b","status":"working"}`)); err != nil {
		t.Fatal(err)
	}
	if r.Principal != "" || r.Outstanding != nil || r.TTL != 0 || !r.CreatedAt.IsZero() {
		t.Errorf("UnmarshalJSON kept fields of the old record: %+v", r)
	}
}

func TestMarshalInvalid(t *testing.T) {
	tests := []struct {
		name string
		rec  tasks.Record
		err  string
	}{
		{"no id", tasks.Record{Status: tasks.StatusWorking}, "tasks: encode record: id is empty"},
		{"sub-millisecond poll", tasks.Record{ID: "a", Status: tasks.StatusWorking, PollInterval: time.Microsecond}, "pollInterval 1µs: not a whole number of milliseconds"},
		{"year 10000", tasks.Record{ID: "a", Status: tasks.StatusWorking, CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, "createdAt: year 10000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.rec.MarshalJSON()
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("MarshalJSON: %v, want an error containing %q", err, tt.err)
			}
		})
	}
}

func TestClone(t *testing.T) {
	if (*tasks.Record)(nil).Clone() != nil {
		t.Errorf("Clone of nil is not nil")
	}
	r := full()
	r.Result = jsontext.Value(`{"content":[]}`)
	r.Error = jsontext.Value(`{"code":1,"message":"m"}`)
	if _, err := r.MarshalJSON(); err == nil {
		t.Fatalf("a record with both a result and an error marshalled")
	}
	r.Error = nil
	r.Status = tasks.StatusCompleted
	want, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	c := r.Clone()
	c.Params[2] = 'X'
	c.Result[2] = 'X'
	c.Outstanding["a"][2] = 'X'
	c.Outstanding["new"] = jsontext.Value(`{}`)
	c.Answers["n"][2] = 'X'
	c.Issued[0] = "X"
	got, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("changing the clone changed the original:\n got %s\nwant %s", got, want)
	}
}

func TestNewID(t *testing.T) {
	const n = 1000
	seen := map[string]bool{}
	for range n {
		id := tasks.NewID()
		if len(id) != 22 {
			t.Fatalf("id %q: %d characters, want 22", id, len(id))
		}
		b, err := base64.RawURLEncoding.Strict().DecodeString(id)
		if err != nil || len(b) != 16 {
			t.Fatalf("id %q: not 16 bytes in unpadded base64url: %v", id, err)
		}
		if seen[id] {
			t.Fatalf("id %q repeated within %d ids", id, n)
		}
		seen[id] = true
	}
}

func TestStatusTerminal(t *testing.T) {
	tests := []struct {
		s    tasks.Status
		want bool
	}{
		{tasks.StatusWorking, false},
		{tasks.StatusInputRequired, false},
		{tasks.StatusCompleted, true},
		{tasks.StatusFailed, true},
		{tasks.StatusCancelled, true},
		{"", false},
		{"Completed", false},
	}
	for _, tt := range tests {
		if got := tt.s.Terminal(); got != tt.want {
			t.Errorf("Status(%q).Terminal() = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *tasks.Record)
		err  string // "" for valid
	}{
		{"full", func(*tasks.Record) {}, ""},
		{"unlimited ttl", func(r *tasks.Record) { r.TTL = 0 }, ""},
		{"empty id", func(r *tasks.Record) { r.ID = "" }, "id is empty"},
		{"status", func(r *tasks.Record) { r.Status = "WORKING" }, `status "WORKING"`},
		{"negative ttl", func(r *tasks.Record) { r.TTL = -time.Millisecond }, "ttl -1ms: negative"},
		{"ttl in microseconds", func(r *tasks.Record) { r.TTL = 1500 * time.Microsecond }, "ttl 1.5ms: not a whole number"},
		{"params with spaces", func(r *tasks.Record) { r.Params = jsontext.Value(" { } ") }, ""},
		{"params trailing", func(r *tasks.Record) { r.Params = jsontext.Value(`{} {}`) }, "params: not valid JSON"},
		{"outstanding empty value", func(r *tasks.Record) { r.Outstanding["a"] = nil }, "outstanding/a: empty"},
		{"answers array", func(r *tasks.Record) { r.Answers["n"] = jsontext.Value(`[]`) }, "answers/n: a JSON array"},
		{"failed without error", func(r *tasks.Record) { r.Status = tasks.StatusFailed }, "status failed without error"},
		{"lease year", func(r *tasks.Record) { r.LeaseUntil = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }, "leaseUntil: year -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := full()
			tt.edit(r)
			err := r.Validate()
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("Validate: %v, want nil", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Validate: %v, want an error containing %q", err, tt.err)
			}
		})
	}
}

func TestErrorsDistinct(t *testing.T) {
	errs := []error{tasks.ErrNotFound, tasks.ErrConflict, tasks.ErrTerminal, tasks.ErrFull}
	for i, a := range errs {
		for j, b := range errs {
			if (i == j) != errors.Is(a, b) {
				t.Errorf("errors.Is(%v, %v) = %v", a, b, errors.Is(a, b))
			}
		}
	}
}
