package validate

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/icon"
)

// The revisions from which the metadata rules apply (revisions are dates,
// so they compare as strings).
const (
	metaKeysFrom = "2025-06-18" // _meta key names and reserved prefixes
	// reservedSecondFrom is the first revision that reserves a prefix by its
	// second label; before it, any label but the last reserved it.
	reservedSecondFrom = "2025-11-25"
	iconsFrom          = "2025-11-25" // icons are untrusted
	// extensionsFrom is the first revision with capabilities.extensions,
	// whose keys (extension identifiers) follow the _meta key rules with a
	// mandatory prefix.
	extensionsFrom = "2026-07-28"
)

// keyInText finds _meta keys under a prefix the revision's schema names,
// quoted in its JSON or in backticks in its descriptions.
var keyInText = regexp.MustCompile("[\"`]([A-Za-z][A-Za-z0-9.-]*/[A-Za-z0-9][A-Za-z0-9._-]*)[\"`]")

// proseKeys are reserved _meta keys a revision defines only in a
// description. The schema a generated package carries (Schema()) has no
// descriptions, so they cannot be read from it; a full schema file has
// them, and reservedKeys finds them there too.
var proseKeys = map[string][]string{
	// RelatedTaskMetadata: "Include this in the `_meta` field under the
	// key `io.modelcontextprotocol/related-task`."
	// The tasks page (basic/utilities/tasks): a CreateTaskResult may carry
	// io.modelcontextprotocol/model-immediate-response for the model.
	"2025-11-25": {"io.modelcontextprotocol/related-task", "io.modelcontextprotocol/model-immediate-response"},
}

// reservedKeys returns the _meta keys under a reserved prefix that the
// revision defines: those the schema text names (as a member name, or in
// backticks in a description) and its proseKeys.
func reservedKeys(rev string, schema []byte) map[string]bool {
	out := map[string]bool{}
	for _, k := range proseKeys[rev] {
		out[k] = true
	}
	for _, m := range keyInText.FindAllSubmatch(schema, -1) {
		key := string(m[1])
		prefix, _, _ := strings.Cut(key, "/")
		if reservedPrefix(rev, prefix) {
			out[key] = true
		}
	}
	return out
}

// reservedPrefix reports whether the revision reserves the _meta key
// prefix (without its slash) for MCP.
func reservedPrefix(rev, prefix string) bool {
	labels := strings.Split(prefix, ".")
	mcp := func(l string) bool {
		return strings.EqualFold(l, "modelcontextprotocol") || strings.EqualFold(l, "mcp")
	}
	if rev >= reservedSecondFrom {
		return len(labels) >= 2 && mcp(labels[1])
	}
	for _, l := range labels[:len(labels)-1] {
		if mcp(l) {
			return true
		}
	}
	return false
}

// metaKeyProblem returns what is wrong with a _meta key, "" when nothing.
func metaKeyProblem(key string) string {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		prefix, name = "", key
	}
	if hasPrefix {
		if prefix == "" {
			return "the prefix before the slash is empty"
		}
		for _, l := range strings.Split(prefix, ".") {
			if !validLabel(l) {
				return fmt.Sprintf("prefix label %q must start with a letter, end with a letter or digit, and hold only letters, digits and hyphens", l)
			}
		}
	}
	if name == "" {
		return ""
	}
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return fmt.Sprintf("name %q must start and end with a letter or digit", name)
	}
	for i := range len(name) {
		if c := name[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Sprintf("name %q may hold only letters, digits, '-', '_' and '.'", name)
		}
	}
	return ""
}

