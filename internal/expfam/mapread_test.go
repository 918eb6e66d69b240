package expfam

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// Issue 19, item 6: a cache file truncated in place while a run has it
// mapped (cp or rsync --inplace over it) ended the process with SIGBUS and
// a goroutine dump. The fault is recovered now: the rows are built afresh
// (the same rows), and saving writes a good file again.
func TestTableCacheSurvivesTruncationWhileMapped(t *testing.T) {
	dir := t.TempDir()
	f, _ := NewSin(4.1875, 1.3) // a family no other test shares
	orig := NewTable(f)
	for _, eta := range []float64{-7.3, 0.25, 2.5, 6.1} {
		orig.Quantile(eta, 0.3)
	}
	key := tableKey(f)
	path := cachePath(dir, key)
	if err := orig.saveFile(path, key); err != nil {
		t.Fatal(err)
	}
	wi, wr := orig.builtRows()
	for _, tc := range []struct {
		name  string
		rows  bool // read the rows before saving
		error string
	}{
		{"rows then save", true, ""},
		{"save only", false, "changed on disk while smrl had it open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := orig.saveFile(path, key); err != nil {
				t.Fatal(err)
			}
			fresh := NewTable(f)
			if !fresh.loadFile(path, key) || len(fresh.cached) != len(wi) {
				t.Fatal("the saved file does not load")
			}
			if err := os.Truncate(path, 0); err != nil { // in place: the mapping stays
				t.Fatal(err)
			}
			if tc.rows {
				for k, i := range wi {
					if got := fresh.row(i); !reflect.DeepEqual(got, wr[k]) {
						t.Fatalf("row %d differs from the built one after the fault", i)
					}
				}
				if !fresh.mapFault.Load() {
					t.Error("the fault was not recorded")
				}
			}
			err := fresh.saveFile(path, key)
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) {
					t.Fatalf("saveFile = %v, want an error saying %q", err, tc.error)
				}
				err = fresh.saveFile(path, key) // the faulted rows are left out now
			}
			if err != nil {
				t.Fatal(err)
			}
			again := NewTable(f)
			if !again.loadFile(path, key) {
				t.Fatal("the file saved after the fault does not load")
			}
		})
	}
}

// BenchmarkCachedRow checks and decodes one row from a mapped cache file:
// the cost readMapped adds to a warm-cache run is in it.
func BenchmarkCachedRow(b *testing.B) {
	f, _ := NewSin(4.1875, 1.3)
	orig := NewTable(f)
	orig.Quantile(0.25, 0.3)
	key := tableKey(f)
	path := cachePath(b.TempDir(), key)
	if err := orig.saveFile(path, key); err != nil {
		b.Fatal(err)
	}
	wi, _ := orig.builtRows()
	fresh := NewTable(f)
	if !fresh.loadFile(path, key) {
		b.Fatal("the saved file does not load")
	}
	b.ReportAllocs()
	for b.Loop() {
		if fresh.cachedRow(wi[0]) == nil {
			b.Fatal("no row")
		}
	}
}

// BenchmarkReadMapped is readMapped's own cost around an empty read.
func BenchmarkReadMapped(b *testing.B) {
	n := 0
	for b.Loop() {
		readMapped(func() { n++ })
	}
}
