package tasks

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Record is the whole state of one task: plain data that crosses a process
// boundary unchanged. Its JSON form (MarshalJSON) is one object whose member
// names are given with each field below; a store outside the process keeps
// it as one JSON document, or as a hash with those members as fields.
// Members are only ever added to that form, never renamed or retyped, and a
// decoder ignores members it does not know.
//
// The raw JSON fields hold exactly what goes on the wire, so the package
// needs no protocol types; each must be a JSON object when set.
type Record struct {
	// ID is the task id (JSON "id"), unique in the store and unguessable
	// (see NewID). Required.
	ID string
	// Principal (JSON "principal", omitted when "") is the opaque owner of
	// the task; only requests for the same principal see it. "" is the
	// principal of unauthenticated requests.
	Principal string
	// Method (JSON "method", omitted when "") is the request that made the
	// task, "tools/call".
	Method string
	// Params (JSON "params", omitted when empty) are that request's params,
	// kept to run the request again after a restart.
	Params jsontext.Value
	// Status (JSON "status") is where the task is. Required.
	Status Status
	// StatusMessage (JSON "statusMessage", omitted when "") is the
	// human-readable note sent with the status.
	StatusMessage string
	// CreatedAt (JSON "createdAt", RFC 3339 in UTC) is when the task was
	// created; Create sets it when zero.
	CreatedAt time.Time
	// UpdatedAt (JSON "updatedAt", RFC 3339 in UTC) is when the record was
	// last written; the store sets it.
	UpdatedAt time.Time
	// TTL (JSON "ttlMs": milliseconds, or null for 0) is how long the task
	// is kept from CreatedAt; 0 keeps it until deleted otherwise. A whole
	// number of milliseconds, since that is what the wire carries.
	TTL time.Duration
	// PollInterval (JSON "pollIntervalMs": milliseconds, omitted when 0) is
	// how often the server suggests that clients poll; a whole number of
	// milliseconds.
	PollInterval time.Duration
	// Version (JSON "version") counts the writes of the record: 1 after
	// Create, one more after each Update. It is the compare-and-set token,
	// and what Wait compares with. The store sets it.
	Version uint64
	// Outstanding (JSON "outstanding", omitted when empty) maps the key of
	// each input request the task waits for to the request's JSON (an
	// object with method and params).
	Outstanding map[string]jsontext.Value
	// Answers (JSON "answers", omitted when empty) maps the key of each
	// input request answered to the answer's JSON (an object); answers are
	// kept for the life of the task.
	Answers map[string]jsontext.Value
	// Issued (JSON "issued", omitted when empty) lists every input request
	// key the task has used, so that no key is used twice in its lifetime.
	Issued []string
	// CancelRequested (JSON "cancelRequested", omitted when false) is set
	// by tasks/cancel; the instance running the task sees it and stops it.
	CancelRequested bool
	// Result (JSON "result", set exactly when Status is completed) is the
	// tool's result, a CallToolResult object.
	Result jsontext.Value
	// Error (JSON "error", set exactly when Status is failed) is the
	// JSON-RPC error object the task failed with.
	Error jsontext.Value
	// Runner (JSON "runner", omitted when "") names the server instance
	// that runs the task's handler.
	Runner string
	// LeaseUntil (JSON "leaseUntil", omitted when zero; RFC 3339 in UTC) is
	// when Runner's claim on the task lapses unless renewed: a task not
	// terminal whose lease has lapsed has lost its handler.
	LeaseUntil time.Time
}

// maxMillis is the largest whole number of milliseconds a time.Duration holds.
const maxMillis = math.MaxInt64 / int64(time.Millisecond)

