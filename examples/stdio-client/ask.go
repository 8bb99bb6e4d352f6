package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// maxTries bounds how often a field is asked for before the question is
// declined.
const maxTries = 3

// asker answers the server's questions (elicitation) from the terminal:
// it writes the question to out and reads the answers from in, one line a
// field. Fields named in answers are answered without asking. With noInput
// it never reads in: what answers and the defaults do not cover is
// declined.
type asker struct {
	mcp.UnimplementedClient
	out     io.Writer
	answers map[string]string
	noInput bool

	mu    sync.Mutex // one question at a time
	lines chan string
	start sync.Once
	in    io.Reader
}

func newAsker(in io.Reader, out io.Writer, answers map[string]string, noInput bool) *asker {
	return &asker{in: in, out: out, answers: answers, noInput: noInput, lines: make(chan string)}
}

// errEOF is readLine's error at the end of the input.
var errEOF = errors.New("end of input")

// readLine returns the next line of the input, without its end. A
// goroutine reads the input, so that ctx can end the wait.
func (a *asker) readLine(ctx context.Context) (string, error) {
	a.start.Do(func() {
		go func() {
			defer close(a.lines)
			sc := bufio.NewScanner(a.in)
			for sc.Scan() {
				a.lines <- sc.Text()
			}
		}()
	})
	select {
	case line, ok := <-a.lines:
		if !ok {
			return "", errEOF
		}
		return strings.TrimSpace(line), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Elicit asks the user what the server asks.
func (a *asker) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch v := p.Value.(type) {
	case *mcp.ElicitRequestFormParams:
		return a.form(ctx, v)
	case *mcp.ElicitRequestURLParams:
		fmt.Fprintf(a.out, "\nThe server asks you to open a URL: %s\n  %s\n", v.Message, v.URL)
		if a.noInput {
			fmt.Fprintln(a.out, "Declined (--no-input).")
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
		}
		fmt.Fprint(a.out, "Press Enter once done, or Ctrl-D to decline: ")
		if _, err := a.readLine(ctx); err != nil {
			fmt.Fprintln(a.out)
			return declined(err)
		}
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept}, nil
	}
	fmt.Fprintln(a.out, "\nThe server asked a kind of question this client does not know; declined.")
	return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
}

// declined returns the answer for a read that failed with err: cancel at
// the end of the input (the user dismissed the question), or err.
func declined(err error) (*mcp.ElicitResult, error) {
	if errors.Is(err, errEOF) {
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionCancel}, nil
	}
	return nil, err
}

