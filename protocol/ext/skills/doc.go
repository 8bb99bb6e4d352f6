// Package skills is the MCP Skills extension (io.modelcontextprotocol/skills,
// https://modelcontextprotocol.io/seps/2640-skills-extension), both sides: a
// server publishes skills, directories with a SKILL.md and the files it
// refers to, as resources with a manifest; a host lists them and reads a
// skill's files only when it loads the skill, each checked against the
// manifest.
//
// Unlike the protocol revisions and the Tasks extension, this package is
// written by hand: the extension publishes no JSON schema. Its wire types
// follow the extension's specification, the official conformance suite's
// checks and the TypeScript SDK, and decode as strictly as the generated
// codecs do: member names match case-sensitively, duplicates and missing
// required members are errors carrying the JSON pointer of the offending
// value, and so are digests, sizes and cache scopes out of their form.
// Unknown members are skipped.
//
// # Server
//
// Load (or Dir) reads a catalog of skills from an fs.FS, checking each skill
// against the extension's rules; Catalog.Register serves it on a
// StandardServer of revision 2026-07-28: every file as a resource, and the
// methods skills/list, skills/get and resources/directory/read, with the
// capability {"directoryRead": true} declared in server/discover:
//
//	catalog, err := skills.Dir("./skills", nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	srv := mcp.NewServer(mcp.Implementation{Name: "docs", Version: "1.0.0"})
//	if err := catalog.Register(srv); err != nil {
//		log.Fatal(err)
//	}
//
// # Host
//
// A Client lists the skills of a server (List, Get) without reading any
// file, and reads one file of a skill (Read) when the host needs it,
// verifying that the file is listed, its size, its SHA-256 digest and, for
// the SKILL.md, that its frontmatter equals the entry's, field by field; a
// file that fails is a *VerificationError, and must not be used.
package skills
