package expfam

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"unsafe"
)

// Sampling tables are pure functions of their family, so the rows one
// process builds can serve the next. SharedTable keeps one table per family
// for the whole process (every model, agent and sweep point of that family
// shares its rows), and with a cache directory set (SetTableCache) a shared
// table starts from the rows saved there and SaveTables writes back the
// rows built since.
//
// A cache file holds one family's rows: a header (magic, format version,
// the family's key, the number of rows), an index (per row: its grid index,
// offset, length and the CRC-32C of its bytes), the CRC-32C of header and
// index, then the rows. A file whose header or index does not check out
// (short, another version or key, a bad checksum) is ignored; a row whose
// checksum fails when it is first needed, or that does not decode to a
// consistent row (decode), is built afresh. The cache can
// change how fast a run is, never what it computes (tested: cached and
// fresh runs give byte-identical files). Checking each row as it is decoded,
// instead of the whole file at load, means a run touches only the pages of
// the rows it uses: on this project's VMs a minor page fault costs several
// microseconds, and a full pass over an 84 MB cache took a fifth of a second.

// tableFormat is the version of the row algorithm and of the file layout;
// it changes whenever either does, so that old files are ignored.
const tableFormat = 4

var tableMagic = [8]byte{'S', 'M', 'R', 'L', 'T', 'B', 'L', 0}

var registry struct {
	sync.Mutex
	dir    string            // cache directory; "" disables the cache
	tables map[string]*Table // by tableKey
}

// SetTableCache sets the directory of the table cache ("" disables it) for
// the shared tables created from now on and for SaveTables.
func SetTableCache(dir string) {
	registry.Lock()
	defer registry.Unlock()
	registry.dir = dir
}

// DefaultTableCacheDir is the user's cache directory for smrl's tables,
// $XDG_CACHE_HOME/smrl/tables or the platform's equivalent (os.UserCacheDir),
// or "" when there is none.
func DefaultTableCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "smrl", "tables")
}

// tableKey identifies a table's content: the family (its String names every
// parameter, exactly) and the grid.
func tableKey(f Scalar) string {
	return fmt.Sprintf("%s|eta %d %d/%d log %d|cells %d|tail %d %g|sub %d %g", f, TableEtaMax, TableGeoEta, TableEtaRes, TableEtaLogRes,
		TableCells, TableTailCells, TableTailMin, TableSubCells, tableRefineTol)
}

// SharedTable returns the process-wide table of f: the same *Table for
// every family with the same key, loaded from the table cache when one is
// set and holds it.
func SharedTable(f Scalar) *Table {
	key := tableKey(f)
	registry.Lock()
	defer registry.Unlock()
	if t, ok := registry.tables[key]; ok {
		return t
	}
	if registry.tables == nil {
		registry.tables = map[string]*Table{}
	}
	t := NewTable(f)
	if registry.dir != "" {
		t.cacheFile, t.cacheKey = cachePath(registry.dir, key), key
	}
	registry.tables[key] = t
	return t
}

// loadCache fills the table from its cache file, once, before the first row
// is built (so a command that draws nothing reads nothing); a bad file is
// ignored.
func (t *Table) loadCache() {
	t.loadOnce.Do(func() {
		if t.cacheFile != "" {
			t.loadFile(t.cacheFile, t.cacheKey)
		}
	})
}

func cachePath(dir, key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(dir, hex.EncodeToString(h[:12])+".tbl")
}

// DropSharedTables forgets the shared tables, so that the next SharedTable
// of a family starts afresh (from the cache, when one is set): for tests
// and long-lived processes that want the memory back. A dropped table's
// rows, and the mapping of its cache file, are released once nothing uses
// the table any more.
func DropSharedTables() {
	registry.Lock()
	defer registry.Unlock()
	registry.tables = nil
}