// Validate reports the first thing wrong with r's contents: an empty ID, an
// unknown Status, a TTL or PollInterval that is negative or not whole
// milliseconds, a raw JSON field that is not a valid JSON object (RFC 8259,
// with unique member names), a Result without status completed or the
// reverse, an Error without status failed or the reverse, a time whose year
// in UTC is outside 0 to 9999. It does not look at Version. Stores check
// records with it before writing them.
func (r *Record) Validate() error {
	if r.ID == "" {
		return errors.New("record: id is empty")
	}
	if !r.Status.valid() {
		return fmt.Errorf("record: status %q: want working, input_required, completed, failed or cancelled", r.Status)
	}
	for _, t := range []struct {
		name string
		t    time.Time
	}{{"createdAt", r.CreatedAt}, {"updatedAt", r.UpdatedAt}, {"leaseUntil", r.LeaseUntil}} {
		if y := t.t.UTC().Year(); y < 0 || y > 9999 {
			return fmt.Errorf("record: %s: year %d in UTC, outside the years 0 to 9999 that RFC 3339 can write", t.name, y)
		}
	}
	if err := checkMillis("ttl", r.TTL); err != nil {
		return err
	}
	if err := checkMillis("pollInterval", r.PollInterval); err != nil {
		return err
	}
	if err := checkObject("params", r.Params); err != nil {
		return err
	}
	if err := checkObject("result", r.Result); err != nil {
		return err
	}
	if err := checkObject("error", r.Error); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(r.Outstanding)) {
		if err := checkObject("outstanding/"+k, r.Outstanding[k]); err != nil {
			return err
		}
		if len(r.Outstanding[k]) == 0 {
			return fmt.Errorf("record: outstanding/%s: empty, want a JSON object", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Answers)) {
		if err := checkObject("answers/"+k, r.Answers[k]); err != nil {
			return err
		}
		if len(r.Answers[k]) == 0 {
			return fmt.Errorf("record: answers/%s: empty, want a JSON object", k)
		}
	}
	if (r.Status == StatusCompleted) != (len(r.Result) > 0) {
		return fmt.Errorf("record: status %s with%s result: a result goes with status completed, and only with it", r.Status, without(r.Result))
	}
	if (r.Status == StatusFailed) != (len(r.Error) > 0) {
		return fmt.Errorf("record: status %s with%s error: an error goes with status failed, and only with it", r.Status, without(r.Error))
	}
	return nil
}

// without returns "out" for an empty value, "" otherwise, to say "with" or
// "without".
func without(v jsontext.Value) string {
	if len(v) == 0 {
		return "out"
	}
	return ""
}

func checkMillis(name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("record: %s %v: negative", name, d)
	}
	if d%time.Millisecond != 0 {
		return fmt.Errorf("record: %s %v: not a whole number of milliseconds", name, d)
	}
	return nil
}

// checkObject checks that v, when set, is one valid JSON object.
func checkObject(name string, v jsontext.Value) error {
	if len(v) == 0 {
		return nil
	}
	if !v.IsValid() {
		return fmt.Errorf("record: %s: not valid JSON (or a member name repeats)", name)
	}
	if v.Kind() != '{' {
		return fmt.Errorf("record: %s: a JSON %s, want an object", name, wire.KindName(v.Kind()))
	}
	return nil
}

// Clone returns a deep copy of r: no map, slice or raw JSON of the copy is
// shared with r. Clone of nil is nil.
func (r *Record) Clone() *Record {
	if r == nil {
		return nil
	}
	c := *r
	c.Params = r.Params.Clone()
	c.Result = r.Result.Clone()
	c.Error = r.Error.Clone()
	c.Outstanding = cloneValues(r.Outstanding)
	c.Answers = cloneValues(r.Answers)
	c.Issued = slices.Clone(r.Issued)
	return &c
}

func cloneValues(m map[string]jsontext.Value) map[string]jsontext.Value {
	if m == nil {
		return nil
	}
	c := make(map[string]jsontext.Value, len(m))
	for k, v := range m {
		c[k] = v.Clone()
	}
	return c
}

// recordJSON is the JSON form of a Record.
type recordJSON struct {
	ID              string                    `json:"id"`
	Principal       string                    `json:"principal,omitzero"`
	Method          string                    `json:"method,omitzero"`
	Params          jsontext.Value            `json:"params,omitzero"`
	Status          Status                    `json:"status"`
	StatusMessage   string                    `json:"statusMessage,omitzero"`
	CreatedAt       time.Time                 `json:"createdAt"`
	UpdatedAt       time.Time                 `json:"updatedAt"`
	TTLMs           *int64                    `json:"ttlMs"`
	PollIntervalMs  int64                     `json:"pollIntervalMs,omitzero"`
	Version         uint64                    `json:"version"`
	Outstanding     map[string]jsontext.Value `json:"outstanding,omitzero"`
	Answers         map[string]jsontext.Value `json:"answers,omitzero"`
	Issued          []string                  `json:"issued,omitzero"`
	CancelRequested bool                      `json:"cancelRequested,omitzero"`
	Result          jsontext.Value            `json:"result,omitzero"`
	Error           jsontext.Value            `json:"error,omitzero"`
	Runner          string                    `json:"runner,omitzero"`
	LeaseUntil      time.Time                 `json:"leaseUntil,omitzero"`
}

