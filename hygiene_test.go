package readme_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gitTimeout bounds each git command of the hygiene checks.
const gitTimeout = 2 * time.Minute

// headerSize is how many bytes of each tracked file the check reads: enough
// for every magic number it knows and a PE header's usual offset.
const headerSize = 4096

// executableKind returns the executable format that data, the first bytes of
// a file, begins with ("ELF", "Mach-O", "Mach-O universal", "Java class",
// "PE", "WebAssembly"), or "" if it begins with none of them.
func executableKind(data []byte) string {
	if len(data) < 4 {
		return ""
	}
	switch magic := binary.BigEndian.Uint32(data); {
	case bytes.HasPrefix(data, []byte("\x7fELF")):
		return "ELF"
	case magic == 0xfeedface, magic == 0xfeedfacf, magic == 0xcefaedfe, magic == 0xcffaedfe:
		return "Mach-O"
	case magic == 0xcafebabe || magic == 0xcafebabf:
		// A universal binary counts its architectures where a Java class
		// file has its version, 45 or more (as debug/macho tells them apart).
		if len(data) >= 8 && binary.BigEndian.Uint32(data[4:]) >= 45 {
			return "Java class"
		}
		return "Mach-O universal"
	case bytes.HasPrefix(data, []byte("\x00asm")):
		return "WebAssembly"
	case bytes.HasPrefix(data, []byte("MZ")) && len(data) >= 0x40:
		// A DOS header whose e_lfanew points at the PE signature.
		off := binary.LittleEndian.Uint32(data[0x3c:])
		if uint64(off)+4 <= uint64(len(data)) && bytes.Equal(data[off:off+4], []byte("PE\x00\x00")) {
			return "PE"
		}
	}
	return ""
}

// trackedProblem returns what is wrong with a tracked file of git mode mode
// (such as "100644") whose first bytes are data, or "" if nothing is: an
// executable binary, or a file with the executable bit that is not a script
// starting with a #! line.
func trackedProblem(mode string, data []byte) string {
	if kind := executableKind(data); kind != "" {
		return "an executable binary (" + kind + "); build outputs are not committed: git rm --cached it and list it in .gitignore"
	}
	if mode == "100755" && !bytes.HasPrefix(data, []byte("#!")) {
		return "executable (mode 100755) but not a script starting with #!; if it is a build output, git rm --cached it, else git update-index --chmod=-x it"
	}
	return ""
}

// trackedFile is one entry of the git index.
type trackedFile struct {
	mode, object, path string
}

// gitOutput runs git with args in dir and returns its standard output.
func gitOutput(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), dir, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// trackedFiles lists the files of the git index under dir (git ls-files -s),
// with paths relative to dir.
func trackedFiles(ctx context.Context, dir string) ([]trackedFile, error) {
	out, err := gitOutput(ctx, dir, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	var files []trackedFile
	for entry := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if entry == "" {
			continue
		}
		// "<mode> <object> <stage>\t<path>"
		meta, path, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("git ls-files -s: cannot read the entry %q", entry)
		}
		files = append(files, trackedFile{mode: fields[0], object: fields[1], path: path})
	}
	return files, nil
}

// trackedProblems returns one line "path: problem" for each file of the git
// index under dir that trackedProblem refuses, reading the indexed content
// (git cat-file --batch), not the work tree's.
func trackedProblems(ctx context.Context, dir string) ([]string, error) {
	all, err := trackedFiles(ctx, dir)
	if err != nil {
		return nil, err
	}
	var files []trackedFile
	for _, f := range all {
		// Symbolic links (120000) and submodules (160000) have no content
		// of their own to check.
		if f.mode == "100644" || f.mode == "100755" {
			files = append(files, f)
		}
	}
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file --batch in %s: %w", dir, err)
	}
	go func() {
		defer stdin.Close()
		w := bufio.NewWriter(stdin)
		for _, f := range files {
			fmt.Fprintln(w, f.object)
		}
		w.Flush()
	}()
	r := bufio.NewReader(stdout)
	var problems []string
	var readErr error
	for _, f := range files {
		data, err := readObjectHead(r, f.object)
		if err != nil {
			readErr = fmt.Errorf("git cat-file --batch in %s, reading %s: %w", dir, f.path, err)
			break
		}
		if p := trackedProblem(f.mode, data); p != "" {
			problems = append(problems, filepath.ToSlash(f.path)+": "+p)
		}
	}
	io.Copy(io.Discard, r) // let git finish writing whatever remains after an error
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = fmt.Errorf("git cat-file --batch in %s: %w: %s", dir, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return problems, readErr
}

