package reqstate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

// A server seals what it needs to resume a tools/call into the requestState
// of its InputRequiredResult, and opens it when the client retries. The
// retry's params carry inputResponses and requestState and may be written
// differently; they bind all the same. A state moved to another user (or
// tool, or arguments, or endpoint) does not open.
func ExampleSealer() {
	// In production the key list comes from a secret store, shared by
	// every instance; this one is for the example only.
	keys, err := reqstate.ParseKeys("2026-07:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA")
	if err != nil {
		log.Fatal(err)
	}
	ring, err := reqstate.NewRing(keys[0], keys[1:]...)
	if err != nil {
		log.Fatal(err)
	}
	s := &reqstate.Sealer{Ring: ring} // TTL: ten minutes
	// The audience names this endpoint: every instance behind the same URL
	// shares it (and the keys); another endpoint has another.
	const endpoint = "https://mcp.example.com/mcp"

	// The first request: the handler needs a confirmation.
	params := jsontext.Value(`{"name":"deploy","arguments":{"env":"prod"}}`)
	digest, err := reqstate.ParamsDigest(params)
	if err != nil {
		log.Fatal(err)
	}
	state, err := s.Seal(reqstate.Binding{Audience: endpoint, Method: "tools/call", Params: digest, Principal: "alice"}, []byte(`{"step":2}`))
	if err != nil {
		log.Fatal(err)
	}

	// The retry, with a new JSON-RPC id (not part of params).
	retry := jsontext.Value(`{"arguments": {"env": "prod"}, "name": "deploy",
		"inputResponses": {"confirm": {"action": "accept"}},
		"requestState": "` + state + `"}`)
	digest, err = reqstate.ParamsDigest(retry)
	if err != nil {
		log.Fatal(err)
	}
	payload, err := s.Open(state, reqstate.Binding{Audience: endpoint, Method: "tools/call", Params: digest, Principal: "alice"})
	fmt.Printf("%s %v\n", payload, err)

	_, err = s.Open(state, reqstate.Binding{Audience: endpoint, Method: "tools/call", Params: digest, Principal: "mallory"})
	fmt.Println(errors.Is(err, reqstate.ErrInvalid), errors.Is(err, reqstate.ErrTampered))
	fmt.Println(err)
	// Output:
	// {"step":2} <nil>
	// true true
	// invalid requestState: tampered, or issued for another request (another method, params or principal) or by another endpoint (another audience), or sealed by another server under the same key ID "2026-07"
}

// Keys are generated once, shared as text through a secret store, and
// rotated without failing the states in flight: the new key is first added
// as an older key everywhere, then made primary, and the old one retired
// after the TTL.
func ExampleRing_Rotate() {
	oldKey, err := reqstate.GenerateKey("2026-06")
	if err != nil {
		log.Fatal(err)
	}
	newKey, err := reqstate.GenerateKey("2026-07")
	if err != nil {
		log.Fatal(err)
	}
	// Step 1: every instance gets the new key as an older one. The text
	// holds the secrets: keep it in a secret store, not in a log.
	text := reqstate.FormatKeys(oldKey, newKey)
	keys, err := reqstate.ParseKeys(text)
	if err != nil {
		log.Fatal(err)
	}
	ring, err := reqstate.NewRing(keys[0], keys[1:]...)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ring.IDs())

	// Step 2: the new key seals.
	if err := ring.Rotate(newKey); err != nil {
		log.Fatal(err)
	}
	fmt.Println(ring.IDs())

	// Step 3, a TTL later: the old key goes.
	if err := ring.Retire("2026-06"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(ring.IDs(), newKey)
	// Output:
	// [2026-06 2026-07]
	// [2026-07 2026-06]
	// [2026-07] reqstate.Key(2026-07)
}

// Every instance of a fleet reads the same key file, written by the
// operator (`mcpgen keygen` prints a line) and readable by the server's
// user only, and reads it again every minute, so that a rotation written
// once reaches them all. A key list in an environment variable works too,
// read once at start: ParseKeys(os.Getenv("MCP_STATE_KEYS")) and NewRing.
func ExampleOpenKeyFile() {
	dir, err := os.MkdirTemp("", "keys")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "requeststate.keys")
	key, err := reqstate.GenerateKey("2026-07")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(reqstate.FormatKeys(key)+"\n"), 0o600); err != nil {
		log.Fatal(err)
	}

	keys, err := reqstate.OpenKeyFile(path, reqstate.KeyFileOptions{}) // TTL and clock: the Sealer's defaults
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go keys.Watch(ctx, func(err error) { log.Print(err) }) // never quotes a secret
	s := &reqstate.Sealer{Ring: keys.Ring()}
	fmt.Println(keys.Ring().IDs(), s.Ring == keys.Ring())

	// The same file made readable by everyone is refused.
	if err := os.Chmod(path, 0o644); err != nil {
		log.Fatal(err)
	}
	_, err = reqstate.OpenKeyFile(path, reqstate.KeyFileOptions{})
	fmt.Println(strings.Contains(err.Error(), "can be read by other users"))
	// Output:
	// [2026-07] true
	// true
}
