package expfam

import (
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// mapped reports whether path is mapped into this process.
func mapped(t *testing.T, path string) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps:", err)
	}
	return strings.Contains(string(maps), path)
}

// A cache file stays mapped while its table is in use and is unmapped once
// the table is dropped and unreachable, so that DropSharedTables followed by
// SharedTable does not leave one mapping more each time; a file that is
// rejected is unmapped at once.
func TestTableCacheUnmapsFiles(t *testing.T) {
	dir := t.TempDir()
	DropSharedTables()
	SetTableCache(dir)
	defer SetTableCache("")
	defer DropSharedTables()
	f, _ := NewSin(4.125, 1.7) // a family no other test shares
	SharedTable(f).Quantile(0.5, 0.3)
	if n, err := SaveTables(); err != nil || n != 1 {
		t.Fatalf("SaveTables: %d tables, %v; want 1", n, err)
	}
	path := cachePath(dir, tableKey(f))
	for round := range 3 {
		DropSharedTables()
		func() {
			tab := SharedTable(f)
			if math.IsNaN(tab.Quantile(0.5, 0.3)) || tab.cached == nil || !mapped(t, path) {
				t.Fatalf("round %d: the table did not load its file", round)
			}
		}()
		DropSharedTables()
		deadline := time.Now().Add(5 * time.Second)
		for mapped(t, path) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the file is still mapped after its table was dropped", round)
			}
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
	}
	// Rejected: another key.
	if NewTable(f).loadFile(path, "another key") {
		t.Fatal("a file of another key was loaded")
	}
	if mapped(t, path) {
		t.Error("a rejected file stays mapped")
	}
}