// MarshalJSON returns the JSON form of r described on Record, the same bytes
// for equal records (map members sorted by name). It fails when r is not
// valid (see Validate), so that no store writes a record it could not read
// back.
func (r Record) MarshalJSON() ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("tasks: encode %w", err)
	}
	j := recordJSON{
		ID:              r.ID,
		Principal:       r.Principal,
		Method:          r.Method,
		Params:          emptyNil(r.Params),
		Status:          r.Status,
		StatusMessage:   r.StatusMessage,
		CreatedAt:       r.CreatedAt.UTC(),
		UpdatedAt:       r.UpdatedAt.UTC(),
		PollIntervalMs:  r.PollInterval.Milliseconds(),
		Version:         r.Version,
		Outstanding:     emptyNilMap(r.Outstanding),
		Answers:         emptyNilMap(r.Answers),
		Issued:          emptyNilSlice(r.Issued),
		CancelRequested: r.CancelRequested,
		Result:          emptyNil(r.Result),
		Error:           emptyNil(r.Error),
		Runner:          r.Runner,
		LeaseUntil:      r.LeaseUntil.UTC(),
	}
	if r.TTL > 0 {
		ms := r.TTL.Milliseconds()
		j.TTLMs = &ms
	}
	b, err := json.Marshal(j, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("tasks: encode record: %w", err)
	}
	return b, nil
}

func emptyNil(v jsontext.Value) jsontext.Value {
	if len(v) == 0 {
		return nil
	}
	return v
}

func emptyNilMap(m map[string]jsontext.Value) map[string]jsontext.Value {
	if len(m) == 0 {
		return nil
	}
	return m
}

func emptyNilSlice(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// UnmarshalJSON sets r from the JSON form described on Record, replacing all
// of r. Decoding is strict: member names match case-sensitively, a repeated
// name is an error, "id" and "status" are required, "ttlMs" is a positive
// integer or null, "pollIntervalMs" a positive integer, and the result must
// be valid (see Validate). Members it does not know are ignored, so that a
// record written by a newer version of the package decodes.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := wire.DecodeValue(b, &j); err != nil {
		return fmt.Errorf("tasks: decode record: %w", err)
	}
	var rec Record
	rec.ID = j.ID
	rec.Principal = j.Principal
	rec.Method = j.Method
	rec.Params = j.Params
	rec.Status = j.Status
	rec.StatusMessage = j.StatusMessage
	rec.CreatedAt = j.CreatedAt
	rec.UpdatedAt = j.UpdatedAt
	if j.TTLMs != nil {
		d, err := millis("ttlMs", *j.TTLMs)
		if err != nil {
			return err
		}
		rec.TTL = d
	}
	if j.PollIntervalMs != 0 {
		d, err := millis("pollIntervalMs", j.PollIntervalMs)
		if err != nil {
			return err
		}
		rec.PollInterval = d
	}
	rec.Version = j.Version
	rec.Outstanding = j.Outstanding
	rec.Answers = j.Answers
	rec.Issued = j.Issued
	rec.CancelRequested = j.CancelRequested
	rec.Result = j.Result
	rec.Error = j.Error
	rec.Runner = j.Runner
	rec.LeaseUntil = j.LeaseUntil
	if err := rec.Validate(); err != nil {
		return fmt.Errorf("tasks: decode %w", err)
	}
	*r = rec
	return nil
}

// millis converts a JSON count of milliseconds to a Duration.
func millis(name string, ms int64) (time.Duration, error) {
	if ms <= 0 || ms > maxMillis {
		return 0, fmt.Errorf("tasks: decode record: /%s: %d: want a positive number of milliseconds up to %d", name, ms, maxMillis)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