// form asks for each field of a form: the required ones first, in the
// order the server gave, then the others by name.
func (a *asker) form(ctx context.Context, p *mcp.ElicitRequestFormParams) (*mcp.ElicitResult, error) {
	props := p.RequestedSchema.Properties
	var keys []string
	for _, k := range p.RequestedSchema.Required {
		if _, ok := props[k]; ok && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range props {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	keys = append(keys, rest...)

	fmt.Fprintf(a.out, "\nThe server asks: %s\n", p.Message)
	if !a.noInput {
		fmt.Fprintln(a.out, "(Enter takes the default or skips an optional field; Ctrl-D cancels.)")
	}
	content := map[string]mcp.ElicitResultContentValue{}
	for _, key := range keys {
		def := props[key]
		required := slices.Contains(p.RequestedSchema.Required, key)
		v, ok, err := a.field(ctx, key, def, required)
		if err != nil {
			return declined(err)
		}
		if !ok {
			if required {
				fmt.Fprintf(a.out, "No answer for %s; declined.\n", key)
				return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
			}
			continue
		}
		content[key] = v
	}
	return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: content}, nil
}

// field returns the answer for one field: from --answer, else from the
// user, else its default. ok is false when there is none.
func (a *asker) field(ctx context.Context, key string, def mcp.PrimitiveSchemaDefinition, required bool) (v mcp.ElicitResultContentValue, ok bool, err error) {
	if s, given := a.answers[key]; given {
		v, err := convert(def, s)
		if err == nil {
			return v, true, nil
		}
		fmt.Fprintf(a.out, "--answer %s=%s: %v\n", key, s, err)
		if a.noInput {
			return v, false, nil
		}
	}
	dflt, hasDefault := defaultOf(def)
	if a.noInput {
		if hasDefault {
			v, err := convert(def, dflt)
			return v, err == nil, nil
		}
		return v, false, nil
	}
	for range maxTries {
		fmt.Fprintf(a.out, "%s: ", label(key, def, required))
		line, err := a.readLine(ctx)
		if err != nil {
			fmt.Fprintln(a.out)
			return v, false, err
		}
		if line == "" {
			if hasDefault {
				line = dflt
			} else if !required {
				return v, false, nil
			} else {
				fmt.Fprintln(a.out, "  a value is needed")
				continue
			}
		}
		v, err := convert(def, line)
		if err != nil {
			fmt.Fprintf(a.out, "  %v\n", err)
			continue
		}
		return v, true, nil
	}
	return v, false, nil
}

// label returns the prompt for a field: its title or key, its description,
// what it takes, and its default.
func label(key string, def mcp.PrimitiveSchemaDefinition, required bool) string {
	var title, desc, kind string
	switch s := def.Value.(type) {
	case *mcp.StringSchema:
		title, desc, kind = deref(s.Title), deref(s.Description), "text"
		if s.Format != "" {
			kind = string(s.Format)
		}
	case *mcp.NumberSchema:
		title, desc, kind = deref(s.Title), deref(s.Description), "a whole number"
		if s.Minimum != nil && s.Maximum != nil {
			kind = fmt.Sprintf("a whole number from %v to %v", *s.Minimum, *s.Maximum)
		}
	case *mcp.BooleanSchema:
		title, desc, kind = deref(s.Title), deref(s.Description), "yes or no"
	case *mcp.UntitledSingleSelectEnumSchema:
		title, desc, kind = deref(s.Title), deref(s.Description), "one of "+strings.Join(s.Enum, ", ")
	case *mcp.TitledSingleSelectEnumSchema:
		title, desc, kind = deref(s.Title), deref(s.Description), "one of "+strings.Join(titled(s.OneOf), ", ")
	case *mcp.LegacyTitledEnumSchema:
		title, desc, kind = deref(s.Title), deref(s.Description), "one of "+strings.Join(s.Enum, ", ")
	case *mcp.UntitledMultiSelectEnumSchema:
		title, desc, kind = deref(s.Title), deref(s.Description), "some of "+strings.Join(s.Items.Enum, ", ")+", separated by commas"
	case *mcp.TitledMultiSelectEnumSchema:
		title, desc, kind = deref(s.Title), deref(s.Description), "some of "+strings.Join(titledMulti(s.Items.AnyOf), ", ")+", separated by commas"
	}
	if title == "" {
		title = key
	}
	var b strings.Builder
	b.WriteString(title)
	if desc != "" {
		b.WriteString(" — " + desc)
	}
	b.WriteString(" (" + kind)
	if !required {
		b.WriteString(", optional")
	}
	if d, ok := defaultOf(def); ok {
		b.WriteString(", default " + d)
	}
	b.WriteString(")")
	return b.String()
}

func titled(items []mcp.TitledSingleSelectEnumSchemaOneOfItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Const+" ("+it.Title+")")
	}
	return out
}

func titledMulti(items []mcp.TitledMultiSelectEnumSchemaItemsAnyOfItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Const+" ("+it.Title+")")
	}
	return out
}