// SaveTables writes every shared table that built rows since it was loaded
// or saved to the table cache, atomically (a temporary file renamed into
// place), and reports how many tables it wrote. It does nothing without a
// cache directory. Errors name the file; a failure leaves the cache as it
// was and changes no result.
func SaveTables() (int, error) {
	registry.Lock()
	dir := registry.dir
	var tables []*Table
	for _, t := range registry.tables {
		if t.dirty.Load() {
			tables = append(tables, t)
		}
	}
	registry.Unlock()
	if dir == "" || len(tables) == 0 {
		return 0, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("table cache: %w", err)
	}
	n := 0
	for _, t := range tables {
		key := tableKey(t.f)
		if err := t.saveFile(cachePath(dir, key), key); err != nil {
			return n, err
		}
		t.dirty.Store(false)
		n++
	}
	return n, nil
}

// builtRows returns the table's built rows by grid index, in index order.
func (t *Table) builtRows() (idx []int, rows []*tableRow) {
	for i := range t.rows {
		if r := t.rows[i].Load(); r != nil {
			idx, rows = append(idx, i), append(rows, r)
		}
	}
	var extra []int
	m := t.extra.Load()
	m.Range(func(k, _ any) bool { extra = append(extra, k.(int)); return true })
	sort.Ints(extra)
	for _, i := range extra {
		r, _ := m.Load(i)
		idx, rows = append(idx, i), append(rows, r.(*tableRow))
	}
	return idx, rows
}

// cachedEntry is one row of a cache file: its bytes and their checksum.
type cachedEntry struct {
	b   []byte
	crc uint32
}

