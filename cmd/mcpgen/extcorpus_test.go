package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/mcpgen/mcpgen/protocol/corpus"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/validate"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The Tasks extension's corpus (protocol/testdata/corpus/ext-tasks) is
// checked three ways: against the extension's schema (package corpus),
// against the generated decoders (package protocol), and here against
// mcpgen validate --extension, which must agree with the decoders on every
// case: both accept the valid ones, both refuse the others, at the same
// JSON pointer.

// tasksValidator is the validator mcpgen validate --revision 2026-07-28
// --extension builds for the Tasks extension's schema.
func tasksValidator(t *testing.T) *validate.Validator {
	t.Helper()
	e := &env{ctx: t.Context(), stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: new(bytes.Buffer)}
	v, err := extensionValidator(e, mcp.Revision, mcp.Schema(), mcp.Methods(), schematest.Extension(t, "ext-tasks"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestExtensionCorpusValidator validates every case of the extension's
// corpus against its definition with the validator of mcpgen validate
// --extension, and decodes it with the generated decoder of the definition:
// a valid case is valid for both, an invalid one is refused by both, each
// naming the case's pointer (unless the case says the schema accepts it).
func TestExtensionCorpusValidator(t *testing.T) {
	v := tasksValidator(t)
	valid, err := corpus.Valid("ext-tasks")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range valid {
		if ps := v.Definition(c.Def, c.JSON); ps != nil {
			t.Errorf("%s: %s: %v", c.File, c.Name, ps)
		}
		// The variant a case names, when it is a definition: the value is
		// one of it too (a status variant of GetTaskResult has more
		// members, which the variant's open object allows).
		if c.Variant != "" && !strings.HasPrefix(c.Variant, "anyOf/") {
			if ps := v.Definition(c.Variant, c.JSON); ps != nil {
				t.Errorf("%s: %s: variant %s: %v", c.File, c.Name, c.Variant, ps)
			}
		}
		if err := decodeTasks(t, c.Def, c.JSON); err != nil {
			t.Errorf("%s: %s: the validator accepts it, the decoder of %s refuses it: %v", c.File, c.Name, c.Def, err)
		}
	}
	invalid, err := corpus.InvalidCases("ext-tasks")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range invalid {
		where := c.File + ": " + c.Name
		ps := v.Definition(c.Def, []byte(c.Text))
		err := decodeTasks(t, c.Def, []byte(c.Text))
		var we *wire.Error
		switch {
		case err == nil:
			t.Errorf("%s: the decoder of %s accepts it", where, c.Def)
		case !errors.As(err, &we):
			t.Errorf("%s: the decoder's error %v is not a *wire.Error", where, err)
		case we.Pointer != c.Pointer:
			t.Errorf("%s: the decoder refuses it at %q, the case says %q", where, we.Pointer, c.Pointer)
		}
		if c.BeyondSchema != "" {
			if ps != nil {
				t.Errorf("%s: the schema accepts it (%s), but the validator finds %v", where, c.BeyondSchema, ps)
			}
			continue
		}
		if !slices.ContainsFunc(ps, func(p validate.Problem) bool { return p.Pointer == c.Pointer }) {
			t.Errorf("%s: the decoder refuses it at %q, the validator finds %v", where, c.Pointer, ps)
		}
		if c.Kind == corpus.KindDuplicateKey && (len(ps) != 1 || ps[0].Rule != validate.RuleJSON) {
			t.Errorf("%s: problems %v, want one json problem", where, ps)
		}
	}
}

// decodeTasks decodes data strictly as the definition def of
// protocol/ext/tasks.
func decodeTasks(t *testing.T, def string, data []byte) error {
	t.Helper()
	c, ok := tasks.New(def)
	if !ok {
		t.Fatalf("protocol/ext/tasks has no definition %s", def)
	}
	return wire.Unmarshal(data, c)
}

// tasksMeta is the _meta of a request of 2026-07-28 from a client that
// declares the Tasks extension.
const tasksMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// tasksSession returns the traffic in which the corpus case of definition
// def, with the JSON text text, travels, and the pointer of the case's
// value in the last message; ok is false for a definition that never
// travels alone (Task, DetailedTask, ...). A message is itself; a result of
// the extension's methods, or of the tools/call it widens, is the answer
// to a request of its method.
func tasksSession(def, text string) (session, prefix string, ok bool) {
	for _, m := range tasks.Methods() {
		if m.Message == def {
			return text, "", true
		}
		if slices.Contains(m.Results, def) {
			req := fmt.Sprintf(`{"jsonrpc":"2.0","id":"q","method":%q,"params":{"taskId":"t-1","inputResponses":{}}}`, m.Name)
			if m.Name != tasks.MethodTasksUpdate {
				req = fmt.Sprintf(`{"jsonrpc":"2.0","id":"q","method":%q,"params":{"taskId":"t-1"}}`, m.Name)
			}
			return req + "\n" + `{"jsonrpc":"2.0","id":"q","result":` + text + "}\n", "/result", true
		}
	}
	for _, m := range tasks.AugmentedMethods() {
		if slices.Contains(m.Results, def) {
			req := `{"jsonrpc":"2.0","id":"q","method":"` + m.Name + `","params":{"_meta":` + tasksMeta + `,"name":"slow"}}`
			return req + "\n" + `{"jsonrpc":"2.0","id":"q","result":` + text + "}\n", "/result", true
		}
	}
	return "", "", false
}

// validateReport is the --format json output of mcpgen validate.
type validateReport struct {
	Messages []struct {
		Method   string             `json:"method"`
		Valid    bool               `json:"valid"`
		Problems []validate.Problem `json:"problems"`
	} `json:"messages"`
	Valid, Invalid int
}

// TestExtensionCorpusCommand runs mcpgen validate --extension on the
// traffic of every case of the extension's corpus that travels alone (see
// tasksSession): the messages of the valid cases are valid, and those of
// the invalid cases are refused with a problem at the case's pointer, in
// the message or in the result.
func TestExtensionCorpusCommand(t *testing.T) {
	dir := t.TempDir()
	ext := schematest.Extension(t, "ext-tasks")
	check := func(where, def, text string, wantPointer *string) {
		t.Helper()
		session, prefix, ok := tasksSession(def, text)
		if !ok {
			return
		}
		file := filepath.Join(dir, "session.jsonl")
		if err := os.WriteFile(file, []byte(session), 0o644); err != nil {
			t.Fatal(err)
		}
		got := runMcpgen("validate", "--revision", mcp.Revision, "--extension", ext, "--format", "json", file)
		var r validateReport
		if err := json.Unmarshal([]byte(got.stdout), &r); err != nil || len(r.Messages) == 0 {
			t.Fatalf("%s: exit %d, output not a report (%v):\n%s%s", where, got.code, err, got.stdout, got.stderr)
		}
		last := r.Messages[len(r.Messages)-1]
		if wantPointer == nil {
			if got.code != exitOK || r.Invalid != 0 {
				t.Errorf("%s: exit %d, %d invalid: %+v", where, got.code, r.Invalid, r.Messages)
			}
			return
		}
		// Every message but the case's own is valid.
		if got.code != exitFail || r.Invalid != 1 || last.Valid {
			t.Errorf("%s: exit %d, %d invalid, the case's message valid %v; want it alone refused: %+v", where, got.code, r.Invalid, last.Valid, r.Messages)
			return
		}
		want := prefix + *wantPointer
		if prefix == "/result" && *wantPointer == "/resultType" && last.Method == "tools/call" {
			// On the wire a tools/call answer's resultType selects its
			// result: a task with resultType "complete" is a CallToolResult
			// there, refused for what that lacks (its content), as the
			// decoder of the widened tools/call's answers refuses it.
			return
		}
		if !slices.ContainsFunc(last.Problems, func(p validate.Problem) bool { return p.Pointer == want }) {
			t.Errorf("%s (%s): problems %v, none at %q", where, last.Method, last.Problems, want)
		}
	}
	valid, err := corpus.Valid("ext-tasks")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range valid {
		check(c.File+": "+c.Name, c.Def, string(c.JSON), nil)
	}
	invalid, err := corpus.InvalidCases("ext-tasks")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range invalid {
		if c.BeyondSchema != "" {
			continue
		}
		check(c.File+": "+c.Name, c.Def, c.Text, &c.Pointer)
	}
}
