package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mcpgen/mcpgen/protocol/ext/skills"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// The client scenarios of the Skills extension (sep-2640-client-*), at
// either MCP_CONFORMANCE_PROTOCOL_VERSION: the mock server answers
// server/discover, so the client of the stateless era runs them, as a host
// with protocol/ext/skills.
func init() {
	for name, run := range map[string]func(ctx context.Context, url string) error{
		"sep-2640-client-no-prefetch":        runSkillsNoPrefetch,
		"sep-2640-client-verify-digest":      runSkillsVerify,
		"sep-2640-client-verify-size":        runSkillsVerify,
		"sep-2640-client-verify-frontmatter": runSkillsVerify,
	} {
		scenarios[name] = run
		scenarios26[name] = run
	}
}

// runSkillsNoPrefetch lists the skills and loads none: no file of a skill
// may be read before the host loads it.
func runSkillsNoPrefetch(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		list, err := skills.NewClient(cs).List(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "everything-client: %d skills listed, none loaded\n", len(list))
		return nil
	})
}

// runSkillsVerify lists the skills and loads the first: its SKILL.md, then
// the files it lists. The mock server tampers with the SKILL.md (its
// digest, its size or its frontmatter): the host must refuse it and read
// nothing more, which is the scenario's success, so a *VerificationError
// ends the run with status 0.
func runSkillsVerify(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		host := skills.NewClient(cs)
		list, err := host.List(ctx)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return errors.New("skills/list returned no skill")
		}
		skill := list[0]
		if _, err := host.Read(ctx, &skill, ""); err != nil {
			var ve *skills.VerificationError
			if errors.As(err, &ve) {
				fmt.Fprintf(os.Stderr, "everything-client: refused the skill %s: %v\n", skill.URI, err)
				return nil
			}
			return err
		}
		for _, r := range skill.Resources {
			if r.URI == skill.URI {
				continue
			}
			if _, err := host.Read(ctx, &skill, r.URI); err != nil {
				return err
			}
		}
		return nil
	})
}
