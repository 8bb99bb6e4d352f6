package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirStaysInside loads a skill from disk with Dir, then replaces one of
// its files by a symbolic link to a file outside the directory, with the
// same bytes: the catalog refuses to serve it, while a file left alone is
// still served.
func TestDirStaysInside(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const forms = "How to fill forms.\n"
	write(filepath.Join(dir, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: PDF forms\n---\nRead references/FORMS.md.\n")
	write(filepath.Join(dir, "pdf", "references", "FORMS.md"), forms)
	write(filepath.Join(outside, "secret.md"), forms)

	c, err := Dir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	const formsURI = "skill://pdf/references/FORMS.md"
	if got, err := c.Read(formsURI); err != nil || string(got) != forms {
		t.Fatalf("Read before the swap = %q, %v; want the file", got, err)
	}
	link := filepath.Join(dir, "pdf", "references", "FORMS.md")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), link); err != nil {
		t.Fatal(err)
	}
	got, err := c.Read(formsURI)
	if err == nil {
		t.Fatalf("Read through a link out of the directory = %q, want an error", got)
	}
	if !strings.Contains(err.Error(), "FORMS.md") {
		t.Errorf("the error does not name the file: %v", err)
	}
	if _, err := c.Read("skill://pdf/SKILL.md"); err != nil {
		t.Errorf("the SKILL.md, left alone: %v", err)
	}
	if _, err := Dir(filepath.Join(dir, "missing"), nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Dir of a missing directory: %v, want an error naming it", err)
	}
}
