package fsutil

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// Cells hold what smrl writes: a finite decimal number, or an empty cell
// for NaN where the column allows it. Anything else names the file, line
// and column.
func TestCellFloat(t *testing.T) {
	for _, tc := range []struct {
		text     string
		optional bool
		want     float64 // NaN: want NaN
		errHas   string  // "" : no error
	}{
		{text: "1.5", want: 1.5},
		{text: "-0.25", want: -0.25},
		{text: "1e-07", want: 1e-07},
		{text: "2.5E+10", want: 2.5e10},
		{text: "0", want: 0},
		{text: "", optional: true, want: math.NaN()},
		{text: "", errHas: "empty cell, want a number"},
		{text: "NaN", optional: true, errHas: `"NaN" is not a finite number`},
		{text: "nan", optional: true, errHas: `"nan" is not a finite number`},
		{text: "Inf", errHas: `"Inf" is not a finite number`},
		{text: "+Inf", errHas: `"+Inf" is not a finite number`},
		{text: "-Inf", errHas: `"-Inf" is not a finite number`},
		{text: "-infinity", errHas: `"-infinity" is not a finite number`},
		{text: "1e999", errHas: `"1e999" is too large`},
		{text: "0x1p-2", errHas: `"0x1p-2" is not a number`},
		{text: "1_000", errHas: `"1_000" is not a number`},
		{text: "abc", errHas: `"abc" is not a number`},
		{text: "1.2.3", errHas: `"1.2.3" is not a number`},
		{text: " 1", errHas: `" 1" is not a number`},
	} {
		c := Cell{Path: "dir/f.csv", Line: 3, Column: 7, Name: "cum_reward_lo", Text: tc.text}
		got, err := c.Float(tc.optional)
		if tc.errHas == "" {
			if err != nil || !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("%q: got %v, %v; want %v", tc.text, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, errs.ErrInvalidInput) {
			t.Errorf("%q: err = %v, want invalid input", tc.text, err)
			continue
		}
		for _, s := range []string{"dir/f.csv line 3, column 7 (cum_reward_lo): ", tc.errHas} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%q: err %q lacks %q", tc.text, err, s)
			}
		}
	}
}

func TestCellInt(t *testing.T) {
	for _, tc := range []struct {
		text   string
		lo, hi int
		want   int
		errHas string
	}{
		{text: "3", lo: 1, hi: 5, want: 3},
		{text: "0", lo: 0, hi: math.MaxInt, want: 0},
		{text: "2", lo: 2, hi: 2, want: 2},
		{text: "999", lo: 2, hi: 2, errHas: "999 is out of range [2, 2]"},
		{text: "-5", lo: 1, hi: 3, errHas: "-5 is out of range [1, 3]"},
		{text: "-1", lo: 0, hi: math.MaxInt, errHas: "-1 is less than 0"},
		{text: "1.5", lo: 0, hi: 9, errHas: `"1.5" is not an integer`},
		{text: "NaN", lo: 0, hi: 9, errHas: `"NaN" is not an integer`},
		{text: "", lo: 0, hi: 9, errHas: "empty cell, want an integer"},
	} {
		c := Cell{Path: "f.csv", Line: 2, Column: 4, Name: "seeds", Text: tc.text}
		got, err := c.Int(tc.lo, tc.hi)
		if tc.errHas == "" {
			if err != nil || got != tc.want {
				t.Errorf("%q: got %d, %v; want %d", tc.text, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "f.csv line 2, column 4 (seeds): "+tc.errHas) {
			t.Errorf("%q: err = %v, want one naming the cell and %q", tc.text, err, tc.errHas)
		}
	}
}