// readObjectHead reads one object of git cat-file --batch's output from r,
// "<object> <type> <size>\n<content>\n", and returns at most headerSize
// bytes of its content.
func readObjectHead(r *bufio.Reader, object string) ([]byte, error) {
	header, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", object, err)
	}
	fields := strings.Fields(header)
	if len(fields) != 3 || fields[0] != object {
		return nil, fmt.Errorf("object %s: unexpected header %q", object, header)
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return nil, fmt.Errorf("object %s: bad size in header %q", object, header)
	}
	head := make([]byte, min(size, headerSize))
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("object %s: %w", object, err)
	}
	// The rest of the content and the newline after it.
	if _, err := r.Discard(int(size-int64(len(head))) + 1); err != nil {
		return nil, fmt.Errorf("object %s: %w", object, err)
	}
	return head, nil
}

// gitCheckout returns the top of the git work tree holding dir, skipping the
// test when there is none: a module unpacked from a zip or a copy of the
// files has no index to check, which is a property of where the tests run,
// not of the repository.
func gitCheckout(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("not checking the tracked files: no git command to list them (%v); this is not a git checkout as far as the test can tell", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), gitTimeout)
	defer cancel()
	out, err := gitOutput(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		t.Skipf("not checking the tracked files: %s is not in a git checkout (%v)", dir, err)
	}
	return strings.TrimSpace(string(out))
}

