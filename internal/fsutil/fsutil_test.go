package fsutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