// indexEntryBytes is the size of one index entry: grid index, offset,
// length, checksum.
const indexEntryBytes = 8 + 8 + 4 + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// saveFile writes the table's rows, and the cached rows it never decoded,
// to path atomically.
func (t *Table) saveFile(path, key string) (err error) {
	defer runtime.KeepAlive(t) // the cached rows written are in t's mapping
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("table cache: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("table cache: writing %s: %w", path, err)
		}
	}()
	idx, rows := t.builtRows()
	payload := make(map[int]cachedEntry, len(idx)+len(t.cached))
	for k, r := range rows {
		var b encBuffer
		enc := encoder{w: &b}
		r.encode(&enc)
		payload[idx[k]] = cachedEntry{b: b.b, crc: crc32.Checksum(b.b, castagnoli)}
	}
	// Rows of the cache file this process never needed are kept as read,
	// unless reading the file's mapping faulted.
	if !t.mapFault.Load() {
		for i, e := range t.cached {
			if _, ok := payload[i]; !ok {
				payload[i] = e
			}
		}
	}
	order := make([]int, 0, len(payload))
	for i := range payload {
		order = append(order, i)
	}
	sort.Ints(order)
	var head encBuffer
	enc := encoder{w: &head}
	enc.bytes(tableMagic[:])
	enc.u32(tableFormat)
	enc.str(key)
	enc.u32(uint32(len(order)))
	off := uint64(len(head.b) + len(order)*indexEntryBytes + 4)
	for _, i := range order {
		e := payload[i]
		enc.u64(uint64(int64(i)))
		enc.u64(off)
		enc.u32(uint32(len(e.b)))
		enc.u32(e.crc)
		off += uint64(len(e.b))
	}
	enc.u32(crc32.Checksum(head.b, castagnoli))
	w := bufio.NewWriterSize(tmp, 1<<20)
	if _, err := w.Write(head.b); err != nil {
		return err
	}
	// The kept rows are read from the mapping of the old file.
	if !readMapped(func() {
		for _, i := range order {
			if _, err = w.Write(payload[i].b); err != nil {
				return
			}
		}
	}) {
		t.mapFault.Store(true)
		return errors.New("the cache file changed on disk while smrl had it open (truncated or rewritten in place); nothing saved, the next run rebuilds the rows")
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// encBuffer collects an encoder's bytes.
type encBuffer struct{ b []byte }

func (e *encBuffer) Write(p []byte) (int, error) {
	e.b = append(e.b, p...)
	return len(p), nil
}

// loadFile indexes the rows of the cache file at path for the empty table
// t, after checking its header and index (format, key, checksum, bounds);
// it reports whether they checked out. The rows are checked and decoded one
// by one as they are first needed (cachedRow), by whichever goroutine needs
// them. A rejected file is unmapped at once, a loaded one when t becomes
// unreachable: only t.cached refers to the mapping (decoded rows are
// copies), and the methods that read it keep t alive while they do.
func (t *Table) loadFile(path, key string) (ok bool) {
	data, err := mapFile(path)
	if err != nil {
		return false
	}
	defer func() {
		if ok {
			runtime.AddCleanup(t, unmapFile, data)
		} else {
			unmapFile(data)
		}
	}()
	if !readMapped(func() { ok = t.index(data, key) }) {
		return false
	}
	return ok
}

// index checks the header and index of the mapped cache file data and
// fills t.cached; it reports whether they checked out.
func (t *Table) index(data []byte, key string) bool {
	dec := decoder{b: data}
	var magic [8]byte
	dec.bytes(magic[:])
	if dec.err != nil || magic != tableMagic || dec.u32() != tableFormat || dec.str() != key {
		return false
	}
	n := int(dec.u32())
	if dec.err != nil || n < 0 || n > dec.left()/indexEntryBytes {
		return false
	}
	cached := make(map[int]cachedEntry, n)
	for range n {
		i, off, length, crc := int(int64(dec.u64())), dec.u64(), uint64(dec.u32()), dec.u32()
		if dec.err != nil || off > uint64(len(data)) || length > uint64(len(data))-off {
			return false
		}
		cached[i] = cachedEntry{b: data[off : off+length], crc: crc}
	}
	headLen := dec.off
	if sum := dec.u32(); dec.err != nil || crc32.Checksum(data[:headLen], castagnoli) != sum {
		return false
	}
	t.cached = cached
	return true
}

// cachedRow checks and decodes row i from the cache file, or returns nil
// when the file does not hold it, its checksum fails or it does not decode.
func (t *Table) cachedRow(i int) (r *tableRow) {
	defer runtime.KeepAlive(t) // e.b is in t's mapping
	e, ok := t.cached[i]
	if !ok || t.mapFault.Load() {
		return nil
	}
	if !readMapped(func() {
		if crc32.Checksum(e.b, castagnoli) == e.crc {
			r = decodeRow(e.b) // a copy: nothing of the row refers to the mapping
		}
	}) {
		t.mapFault.Store(true)
		return nil
	}
	return r
}

// decodeRow decodes an encoded row, or returns nil when it does not decode
// (short, too long, or inconsistent: see decode).
func decodeRow(b []byte) *tableRow {
	r := new(tableRow)
	d := decoder{b: b}
	r.decode(&d)
	if d.err != nil || d.left() != 0 {
		return nil
	}
	return r
}

// encode and decode write and read every field of a row.
func (r *tableRow) encode(e *encoder) {
	if r.err != nil {
		e.u32(1)
		e.str(r.err.Error())
		return
	}
	e.u32(0)
	e.f64s(r.logZ, r.mean, r.vari, r.meanX, r.covXPsi)
	for j := range r.node {
		e.f64s(r.node[j][0], r.node[j][1])
	}
	e.f64s(r.lo[:]...)
	e.f64s(r.hi[:]...)
	for _, x := range r.ref {
		e.u16(uint16(x))
	}
	e.u32(uint32(len(r.sub)))
	e.f64s(r.sub...)
}

func (r *tableRow) decode(d *decoder) {
	if d.u32() != 0 {
		r.err = errors.New(d.str())
		return
	}
	r.logZ, r.mean, r.vari, r.meanX, r.covXPsi = d.f64(), d.f64(), d.f64(), d.f64(), d.f64()
	d.float64s(unsafe.Slice(&r.node[0][0], 2*len(r.node)))
	d.float64s(r.lo[:])
	d.float64s(r.hi[:])
	for j := range r.ref {
		r.ref[j] = int16(d.u16())
	}
	// sub is whole blocks of TableSubCells+1 quantiles and as many slopes.
	const blk = 2 * (TableSubCells + 1)
	n := int(d.u32())
	if n > TableCells*blk || n%blk != 0 || d.err != nil {
		d.err = errors.New("row: refined cells out of range")
		return
	}
	if n > 0 {
		r.sub = make([]float64, n)
	}
	d.float64s(r.sub)
	if d.err != nil {
		return
	}
	// A cell is refined (the sign bit of its slope) exactly when it has a
	// block, and its block exists: refs point into sub.
	for j, x := range r.ref {
		if x < 0 || int(x)*blk > len(r.sub) || math.Signbit(r.node[j][1]) != (x > 0) {
			d.err = errors.New("row: refined cell outside its data")
			return
		}
	}
	// Every value of a row is finite.
	if !allFinite(r.logZ, r.mean, r.vari, r.meanX, r.covXPsi) || !allFinite(unsafe.Slice(&r.node[0][0], 2*len(r.node))...) ||
		!allFinite(r.lo[:]...) || !allFinite(r.hi[:]...) || !allFinite(r.sub...) {
		d.err = errors.New("row: a value is not finite")
	}
}

// allFinite reports whether every x is finite (its exponent is not all
// ones).
func allFinite(xs ...float64) bool {
	const exp = 0x7ff << 52
	for _, x := range xs {
		if math.Float64bits(x)&exp == exp {
			return false
		}
	}
	return true
}

// encoder writes little-endian values, keeping the first error.
type encoder struct {
	w   io.Writer
	buf [8]byte
	err error
}

func (e *encoder) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}
func (e *encoder) u16(v uint16) { binary.LittleEndian.PutUint16(e.buf[:2], v); e.bytes(e.buf[:2]) }
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:4], v); e.bytes(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:8], v); e.bytes(e.buf[:8]) }
func (e *encoder) str(s string) { e.u32(uint32(len(s))); e.bytes([]byte(s)) }
func (e *encoder) f64s(xs ...float64) {
	for _, x := range xs {
		e.u64(math.Float64bits(x))
	}
}

