package main

import (
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

var keygenCmd = &command{
	name:    "keygen",
	summary: "print a new key for sealing requestState, as a line of a key file",
	run:     runKeygen,
}

const keygenSynopsis = "mcpgen keygen [--id ID]"

const keygenDescription = `
Keygen prints a new key for the requestState that servers of the 2026-07-28
revision seal (runtime/reqstate): one line "id:secret", the secret 32 random
bytes in base64url. The line is a secret: write it straight into the key
file that every instance of the server reads (reqstate.OpenKeyFile), or a
secret store, never into a log or a repository. For example:

  umask 077; mcpgen keygen >> requeststate.keys

The first line of the file is the key that seals. The ID names the key in
every state it seals and is not secret: 1 to 16 characters of A-Z a-z 0-9
- and _, by default "k" and the current UTC date and time.`

func runKeygen(e *env, args []string) int {
	fset := newFlagSet("keygen")
	id := fset.String("id", "", `the key ID (default "k" and the UTC date and time, such as k20260728-1504)`)
	if code := parseFlags(e, fset, args, keygenSynopsis, keygenDescription); code >= 0 {
		return code
	}
	if fset.NArg() > 0 {
		return usageError(e, fset, fmt.Errorf("unexpected arguments %q", fset.Args()))
	}
	if *id == "" {
		*id = "k" + time.Now().UTC().Format("20060102-1504")
	}
	k, err := reqstate.GenerateKey(*id)
	if err != nil {
		return usageError(e, fset, fmt.Errorf("--id: %w", err))
	}
	fmt.Fprintln(e.stdout, reqstate.FormatKeys(k))
	return exitOK
}