// defaultOf returns the field's default as the user would type it.
func defaultOf(def mcp.PrimitiveSchemaDefinition) (string, bool) {
	switch s := def.Value.(type) {
	case *mcp.StringSchema:
		return deref(s.Default), s.Default != nil
	case *mcp.NumberSchema:
		if s.Default != nil {
			return strconv.FormatFloat(*s.Default, 'f', -1, 64), true
		}
	case *mcp.BooleanSchema:
		if s.Default != nil {
			return map[bool]string{true: "yes", false: "no"}[*s.Default], true
		}
	case *mcp.UntitledSingleSelectEnumSchema:
		return deref(s.Default), s.Default != nil
	case *mcp.TitledSingleSelectEnumSchema:
		return deref(s.Default), s.Default != nil
	case *mcp.LegacyTitledEnumSchema:
		return deref(s.Default), s.Default != nil
	case *mcp.UntitledMultiSelectEnumSchema:
		return strings.Join(s.Default, ","), s.Default != nil
	case *mcp.TitledMultiSelectEnumSchema:
		return strings.Join(s.Default, ","), s.Default != nil
	}
	return "", false
}

// convert turns what the user typed into the value the field's schema
// asks for, or says what is wrong with it.
func convert(def mcp.PrimitiveSchemaDefinition, s string) (mcp.ElicitResultContentValue, error) {
	str := func(v string) (mcp.ElicitResultContentValue, error) {
		return mcp.ElicitResultContentValue{Value: mcp.ElicitResultContentValueString(v)}, nil
	}
	oneOf := func(v string, allowed []string) (mcp.ElicitResultContentValue, error) {
		if !slices.Contains(allowed, v) {
			return mcp.ElicitResultContentValue{}, fmt.Errorf("want one of %s", strings.Join(allowed, ", "))
		}
		return str(v)
	}
	someOf := func(v string, allowed []string) (mcp.ElicitResultContentValue, error) {
		var picked mcp.ElicitResultContentValueArray
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if !slices.Contains(allowed, p) {
				return mcp.ElicitResultContentValue{}, fmt.Errorf("%q is not one of %s", p, strings.Join(allowed, ", "))
			}
			picked = append(picked, p)
		}
		return mcp.ElicitResultContentValue{Value: picked}, nil
	}
	switch d := def.Value.(type) {
	case *mcp.StringSchema:
		n := int64(len([]rune(s)))
		if d.MinLength != nil && n < *d.MinLength {
			return mcp.ElicitResultContentValue{}, fmt.Errorf("want at least %d characters", *d.MinLength)
		}
		if d.MaxLength != nil && n > *d.MaxLength {
			return mcp.ElicitResultContentValue{}, fmt.Errorf("want at most %d characters", *d.MaxLength)
		}
		return str(s)
	case *mcp.NumberSchema:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return mcp.ElicitResultContentValue{}, errors.New("want a whole number")
		}
		if d.Minimum != nil && float64(n) < *d.Minimum || d.Maximum != nil && float64(n) > *d.Maximum {
			lo, hi := math.Inf(-1), math.Inf(1)
			if d.Minimum != nil {
				lo = *d.Minimum
			}
			if d.Maximum != nil {
				hi = *d.Maximum
			}
			return mcp.ElicitResultContentValue{}, fmt.Errorf("want a number from %v to %v", lo, hi)
		}
		return mcp.ElicitResultContentValue{Value: mcp.ElicitResultContentValueInteger(n)}, nil
	case *mcp.BooleanSchema:
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return mcp.ElicitResultContentValue{Value: mcp.ElicitResultContentValueBoolean(true)}, nil
		case "n", "no", "false":
			return mcp.ElicitResultContentValue{Value: mcp.ElicitResultContentValueBoolean(false)}, nil
		}
		return mcp.ElicitResultContentValue{}, errors.New("want yes or no")
	case *mcp.UntitledSingleSelectEnumSchema:
		return oneOf(s, d.Enum)
	case *mcp.TitledSingleSelectEnumSchema:
		var consts []string
		for _, it := range d.OneOf {
			consts = append(consts, it.Const)
		}
		return oneOf(s, consts)
	case *mcp.LegacyTitledEnumSchema:
		return oneOf(s, d.Enum)
	case *mcp.UntitledMultiSelectEnumSchema:
		return someOf(s, d.Items.Enum)
	case *mcp.TitledMultiSelectEnumSchema:
		var consts []string
		for _, it := range d.Items.AnyOf {
			consts = append(consts, it.Const)
		}
		return someOf(s, consts)
	}
	return str(s) // a kind of field this client does not know: text
}
