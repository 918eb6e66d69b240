package fsutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.csv")
	if err := WriteAtomic(p, func(w io.Writer) error { _, err := io.WriteString(w, "one\n"); return err }); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old content and no temporary file.
	boom := errors.New("boom")
	err := WriteAtomic(p, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\n" {
		t.Errorf("content %q after failed write", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %d entries, want only a.csv", len(ents))
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// A panic inside write leaves neither the target nor a temporary file.
func TestWriteAtomicPanicLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	func() {
		defer func() { _ = recover() }()
		WriteAtomic(filepath.Join(dir, "x.csv"), func(w io.Writer) error {
			io.WriteString(w, "partial")
			panic("boom")
		})
	}()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a panicking write left %v", ents)
	}
}

// ReplaceAtomic replaces the content as WriteAtomic does (without the
// syncs): the new content on success, the old one and no temporary file
// on failure.
func TestReplaceAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fig.png")
	if err := ReplaceAtomic(p, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := ReplaceAtomic(p, func(w io.Writer) error { io.WriteString(w, "partial"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q after a failed replace, want %q", b, "new")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only the file", len(ents))
	}
}

// WriteFilesAtomic writes each file in order with its content; at a failing
// writer it stops with an error naming that file, keeps the files before
// it, leaves the failing file's old content and no temporary file.
func TestWriteFilesAtomic(t *testing.T) {
	dir := t.TempDir()
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := os.WriteFile(filepath.Join(dir, "b.csv"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFilesAtomic(dir, []File{
		{"a.csv", text("a")},
		{"b.csv", func(w io.Writer) error { io.WriteString(w, "partial"); return boom }},
		{"c.csv", text("c")},
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "b.csv") {
		t.Fatalf("err = %v, want boom naming b.csv", err)
	}
	for name, want := range map[string]string{"a.csv": "a", "b.csv": "old"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left %d entries, want a.csv and b.csv", len(ents))
	}
	if err := WriteFilesAtomic(dir, []File{{"b.csv", text("b")}, {"c.csv", text("c")}}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.csv": "a", "b.csv": "b", "c.csv": "c"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
}
