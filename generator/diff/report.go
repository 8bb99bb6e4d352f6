package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxListed is how many subjects a grouped line of the text and markdown
// reports names before it says "and N more".
const MaxListed = 6

// groupMin is the number of declarations from which the same member change
// on each shares one line.
const groupMin = 3

// section is a part of the text and markdown reports.
type section struct {
	title string
	lines []*line
}

// line is one line of a report: one finding, or several folded into one.
type line struct {
	rule   string
	head   string // "Tool.execution"; folded: what they share ("_meta", "ContentBlock")
	detail string
	items  []string // folded: what differs
}

func (c *Change) what() string {
	switch {
	case c.Member == "":
		return c.Subject
	case c.Group == groupMethods:
		return c.Subject + " " + c.Member
	case c.Group == groupCapabilities:
		return c.Subject + " capability " + c.Member
	case c.Rule == "variant-added" || c.Rule == "variant-removed":
		return c.Subject + " variant " + c.Member
	case c.Rule == "enum-value-added" || c.Rule == "enum-value-removed":
		return c.Subject + " value " + strconv.Quote(c.Member)
	}
	return c.Subject + "." + c.Member
}

// fold says how a change folds with others: the key of its line, the line's
// head and detail, the item it adds; ok is false for changes never folded.
func (c *Change) fold() (key, head, detail, item string, min int, ok bool) {
	switch {
	case c.Group == groupDefinitions:
		item = c.Subject
		if c.Detail != "" {
			item += " (" + c.Detail + ")"
		}
		return c.Rule, "", "", item, 2, true
	case c.Rule == "variant-added" || c.Rule == "variant-removed":
		return c.Rule + "\x00" + c.Subject, c.Subject + " variants", "", c.Member, 2, true
	case c.Rule == "enum-value-added" || c.Rule == "enum-value-removed":
		return c.Rule + "\x00" + c.Subject, c.Subject + " values", "", strconv.Quote(c.Member), 2, true
	case c.Rule == "method-added" || c.Rule == "method-removed" || c.Rule == "method-kind-changed":
		// Several methods of the same kind and direction come or go together
		// (the tasks/* requests, 2026-07-28's embedded requests).
		return c.Rule + "\x00" + c.Detail, c.Detail, "", c.Subject, groupMin, true
	case strings.HasPrefix(c.Rule, "result-alternative"):
		// The same alternative result of several methods.
		return c.Rule + "\x00" + c.Member + "\x00" + c.Detail, c.Member, c.Detail, c.Subject, groupMin, true
	case c.Group == groupTypes && c.Member != "":
		return c.Rule + "\x00" + c.Member + "\x00" + c.Detail, c.Member, c.Detail, c.Subject, groupMin, true
	}
	return "", "", "", "", 0, false
}

func (r *Report) sections() []*section {
	secs := []*section{
		{title: "Breaking for old clients and old servers"},
		{title: "Breaking for old clients (talking to a new server)"},
		{title: "Breaking for old servers (talking to a new client)"},
		{title: "Compatible"},
	}
	bySection := make([][]*Change, len(secs))
	for _, c := range r.Changes {
		i := 3
		switch {
		case c.OldClient && c.OldServer:
			i = 0
		case c.OldClient:
			i = 1
		case c.OldServer:
			i = 2
		}
		bySection[i] = append(bySection[i], c)
	}
	for i, cs := range bySection {
		count := map[string]int{}
		for _, c := range cs {
			if key, _, _, _, _, ok := c.fold(); ok {
				count[key]++
			}
		}
		// A type change the first folding leaves alone may be the same
		// change of several members (object → map[string]JSONValue on
		// every capability leaf): those fold on what the change is.
		retype := func(c *Change) (string, bool) {
			key, _, _, _, min, ok := c.fold()
			switch {
			case ok && count[key] >= min, c.Rule != "field-retyped" && c.Rule != "field-type-widened" && c.Rule != "field-type-narrowed":
				return "", false
			}
			return "retype\x00" + c.Rule + "\x00" + c.Detail, true
		}
		for _, c := range cs {
			if key, ok := retype(c); ok {
				count[key]++
			}
		}
		at := map[string]*line{}
		for _, c := range cs {
			key, head, detail, item, min, ok := c.fold()
			if rkey, rok := retype(c); rok && count[rkey] >= groupMin {
				key, head, detail, item, min, ok = rkey, c.Detail, "", c.what(), groupMin, true
			}
			if !ok || count[key] < min {
				secs[i].lines = append(secs[i].lines, &line{rule: c.Rule, head: c.what(), detail: c.Detail})
				continue
			}
			if l := at[key]; l != nil {
				l.items = append(l.items, item)
				continue
			}
			l := &line{rule: c.Rule, head: head, detail: detail, items: []string{item}}
			at[key] = l
			secs[i].lines = append(secs[i].lines, l)
		}
	}
	return secs
}

