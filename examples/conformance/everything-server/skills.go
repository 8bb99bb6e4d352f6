package main

import (
	"embed"
	"io/fs"

	"github.com/mcpgen/mcpgen/protocol/ext/skills"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// skillFiles is the skills directory the Skills extension's scenarios
// (sep-2640-*) read: pdf-processing, with a subdirectory (references),
// which resources/directory/read must list as a directory.
//
//go:embed skills
var skillFiles embed.FS

// addSkills serves the skills of skillFiles (protocol/ext/skills): their
// files as resources, skills/list, skills/get and resources/directory/read.
func addSkills(srv *mcp.StandardServer) error {
	fsys, err := fs.Sub(skillFiles, "skills")
	if err != nil {
		return err
	}
	catalog, err := skills.Load(fsys, nil)
	if err != nil {
		return err
	}
	return catalog.Register(srv)
}
