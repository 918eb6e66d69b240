package expfam

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// A saved table reads back row for row, extended rows beyond the linear grid
// and rows of non-normalisable η included; a damaged or foreign file is
// ignored.
func TestTableCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	DropSharedTables() // only this test's tables
	SetTableCache(dir)
	defer SetTableCache("")
	f, _ := NewSin(4.0625, 1.7) // a family no other test shares
	tab := SharedTable(f)
	if SharedTable(f) != tab {
		t.Fatal("SharedTable made a second table for the same family")
	}
	for _, eta := range []float64{-300.3, -6.01, 0.5, 3.97, 257.2} {
		tab.Quantile(eta, 0.3)
	}
	lin, _ := NewXSin(1.5)
	bad := SharedTable(&linearPsiFamily{lin})
	bad.Quantile(2, 0.5) // not normalisable: an error row
	if n, err := SaveTables(); err != nil || n != 2 {
		t.Fatalf("SaveTables: %d tables, %v; want 2", n, err)
	}
	if n, _ := SaveTables(); n != 0 {
		t.Errorf("nothing new was built, but SaveTables wrote %d tables", n)
	}
	for _, orig := range []*Table{tab, bad} {
		key := tableKey(orig.f)
		fresh := NewTable(orig.f)
		if !fresh.loadFile(cachePath(dir, key), key) {
			t.Fatalf("%v: the saved file does not load", orig.f)
		}
		wi, wr := orig.builtRows()
		if len(fresh.cached) != len(wi) {
			t.Fatalf("%v: the file holds %d rows, the table built %d", orig.f, len(fresh.cached), len(wi))
		}
		for _, i := range wi { // decode every row, as draws would
			fresh.row(i)
		}
		gi, gr := fresh.builtRows()
		if !reflect.DeepEqual(wi, gi) || len(wr) != len(gr) {
			t.Fatalf("%v: rows %v loaded as %v", orig.f, wi, gi)
		}
		for k := range wr {
			a, b := *wr[k], *gr[k]
			if (a.err == nil) != (b.err == nil) || a.err != nil && a.err.Error() != b.err.Error() {
				t.Fatalf("%v row %d: error %v loaded as %v", orig.f, wi[k], a.err, b.err)
			}
			a.err, b.err = nil, nil
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%v row %d differs after the round trip", orig.f, wi[k])
			}
		}
		if fresh.dirty.Load() {
			t.Errorf("%v: a loaded table counts as dirty", orig.f)
		}
	}
	// A table that used some of the file's rows and built a new one saves
	// them all: the rows it never needed are kept as read.
	partial := NewTable(f)
	partial.cacheFile, partial.cacheKey = cachePath(dir, tableKey(f)), tableKey(f)
	partial.Quantile(0.5, 0.3)   // decodes the rows around 0.5
	partial.Quantile(-77.7, 0.2) // builds new rows
	if err := partial.saveFile(partial.cacheFile, partial.cacheKey); err != nil {
		t.Fatal(err)
	}
	again := NewTable(f)
	if !again.loadFile(partial.cacheFile, partial.cacheKey) {
		t.Fatal("the re-saved file does not load")
	}
	wi, _ := tab.builtRows()
	for _, i := range wi {
		if _, ok := again.cached[i]; !ok {
			t.Errorf("row %d of the first file was lost on the second save", i)
		}
	}
	if len(again.cached) <= len(wi) {
		t.Errorf("the second save has %d rows, want the %d of the first and new ones", len(again.cached), len(wi))
	}

	// Damage to the header or index (a flipped byte in the key, in an index
	// entry's grid index or row checksum, which only the header's checksum
	// catches, or in that checksum; a truncation, an empty file, another
	// key) rejects the file; damage to a row rejects that row only, which is
	// then built afresh.
	key := tableKey(f)
	path := cachePath(dir, key)
	data, _ := os.ReadFile(path)
	index := len(tableMagic) + 4 + 4 + len(key) + 4 // header: magic, version, key, row count
	nRows := len(again.cached)
	headCRC := index + nRows*indexEntryBytes
	if got := binary.LittleEndian.Uint32(data[index-4:]); int(got) != nRows {
		t.Fatalf("the header's row count %d at byte %d, want %d", got, index-4, nRows)
	}
	if binary.LittleEndian.Uint32(data[headCRC:]) != crc32.Checksum(data[:headCRC], castagnoli) {
		t.Fatalf("the header's checksum is not at byte %d", headCRC)
	}
	entry := index + (nRows/2)*indexEntryBytes // an entry in the middle
	for name, d := range map[string][]byte{
		"key flipped":             flip(data, index-10),
		"index entry's row moved": flip(data, entry),       // grid index, low byte
		"index entry's row sum":   flip(data, entry+8+8+4), // the row's CRC
		"header checksum flipped": flip(data, headCRC+1),
		"truncated":               data[:len(data)/3],
		"empty":                   nil,
	} {
		os.WriteFile(path, d, 0o644)
		if NewTable(f).loadFile(path, key) {
			t.Errorf("a file with its %s was loaded", name)
		}
	}
	os.WriteFile(path, flip(data, len(data)-100), 0o644) // inside the last row
	damaged := NewTable(f)
	if !damaged.loadFile(path, key) {
		t.Fatal("a file with one damaged row was rejected whole")
	}
	nBad, nGood := 0, 0
	for i := range damaged.cached {
		if damaged.cachedRow(i) == nil {
			nBad++
		} else {
			nGood++
		}
	}
	if nBad != 1 || nGood == 0 {
		t.Errorf("one damaged row: %d rows rejected, %d accepted; want 1 and the rest", nBad, nGood)
	}
	os.WriteFile(path, data, 0o644)
	if NewTable(f).loadFile(path, key+"x") {
		t.Error("a file of another key was loaded")
	}
	if got := filepath.Dir(path); got != dir {
		t.Errorf("cache file in %s, want %s", got, dir)
	}
}