// decoder reads what encoder writes from a byte slice, keeping the first
// error (then every value reads as zero).
//
// It reads at an offset into b rather than re-slicing b: a read then writes
// no pointer, so decoding a row costs no garbage-collector write barrier
// per value when a collection runs meanwhile (hundreds per row).
type decoder struct {
	b   []byte
	off int // bytes of b read so far
	err error
}

// left returns the number of bytes not yet read.
func (d *decoder) left() int { return len(d.b) - d.off }

// next returns the next n bytes, or nil (and records an error) past the end.
func (d *decoder) next(n int) []byte {
	if d.err != nil || n > d.left() {
		if d.err == nil {
			d.err = io.ErrUnexpectedEOF
		}
		return nil
	}
	v := d.b[d.off : d.off+n]
	d.off += n
	return v
}

func (d *decoder) bytes(b []byte) {
	if v := d.next(len(b)); v != nil {
		copy(b, v)
	} else {
		clear(b)
	}
}
func (d *decoder) u16() uint16 {
	if v := d.next(2); v != nil {
		return binary.LittleEndian.Uint16(v)
	}
	return 0
}
func (d *decoder) u32() uint32 {
	if v := d.next(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}
func (d *decoder) u64() uint64 {
	if v := d.next(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}
func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

// littleEndian reports whether float64s in memory have the file's byte
// order, so that float64s can copy them in bulk.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// float64s reads len(dst) little-endian float64s into dst.
func (d *decoder) float64s(dst []float64) {
	b := d.next(8 * len(dst))
	switch {
	case b == nil:
		clear(dst)
	case littleEndian:
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 8*len(dst)), b)
	default:
		for i := range dst {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
}
func (d *decoder) str() string {
	n := int(d.u32())
	if v := d.next(n); v != nil {
		return string(v)
	}
	return ""
}