func (l *line) text(code func(string) string) string {
	var b strings.Builder
	if l.items == nil {
		b.WriteString(code(l.head))
		if l.detail != "" {
			b.WriteString(": " + l.detail)
		}
		return b.String()
	}
	if l.head != "" {
		b.WriteString(code(l.head))
		if l.detail != "" {
			b.WriteString(" (" + l.detail + ")")
		}
		b.WriteString(", ")
	}
	fmt.Fprintf(&b, "%d: ", len(l.items))
	shown := l.items
	if len(shown) > MaxListed {
		shown = shown[:MaxListed]
	}
	for i, s := range shown {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(code(s))
	}
	if n := len(l.items) - len(shown); n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	return b.String()
}

// Summary is one line: how many changes, how many break whom.
func (r *Report) Summary() string {
	var oc, os int
	for _, c := range r.Changes {
		if c.OldClient {
			oc++
		}
		if c.OldServer {
			os++
		}
	}
	return fmt.Sprintf("%d changes: %d break old clients talking to a new server, %d break old servers talking to a new client", len(r.Changes), oc, os)
}

// WriteText writes the report for a reader: a summary line, then the
// findings grouped by whom they break, one rule and subject a line, findings
// that differ only in their subject folded into one line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpgen diff %s → %s\n%s\n", r.Old, r.New, r.Summary())
	for _, s := range r.sections() {
		if len(s.lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", s.title)
		width := 0
		for _, l := range s.lines {
			width = max(width, len(l.rule))
		}
		for _, l := range s.lines {
			fmt.Fprintf(&b, "  %-*s  %s\n", width, l.rule, l.text(func(s string) string { return s }))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as markdown: the same sections as the text,
// as bullet lists.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# MCP %s → %s\n\n%s.\n", r.Old, r.New, r.Summary())
	for _, s := range r.sections() {
		if len(s.lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", s.title)
		for _, l := range s.lines {
			fmt.Fprintf(&b, "- **%s** %s\n", l.rule, l.text(func(s string) string { return "`" + s + "`" }))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON is the shape of the --format json report.
type JSON struct {
	Old     string       `json:"old"`
	New     string       `json:"new"`
	Summary JSONSummary  `json:"summary"`
	Changes []JSONChange `json:"changes"`
}

// JSONSummary counts the changes.
type JSONSummary struct {
	Changes           int `json:"changes"`
	BreakingOldClient int `json:"breakingOldClient"`
	BreakingOldServer int `json:"breakingOldServer"`
}

// JSONChange is one change, never grouped.
type JSONChange struct {
	Rule      string `json:"rule"`
	Group     string `json:"group"`
	Subject   string `json:"subject"`
	Member    string `json:"member"`
	Detail    string `json:"detail"`
	Path      string `json:"path"`
	Direction string `json:"direction"`
	OldClient string `json:"oldClient"`
	OldServer string `json:"oldServer"`
}

func verdict(breaking bool) string {
	if breaking {
		return "breaking"
	}
	return "compatible"
}

// ToJSON returns the report in its JSON shape.
func (r *Report) ToJSON() *JSON {
	j := &JSON{Old: r.Old, New: r.New, Changes: []JSONChange{}}
	for _, c := range r.Changes {
		dir := ""
		if c.Flow != 0 {
			dir = c.Flow.String()
		}
		j.Changes = append(j.Changes, JSONChange{
			Rule: c.Rule, Group: c.Group, Subject: c.Subject, Member: c.Member,
			Detail: c.Detail, Path: c.Path, Direction: dir,
			OldClient: verdict(c.OldClient), OldServer: verdict(c.OldServer),
		})
		j.Summary.Changes++
		if c.OldClient {
			j.Summary.BreakingOldClient++
		}
		if c.OldServer {
			j.Summary.BreakingOldServer++
		}
	}
	return j
}

// WriteJSON writes the report as indented JSON (see JSON).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r.ToJSON())
}
