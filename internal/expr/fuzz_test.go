package expr

import (
	"errors"
	"math"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary text to the parser. It must never panic: it
// returns a ParseError naming a column inside the expression, or an
// expression that compiles and evaluates (with derivatives) without
// panicking, whose value Eval and EvalD agree on.
func FuzzParse(f *testing.F) {
	for _, c := range hand {
		f.Add(c.src)
	}
	for _, s := range []string{"s0 > 2 && !(a0 < 0) || x == 1", "min(max(x, -1), 1)", "pow(x, x)", "2^3^-x", ".5e-3*x", "((x", "sin(,)", "x >= = 1", "1/0", "log(-x)", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src, []string{"x", "a0"})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error %v is not a ParseError", src, err)
			}
			// Columns count characters, not bytes.
			if pe.Column < 1 || pe.Column > utf8.RuneCountInString(src)+1 {
				t.Fatalf("%q: column %d outside the expression", src, pe.Column)
			}
			return
		}
		p := e.Compile()
		for _, x := range []float64{-1.5, 0, 0.7, 3} {
			in := []float64{x, 0.25}
			v := p.Eval(in)
			w, _, _ := p.EvalD(in, 0)
			if v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Fatalf("%q at %g: Eval %v, EvalD %v", src, x, v, w)
			}
			if e.Bool() && v != 0 && v != 1 {
				t.Fatalf("%q at %g: boolean evaluates to %v", src, x, v)
			}
		}
		e.Kinks(0)
		e.Bounded()
	})
}
