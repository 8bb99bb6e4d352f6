package generator_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator/emit"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/generator/plan"
	"github.com/mcpgen/mcpgen/internal/schematest"
)

// FuzzGenerate runs the whole pipeline on arbitrary schema files: it must
// never panic, and what it accepts it must emit. Seeds are the golden
// schemas.
func FuzzGenerate(f *testing.F) {
	for _, kind := range []string{"cases", "errors"} {
		dirs, _ := filepath.Glob(filepath.Join(repoRoot, "golden", kind, "*", "schema.json"))
		for _, p := range dirs {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			pipeline(data)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("the pipeline did not end within 10 s on:\n%s", data)
		}
	})
}

// pipeline runs load → model → plan → emit, stopping at the first error.
func pipeline(data []byte) {
	{
		doc, err := load.Bytes("fuzz.json", data)
		if err != nil {
			return
		}
		m, err := model.Build("2099-01-01", doc)
		if err != nil {
			return
		}
		p, err := plan.Build(m)
		if err != nil {
			return
		}
		if _, err := emit.Emit(p, emit.Options{Package: "fuzz", Source: "fuzz.json"}); err != nil {
			return
		}
		_ = p.String()
	}
}

// FuzzGenerateExtension runs the pipeline of an extension on arbitrary
// extension schemas bound to the core revision 2026-07-28 (load →
// model.BuildExtension → plan → emit): it must never panic, and what it
// accepts it must emit. Seeds are the extension cases of the goldens and the
// Tasks extension's schema.
func FuzzGenerateExtension(f *testing.F) {
	const core = "2026-07-28"
	coreDoc, err := load.Bytes("schema/"+core+"/schema.json", schematest.Data(f, core))
	if err != nil {
		f.Fatal(err)
	}
	for _, kind := range []string{"cases", "errors"} {
		dirs, _ := filepath.Glob(filepath.Join(repoRoot, "golden", kind, "*", "extension.txt"))
		for _, p := range dirs {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(p), "schema.json"))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	tasks, err := os.ReadFile(schematest.Extension(f, "ext-tasks"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tasks)
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			extensionPipeline(coreDoc, core, data)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("the pipeline of an extension did not end within 10 s on:\n%s", data)
		}
	})
}

// extensionPipeline runs the pipeline of the extension whose schema is data,
// bound to the core revision core (coreDoc), stopping at the first error.
func extensionPipeline(coreDoc *load.Document, core string, data []byte) {
	doc, err := load.Bytes("fuzz.json", data)
	if err != nil {
		return
	}
	m, err := model.BuildExtension(core, coreDoc, doc, "com.example/fuzz")
	if err != nil {
		return
	}
	p, err := plan.Build(m)
	if err != nil {
		return
	}
	if _, err := emit.Emit(p, emit.Options{Package: "fuzz", Source: "fuzz.json", Core: corePackage(core)}); err != nil {
		return
	}
	_ = p.String()
}
