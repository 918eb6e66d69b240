package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/fsutil"
)

// Write writes t to w in the format described in the package documentation:
// the header given by Header, then one line per transition, each number
// formatted by strconv.FormatFloat(v, 'g', -1, 64) so that Read gives back
// exactly the same values.
//
// Write checks t before writing anything. It returns an error, and writes
// nothing, if t is nil, its dimensions are not positive, its slices have
// inconsistent lengths, it holds no transitions (Read would reject the file)
// or a value is NaN or ±Inf. These errors describe a program's data, not
// user input, and do not wrap errs.ErrInvalidInput. Errors from w are
// returned unchanged.
func Write(w io.Writer, t *Transitions) error {
	if err := check(t); err != nil {
		return err
	}
	const chunk = 64 << 10
	buf := make([]byte, 0, chunk+1024)
	buf = append(buf, strings.Join(Header(t.StateDim, t.ActionDim), ",")...)
	buf = append(buf, '\n')
	for i := range t.Len() {
		buf = appendRow(buf, t.State(i))
		buf = append(buf, ',')
		buf = appendRow(buf, t.Action(i))
		buf = append(buf, ',')
		buf = appendRow(buf, t.NextState(i))
		buf = append(buf, '\n')
		if len(buf) >= chunk {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// appendRow appends the comma-separated values of x to buf.
func appendRow(buf []byte, x []float64) []byte {
	for j, v := range x {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
	}
	return buf
}

// check returns an error if t cannot be written as a valid data file.
func check(t *Transitions) error {
	if t == nil {
		return errors.New("dataset: nil Transitions")
	}
	ds, da := t.StateDim, t.ActionDim
	if ds <= 0 || da <= 0 {
		return fmt.Errorf("dataset: invalid dimensions StateDim = %d, ActionDim = %d", ds, da)
	}
	// Divide rather than multiply, so that huge dimensions cannot overflow.
	n := len(t.S) / ds
	if len(t.S)%ds != 0 || len(t.A)%da != 0 || len(t.A)/da != n || len(t.Next) != len(t.S) {
		return fmt.Errorf("dataset: inconsistent lengths len(S) = %d, len(A) = %d, len(Next) = %d for StateDim = %d, ActionDim = %d",
			len(t.S), len(t.A), len(t.Next), ds, da)
	}
	if n == 0 {
		return errors.New("dataset: no transitions to write (a data file must hold at least one)")
	}
	for _, c := range [...]struct {
		name string
		x    []float64
		d    int
	}{{"S", t.S, ds}, {"A", t.A, da}, {"Next", t.Next, ds}} {
		for k, v := range c.x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("dataset: transition %d: %s[%d] is %v, which a data file cannot hold",
					k/c.d, c.name, k, v)
			}
		}
	}
	return nil
}

// WriteFile writes t to the file at path, as Write does, replacing the file
// if it exists.
//
// The write is atomic: the data go to a temporary file in the same
// directory, which is synced to disk and then renamed to path, so path is
// either left as it was or holds the complete new data set. On error the
// temporary file is removed. A new file gets permissions 0644; a replaced
// regular file keeps its permissions. If path is a symbolic link, the link
// itself is replaced.
func WriteFile(path string, t *Transitions) error {
	if err := check(t); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return fsutil.WriteAtomic(path, func(w io.Writer) error { return Write(w, t) })
}