// A row that passes its checksum but contradicts itself (a cell marked
// refined without its block, a block without the mark, sub-cell data that
// is not whole blocks, a value that is not finite) is rejected like a
// damaged row and built afresh: draws from it neither panic nor change.
func TestTableCacheRejectsInconsistentRows(t *testing.T) {
	f, _ := NewSin(4, 1.7)
	ref := NewTable(f)
	i := ref.lin + 3*TableEtaRes // η = 3, which has refined cells
	good, next := ref.row(i), ref.row(i+1)
	refined, plain := -1, -1
	for j := 1; j < TableCells-1; j++ {
		if good.ref[j] > 0 && refined < 0 {
			refined = j
		}
		if good.ref[j] == 0 && good.ref[j-1] == 0 && good.ref[j+1] == 0 && plain < 0 {
			plain = j
		}
	}
	if refined < 0 || plain < 0 {
		t.Fatalf("row %d: refined cell %d, plain cell %d; want one of each", i, refined, plain)
	}
	eta := ref.gridEta(i)
	for name, damage := range map[string]func(r *tableRow){
		"marked refined without a block": func(r *tableRow) { r.node[plain][1] = -r.node[plain][1] },
		"refined cell's block dropped":   func(r *tableRow) { r.ref[refined] = 0 },
		"block without the mark":         func(r *tableRow) { r.node[refined][1] = math.Abs(r.node[refined][1]) },
		"ref past the blocks":            func(r *tableRow) { r.ref[refined] = int16(len(r.sub)/(2*(TableSubCells+1)) + 1) },
		"negative ref":                   func(r *tableRow) { r.ref[refined] = -1 },
		"sub not whole blocks":           func(r *tableRow) { r.sub = append(r.sub, 0) },
		"NaN quantile":                   func(r *tableRow) { r.node[plain][0] = math.NaN() },
		"infinite slope":                 func(r *tableRow) { r.node[plain+1][1] = math.Inf(1) },
		"infinite tail quantile":         func(r *tableRow) { r.lo[3] = math.Inf(-1) },
		"NaN sub-cell quantile":          func(r *tableRow) { r.sub[1] = math.NaN() },
		"NaN log Z":                      func(r *tableRow) { r.logZ = math.NaN() },
	} {
		bad := *good
		bad.sub = append([]float64(nil), good.sub...)
		damage(&bad)
		path := filepath.Join(t.TempDir(), "t.tbl")
		writeCacheRows(t, f, path, map[int]*tableRow{i: &bad, i + 1: next})
		tab := NewTable(f)
		tab.cacheFile, tab.cacheKey = path, tableKey(f)
		for _, u := range []float64{(float64(plain) + 0.5) / TableCells, (float64(refined) + 0.5) / TableCells} {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s: Quantile(%g, %g) panicked: %v", name, eta, u, p)
					}
				}()
				if got, want := tab.Quantile(eta, u), ref.Quantile(eta, u); got != want {
					t.Errorf("%s: Quantile(%g, %g) = %v, want %v", name, eta, u, got, want)
				}
			}()
		}
		if tab.cachedRow(i) != nil {
			t.Errorf("%s: the row decoded", name)
		}
		if tab.cachedRow(i+1) == nil {
			t.Errorf("%s: the undamaged row was rejected", name)
		}
	}
	// Rows as built decode, for every family of the catalog, inside and
	// beyond the linear grid and where the family is not normalisable.
	lin, _ := NewXSin(1.5)
	for _, f := range append(catalog(t), &linearPsiFamily{lin}) {
		tab := NewTable(f)
		for _, eta := range []float64{-3000.3, -40.1, -5.5, -0.3, 0, 1.7, 6.2, 250.1, 4000.2} {
			if i, _, _, ok := tab.locate(eta); ok {
				r := tab.row(i)
				var b encBuffer
				r.encode(&encoder{w: &b})
				if got := decodeRow(b.b); got == nil {
					t.Errorf("%v η = %g: a built row does not decode", f, eta)
				}
			}
		}
	}
}