// TestNoTrackedBinaries fails naming every tracked file that is an
// executable binary, or has the executable bit without being a #! script,
// so that no build output is committed again.
func TestNoTrackedBinaries(t *testing.T) {
	gitCheckout(t, ".")
	ctx, cancel := context.WithTimeout(t.Context(), gitTimeout)
	defer cancel()
	problems, err := trackedProblems(ctx, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// elfHeader, machOHeader and peHeader are the first bytes of executables of
// each format, as compilers write them.
var (
	elfHeader   = []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00")
	machOHeader = []byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01\x03\x00\x00\x00\x02\x00\x00\x00")
	peHeader    = func() []byte {
		b := make([]byte, 0x100)
		copy(b, "MZ\x90\x00")
		binary.LittleEndian.PutUint32(b[0x3c:], 0x80)
		copy(b[0x80:], "PE\x00\x00\x64\x86")
		return b
	}()
)

func TestExecutableKind(t *testing.T) {
	// An MZ header whose e_lfanew points past the data, or at something
	// else than the PE signature.
	mzOnly := slices.Clone(peHeader)
	binary.LittleEndian.PutUint32(mzOnly[0x3c:], 0x1000)
	mzOther := slices.Clone(peHeader)
	copy(mzOther[0x80:], "NE\x00\x00")
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"ELF", elfHeader, "ELF"},
		{"Mach-O 64 little-endian", machOHeader, "Mach-O"},
		{"Mach-O 32 little-endian", []byte("\xce\xfa\xed\xfe\x07\x00\x00\x00"), "Mach-O"},
		{"Mach-O 64 big-endian", []byte("\xfe\xed\xfa\xcf\x01\x00\x00\x07"), "Mach-O"},
		{"Mach-O 32 big-endian", []byte("\xfe\xed\xfa\xce\x00\x00\x00\x12"), "Mach-O"},
		{"Mach-O universal", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x02\x01\x00\x00\x07"), "Mach-O universal"},
		{"Mach-O universal 64", []byte("\xca\xfe\xba\xbf\x00\x00\x00\x02"), "Mach-O universal"},
		{"Java class", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x41"), "Java class"},
		{"PE", peHeader, "PE"},
		{"WebAssembly", []byte("\x00asm\x01\x00\x00\x00"), "WebAssembly"},
		{"MZ, PE offset past the data", mzOnly, ""},
		{"MZ, no PE signature", mzOther, ""},
		{"MZ text", []byte("MZ is how this note starts\n"), ""},
		{"script", []byte("#!/usr/bin/env bash\nset -e\n"), ""},
		{"Go source", []byte("package main\n\nfunc main() {}\n"), ""},
		{"JSON", []byte(`{"\u007fELF": 1}`), ""},
		{"ELF magic not at the start", append([]byte("x"), elfHeader...), ""},
		{"short", []byte("\x7fEL"), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := executableKind(tt.data); got != tt.want {
				t.Errorf("executableKind(%q) = %q, want %q", tt.data, got, tt.want)
			}
		})
	}
}

func TestTrackedProblem(t *testing.T) {
	tests := []struct {
		name string
		mode string
		data []byte
		want string // substring of the problem, "" for none
	}{
		{"binary", "100644", elfHeader, "an executable binary (ELF)"},
		{"executable binary", "100755", machOHeader, "an executable binary (Mach-O)"},
		{"script", "100755", []byte("#!/bin/sh\nexit 0\n"), ""},
		{"executable text", "100755", []byte("echo hi\n"), "executable (mode 100755) but not a script"},
		{"executable empty", "100755", nil, "executable (mode 100755) but not a script"},
		{"text", "100644", []byte("hello\n"), ""},
		{"empty", "100644", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trackedProblem(tt.mode, tt.data)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("trackedProblem(%s, %q) = %q, want %q", tt.mode, tt.data, got, tt.want)
			}
		})
	}
}

// TestTrackedProblemsRepository runs the check on a repository of its own
// whose index holds a binary of each format, a script and a text file with
// the executable bit, and sees it name exactly the bad ones, reading the
// index rather than the work tree.
func TestTrackedProblemsRepository(t *testing.T) {
	gitCheckout(t, ".")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), gitTimeout)
	defer cancel()
	git := func(args ...string) {
		t.Helper()
		if _, err := gitOutput(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	big := append(slices.Clone(peHeader), bytes.Repeat([]byte{0}, 3*headerSize)...) // longer than what is read
	files := []struct {
		path string
		mode os.FileMode
		data []byte
	}{
		{"login-client", 0o755, elfHeader},
		{"bin/tool.exe", 0o644, big},
		{"nested/dir/macho", 0o644, machOHeader},
		{"scripts/test", 0o755, []byte("#!/usr/bin/env bash\n")},
		{"notes.txt", 0o755, []byte("not a script\n")},
		{"README.md", 0o644, []byte("# hello\n")},
		{"empty", 0o644, nil},
	}
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.data, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	git("update-index", "--chmod=+x", "login-client", "scripts/test", "notes.txt")
	// The work tree's copy no longer matters once indexed.
	if err := os.WriteFile(filepath.Join(dir, "README.md"), elfHeader, 0o644); err != nil {
		t.Fatal(err)
	}

	problems, err := trackedProblems(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		path, _, _ := strings.Cut(p, ": ")
		got = append(got, path)
	}
	want := []string{"bin/tool.exe", "login-client", "nested/dir/macho", "notes.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("the check named %q, want %q; its lines:\n%s", got, want, strings.Join(problems, "\n"))
	}
	if len(problems) == len(want) && !strings.Contains(problems[0], "(PE)") {
		t.Errorf("the problem of bin/tool.exe does not name PE: %s", problems[0])
	}
}