func validLabel(l string) bool {
	if l == "" || !letter(l[0]) || !alnum(l[len(l)-1]) {
		return false
	}
	for i := range len(l) {
		if c := l[i]; !alnum(c) && c != '-' {
			return false
		}
	}
	return true
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func alnum(c byte) bool  { return letter(c) || c >= '0' && c <= '9' }

// opaque are members whose object value is the application's, not the
// protocol's: a _meta or icons in them is not metadata.
var opaque = map[string]bool{
	"arguments":         true, // CallToolRequestParams, GetPromptRequestParams
	"structuredContent": true,
	"inputSchema":       true,
	"outputSchema":      true,
	"requestedSchema":   true,
}

// metadata applies the rules on untrusted metadata that the revision has
// to a decoded message (or value) at pointer prefix: every _meta key has
// the form the specification gives
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/index#meta)
// and, under a reserved prefix, is one the revision defines; every icon's
// src and sizes pass the checks of package icon; every extension identifier (a key of capabilities.extensions,
// from 2026-07-28) has the form of a _meta key, prefix included. It
// walks the whole value but the opaque members, the values of _meta keys
// other than those the revision defines (2026-07-28 moves clientInfo,
// with its icons, and clientCapabilities, with its extensions, into
// _meta), and the settings of extensions.
func (v *Validator) metadata(val any, prefix string, add func(...Problem)) {
	rev := v.c.rev
	keys, icons, exts := rev >= metaKeysFrom, rev >= iconsFrom, rev >= extensionsFrom
	if !keys && !icons {
		return
	}
	var walk func(val any, ptr string)
	walk = func(val any, ptr string) {
		switch val := val.(type) {
		case []any:
			for i, e := range val {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(val)) {
				e, kp := val[k], ptr+"/"+escapeToken(k)
				switch obj, isObj := e.(map[string]any); {
				case k == "_meta" && isObj:
					if keys {
						v.metaKeys(obj, kp, add)
					}
					for _, mk := range slices.Sorted(maps.Keys(obj)) {
						if v.c.reserved[mk] {
							walk(obj[mk], kp+"/"+escapeToken(mk))
						}
					}
				case k == "extensions" && exts && isObj:
					checkExtensions(obj, kp, add)
				case k == "icons" && icons:
					checkIcons(e, kp, add)
				case opaque[k] && isObj:
				default:
					walk(e, kp)
				}
			}
		}
	}
	walk(val, prefix)
}

// metaKeys checks the keys of one _meta object at ptr.
func (v *Validator) metaKeys(meta map[string]any, ptr string, add func(...Problem)) {
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		kp := ptr + "/" + escapeToken(k)
		if why := metaKeyProblem(k); why != "" {
			add(Problem{Pointer: kp, Reason: fmt.Sprintf("_meta key %q: %s", k, why), Rule: RuleMeta})
			continue
		}
		if prefix, _, ok := strings.Cut(k, "/"); ok && reservedPrefix(v.c.rev, prefix) && !v.c.reserved[k] {
			add(Problem{Pointer: kp, Reason: fmt.Sprintf("_meta key %q: the prefix %s/ is reserved for MCP, and revision %s defines no such key", k, prefix, v.c.rev), Rule: RuleMeta})
		}
	}
}

// checkExtensions checks the identifiers of an extensions object at ptr:
// each has the form of a _meta key, with a prefix. Identifiers under a
// reserved prefix are MCP's official extensions (io.modelcontextprotocol/ui,
// …), which no revision's schema lists, so that prefix is not refused.
func checkExtensions(exts map[string]any, ptr string, add func(...Problem)) {
	for _, k := range slices.Sorted(maps.Keys(exts)) {
		kp := ptr + "/" + escapeToken(k)
		why := metaKeyProblem(k)
		if prefix, name, ok := strings.Cut(k, "/"); why == "" && (!ok || prefix == "" || name == "") {
			why = "an extension identifier needs a prefix and a name, such as com.example/search"
		}
		if why != "" {
			add(Problem{Pointer: kp, Reason: fmt.Sprintf("extension identifier %q: %s", k, why), Rule: RuleMeta})
		}
	}
}

// checkIcons checks a list of icons at ptr; what is not a list of objects
// with a string src and string sizes is the schema's to report.
func checkIcons(list any, ptr string, add func(...Problem)) {
	items, _ := list.([]any)
	for i, it := range items {
		obj, _ := it.(map[string]any)
		ip := ptr + "/" + strconv.Itoa(i)
		if src, ok := obj["src"].(string); ok {
			if err := icon.CheckSource(src); err != nil {
				add(Problem{Pointer: ip + "/src", Reason: err.Error(), Rule: RuleIcon})
			}
		}
		sizes, _ := obj["sizes"].([]any)
		for j, s := range sizes {
			if s, ok := s.(string); ok {
				if err := icon.CheckSizes([]string{s}); err != nil {
					add(Problem{Pointer: ip + "/sizes/" + strconv.Itoa(j), Reason: strings.Replace(err.Error(), "sizes[0]", "sizes["+strconv.Itoa(j)+"]", 1), Rule: RuleIcon})
				}
			}
		}
	}
}