// writeCacheRows writes a cache file of f holding rows.
func writeCacheRows(t *testing.T, f Scalar, path string, rows map[int]*tableRow) {
	t.Helper()
	tab := NewTable(f)
	tab.cached = map[int]cachedEntry{}
	for i, r := range rows {
		var b encBuffer
		r.encode(&encoder{w: &b})
		tab.cached[i] = cachedEntry{b: b.b, crc: crc32.Checksum(b.b, castagnoli)}
	}
	if err := tab.saveFile(path, tableKey(f)); err != nil {
		t.Fatal(err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x40
	return c
}

// linearPsiFamily has x-sin's base exp(−|x|^1.5/1.5) and ψ = x², which
// is not normalisable for η > 0: its table rows there are error rows.
type linearPsiFamily struct{ *XSinFamily }

func (linearPsiFamily) Psi(x float64) float64  { return x * x }
func (linearPsiFamily) DPsi(x float64) float64 { return 2 * x }
func (linearPsiFamily) D2Psi(float64) float64  { return 2 }
func (linearPsiFamily) String() string         { return "x²-test" }
func (linearPsiFamily) Kink() (float64, bool)  { return 0, false }

// Beyond its linear grid the table extends lazily, as
// accurately as inside; its extension is bounded, and dropping it changes
// no draw.
func TestTableExtendsBeyondItsRange(t *testing.T) {
	// Off-grid η on the geometric grid, from its first cells to far out, for
	// the families with a bounded ψ. The bound is the one inside the linear
	// grid (TestTableErrorBound). x-sin's ψ is unbounded: its grid stays
	// linear (and, off the grid, as inaccurate as inside: see the README).
	xsin, _ := NewXSin(2)
	if x := NewTable(xsin); x.geo || x.gridEta(2*x.lin+1)-x.gridEta(2*x.lin) != 1.0/TableEtaRes {
		t.Error("x-sin's grid must stay linear beyond the edge")
	}
	for _, f := range catalog(t)[:2] {
		tab := NewTable(f)
		if !tab.geo {
			t.Fatalf("%v: the grid should be geometric beyond the edge", f)
		}
		for _, eta := range []float64{8.03, -11.7, 60.02, 256.3, 300.0078, -540.5, 1000.01, -3217.7} {
			e, err := tab.MaxCDFError(eta)
			if err != nil {
				t.Fatal(err)
			}
			if e > 4e-5 {
				t.Errorf("%v η = %g: Kolmogorov distance %.2e", f, eta, e)
			}
			c, _ := NewCDF(f, eta)
			if a, _, _, ok := tab.Cumulants(eta); !ok || !numeric.AbsWithin(a, c.LogZ, 1e-6*math.Abs(c.LogZ)) {
				t.Errorf("%v η = %g: log Z %v (ok %v), exact %v", f, eta, a, ok, c.LogZ)
			}
		}
	}
	// locate puts η in its cell (up to the rounding of η·TableEtaRes on the
	// linear grid), with the cell's width, on either grid and at its seams.
	for _, tab := range []*Table{NewTable(xsin), NewTable(catalog(t)[0])} {
		for k := -1200; k <= 1200; k++ {
			g := tab.gridEta(tab.lin + k)
			for _, eta := range []float64{g, math.Nextafter(g, math.Inf(-1)), math.Nextafter(g, math.Inf(1)), g + 0.3/TableEtaRes} {
				i, w, h, ok := tab.locate(eta)
				lo, hi := tab.gridEta(i), tab.gridEta(i+1)
				if !ok || !(w >= 0 && w < 1) || w != 0 && h != hi-lo || !numeric.AbsWithin(lo+w*(hi-lo), eta, 1e-13*(1+math.Abs(eta))) {
					t.Fatalf("%v: locate(%v) = row %d (η %v to %v), w %v, h %v, %v", tab.f, eta, i, lo, hi, w, h, ok)
				}
			}
		}
	}
	sin, _ := NewSin(4, 1.7)
	tab := NewTable(sin)
	want := []float64{tab.Quantile(300.0078, 0.3), tab.Quantile(-540.5, 0.7), tab.Quantile(1000.01, 0.9)}
	if n := tab.nExtra.Load(); n != 6 {
		t.Fatalf("the unbounded extension holds %d rows, want 6", n)
	}
	old := tableExtraRows
	tableExtraRows = 3
	defer func() { tableExtraRows = old }()
	fresh := NewTable(sin)
	for round := range 3 {
		got := []float64{fresh.Quantile(300.0078, 0.3), fresh.Quantile(-540.5, 0.7), fresh.Quantile(1000.01, 0.9)}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: draws %v with a bounded extension, %v without", round, got, want)
		}
		if n := fresh.nExtra.Load(); n > 3 {
			t.Fatalf("the extension holds %d rows, bound 3", n)
		}
	}
	if !math.IsNaN(tab.Quantile(math.Inf(1), 0.5)) || !math.IsNaN(tab.Quantile(math.NaN(), 0.5)) {
		t.Error("non-finite η must give NaN")
	}
}
