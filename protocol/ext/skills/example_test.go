package skills_test

import (
	"context"
	"errors"
	"fmt"
	"testing/fstest"

	"github.com/mcpgen/mcpgen/protocol/ext/skills"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// skillFiles is a directory of one skill; skills.Dir reads one from disk.
var skillFiles = fstest.MapFS{
	"pdf-processing/SKILL.md": {Data: []byte(`---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
---
Read references/FORMS.md before filling a form.
`)},
	"pdf-processing/references/FORMS.md": {Data: []byte("How to fill forms.\n")},
}

// A server publishes the skills of a directory.
func ExampleCatalog_Register() {
	catalog, err := skills.Load(skillFiles, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "docs", Version: "1.0.0"})
	if err := catalog.Register(srv); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range catalog.Skills() {
		fmt.Println(s.URI, s.Frontmatter.Name)
		for _, r := range s.Resources {
			fmt.Println(" ", r.URI, r.Size)
		}
	}
	// Output:
	// skill://pdf-processing/SKILL.md pdf-processing
	//   skill://pdf-processing/SKILL.md 132
	//   skill://pdf-processing/references/FORMS.md 19
}

// A host lists a server's skills, then loads one: its SKILL.md, then a file
// it refers to, each verified against the skill's entry.
func ExampleClient() {
	catalog, err := skills.Load(skillFiles, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "docs", Version: "1.0.0"})
	if err := catalog.Register(srv); err != nil {
		fmt.Println(err)
		return
	}
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()

	ctx := context.Background()
	cs, err := mcp.Connect(ctx, clientEnd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	host := skills.NewClient(cs)
	list, err := host.List(ctx) // entries only: no file is read
	if err != nil {
		fmt.Println(err)
		return
	}
	skill := list[0]
	fmt.Println(skill.Frontmatter.Name+":", skill.Frontmatter.Description)
	manifest, err := host.Read(ctx, &skill, "") // SKILL.md
	var ve *skills.VerificationError
	if errors.As(err, &ve) {
		fmt.Println("refused:", ve.Reason)
		return
	} else if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(manifest.Body)
	forms, err := host.Read(ctx, &skill, "references/FORMS.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(forms.Data))
	// Output:
	// pdf-processing: Extract, fill, and assemble PDF documents
	// Read references/FORMS.md before filling a form.
	// How to fill forms.
}
