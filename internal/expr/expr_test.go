package expr

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// hand lists every function with its hand-derived first and second
// derivatives in x.
var hand = []struct {
	src       string
	f, d1, d2 func(x float64) float64
	xs        []float64
}{
	{"sin(2*x)", func(x float64) float64 { return math.Sin(2 * x) }, func(x float64) float64 { return 2 * math.Cos(2*x) }, func(x float64) float64 { return -4 * math.Sin(2*x) }, []float64{-1.3, 0, 0.4, 2}},
	{"cos(x)", math.Cos, func(x float64) float64 { return -math.Sin(x) }, func(x float64) float64 { return -math.Cos(x) }, []float64{-1.3, 0, 0.4, 2}},
	{"tan(x)", math.Tan, func(x float64) float64 { return 1 / (math.Cos(x) * math.Cos(x)) }, func(x float64) float64 { return 2 * math.Tan(x) / (math.Cos(x) * math.Cos(x)) }, []float64{-1.3, 0, 0.4}},
	{"exp(x/2)", func(x float64) float64 { return math.Exp(x / 2) }, func(x float64) float64 { return math.Exp(x/2) / 2 }, func(x float64) float64 { return math.Exp(x/2) / 4 }, []float64{-1.3, 0, 0.4, 2}},
	{"log(x)", math.Log, func(x float64) float64 { return 1 / x }, func(x float64) float64 { return -1 / (x * x) }, []float64{0.1, 1, 3.5}},
	{"log1p(x)", math.Log1p, func(x float64) float64 { return 1 / (1 + x) }, func(x float64) float64 { return -1 / ((1 + x) * (1 + x)) }, []float64{-0.5, 0, 3.5}},
	{"sqrt(x)", math.Sqrt, func(x float64) float64 { return 0.5 / math.Sqrt(x) }, func(x float64) float64 { return -0.25 / (x * math.Sqrt(x)) }, []float64{0.1, 1, 3.5}},
	{"abs(x)", math.Abs, func(x float64) float64 { return sign(x) }, func(float64) float64 { return 0 }, []float64{-2, -0.1, 0, 0.1, 2}},
	{"tanh(x)", math.Tanh, func(x float64) float64 { return 1 - math.Tanh(x)*math.Tanh(x) }, func(x float64) float64 { t := math.Tanh(x); return -2 * t * (1 - t*t) }, []float64{-1.3, 0, 0.4, 2}},
	{"sigmoid(x)", func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, func(x float64) float64 { s := 1 / (1 + math.Exp(-x)); return s * (1 - s) }, func(x float64) float64 { s := 1 / (1 + math.Exp(-x)); return s * (1 - s) * (1 - 2*s) }, []float64{-30, -1.3, 0, 0.4, 2}},
	{"relu(x)", func(x float64) float64 { return math.Max(x, 0) }, func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return 0
		}
		return 0.5
	}, func(float64) float64 { return 0 }, []float64{-2, 0, 2}},
	{"sign(x)", sign, func(float64) float64 { return 0 }, func(float64) float64 { return 0 }, []float64{-2, 0, 2}},
	{"min(x, 1-x)", func(x float64) float64 { return math.Min(x, 1-x) }, func(x float64) float64 {
		switch {
		case x < 0.5:
			return 1
		case x > 0.5:
			return -1
		}
		return 0
	}, func(float64) float64 { return 0 }, []float64{0, 0.5, 1}},
	{"max(x^2, 1)", func(x float64) float64 { return math.Max(x*x, 1) }, func(x float64) float64 {
		if math.Abs(x) > 1 {
			return 2 * x
		}
		return 0
	}, func(x float64) float64 {
		if math.Abs(x) > 1 {
			return 2
		}
		return 0
	}, []float64{-2, 0, 0.5, 2}},
	{"pow(x, 3)", func(x float64) float64 { return x * x * x }, func(x float64) float64 { return 3 * x * x }, func(x float64) float64 { return 6 * x }, []float64{-2, 0, 1.5}},
	{"x^2.5", func(x float64) float64 { return math.Pow(x, 2.5) }, func(x float64) float64 { return 2.5 * math.Pow(x, 1.5) }, func(x float64) float64 { return 3.75 * math.Sqrt(x) }, []float64{0.3, 1, 2}},
	{"x^x", func(x float64) float64 { return math.Pow(x, x) }, func(x float64) float64 { return math.Pow(x, x) * (math.Log(x) + 1) }, func(x float64) float64 {
		l := math.Log(x) + 1
		return math.Pow(x, x) * (l*l + 1/x)
	}, []float64{0.3, 1, 2}},
	{"2^x", func(x float64) float64 { return math.Pow(2, x) }, func(x float64) float64 { return math.Pow(2, x) * math.Ln2 }, func(x float64) float64 { return math.Pow(2, x) * math.Ln2 * math.Ln2 }, []float64{-1, 0, 2}},
	{"1/x", func(x float64) float64 { return 1 / x }, func(x float64) float64 { return -1 / (x * x) }, func(x float64) float64 { return 2 / (x * x * x) }, []float64{-2, 0.5, 3}},
	{"x/(1+x^2)", func(x float64) float64 { return x / (1 + x*x) }, func(x float64) float64 { return (1 - x*x) / ((1 + x*x) * (1 + x*x)) }, func(x float64) float64 {
		return 2 * x * (x*x - 3) / math.Pow(1+x*x, 3)
	}, []float64{-2, 0, 0.5, 3}},
	{"x*sin(x)", func(x float64) float64 { return x * math.Sin(x) }, func(x float64) float64 { return math.Sin(x) + x*math.Cos(x) }, func(x float64) float64 { return 2*math.Cos(x) - x*math.Sin(x) }, []float64{-2, 0, 0.5, 3}},
	{"-abs(x)^1.7/1.7", func(x float64) float64 { return -math.Pow(math.Abs(x), 1.7) / 1.7 }, func(x float64) float64 { return -sign(x) * math.Pow(math.Abs(x), 0.7) }, func(x float64) float64 {
		if x == 0 {
			return 0
		}
		return -0.7 * math.Pow(math.Abs(x), -0.3)
	}, []float64{-2, -0.3, 0, 0.5, 3}},
	{"x^4/4 - x^3 + x - 7", func(x float64) float64 { return x*x*x*x/4 - x*x*x + x - 7 }, func(x float64) float64 { return x*x*x - 3*x*x + 1 }, func(x float64) float64 { return 3*x*x - 6*x }, []float64{-2, 0, 0.5, 3}},
	{"-(x-pi)^2 * e", func(x float64) float64 { return -(x - math.Pi) * (x - math.Pi) * math.E }, func(x float64) float64 { return -2 * (x - math.Pi) * math.E }, func(float64) float64 { return -2 * math.E }, []float64{-2, 0, 3}},
}

func close(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func TestDerivativesByHand(t *testing.T) {
	for _, c := range hand {
		p := MustCompile(c.src, "x")
		for _, x := range c.xs {
			v, d, dd := p.EvalD([]float64{x}, 0)
			if !close(v, c.f(x), 1e-14) || !close(d, c.d1(x), 1e-14) || !close(dd, c.d2(x), 1e-13) {
				t.Errorf("%s at %g: got (%g, %g, %g), want (%g, %g, %g)", c.src, x, v, d, dd, c.f(x), c.d1(x), c.d2(x))
			}
			if e := p.Eval([]float64{x}); e != v {
				t.Errorf("%s at %g: Eval %g, EvalD %g", c.src, x, e, v)
			}
		}
	}
}

// TestDerivativesByFiniteDifferences checks every function's first and
// second derivatives against central differences of the value (step h:
// errors O(h²) ≈ 1e-8 plus rounding eps/h ≈ 1e-12 for f', eps/h² ≈ 1e-8
// for f”), away from kinks.
func TestDerivativesByFiniteDifferences(t *testing.T) {
	const h = 1e-4
	for _, c := range hand {
		p := MustCompile(c.src, "x")
		for _, x := range c.xs {
			if len(MustParse(c.src).Kinks(0)) > 0 || c.src == "sign(x)" {
				continue
			}
			_, d, dd := p.EvalD([]float64{x}, 0)
			f := func(x float64) float64 { return p.Eval([]float64{x}) }
			fd := (f(x+h) - f(x-h)) / (2 * h)
			fdd := (f(x+h) - 2*f(x) + f(x-h)) / (h * h)
			if !close(d, fd, 1e-6) || !close(dd, fdd, 1e-4) {
				t.Errorf("%s at %g: derivatives (%g, %g), finite differences (%g, %g)", c.src, x, d, dd, fd, fdd)
			}
		}
	}
}

func MustParse(src string) *Expr {
	e, err := Parse(src, []string{"x"})
	if err != nil {
		panic(err)
	}
	return e
}

// TestKinkSides checks one-sided derivatives at kinks against the
// derivative just beside them.
func TestKinkSides(t *testing.T) {
	for _, src := range []string{"abs(x)", "relu(x)", "relu(1-2*x)", "min(x, 1-x)", "max(3*x, x)", "abs(-x)*x + relu(x)", "max(x, 0.5*x) - min(-x, x/3)"} {
		e := MustParse(src)
		p := e.Compile()
		ks := e.Kinks(0)
		if len(ks) == 0 {
			t.Fatalf("%s: no kink found", src)
		}
		for _, k := range ks {
			_, dl, _ := p.EvalSide([]float64{k}, 0, -1)
			_, dr, _ := p.EvalSide([]float64{k}, 0, +1)
			_, dm, _ := p.EvalD([]float64{k}, 0)
			_, wl, _ := p.EvalD([]float64{k - 1e-9}, 0)
			_, wr, _ := p.EvalD([]float64{k + 1e-9}, 0)
			if !close(dl, wl, 1e-8) || !close(dr, wr, 1e-8) || !close(dm, (wl+wr)/2, 1e-8) {
				t.Errorf("%s at kink %g: sides (%g, %g, mean %g), beside (%g, %g)", src, k, dl, dr, dm, wl, wr)
			}
		}
	}
}

func TestKinksFound(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []float64
	}{
		{"-abs(x)^1.7/1.7", []float64{0}},
		{"relu(2*x - 1) + abs(x + 3) + max(x, 2)", []float64{-3, 0.5, 2}},
		{"abs(x^2 - 1)", nil},
		{"sin(x)", nil},
	} {
		got := MustParse(c.src).Kinks(0)
		if len(got) != len(c.want) {
			t.Errorf("%s: kinks %v, want %v", c.src, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] || (got[i] == 0 && math.Signbit(got[i])) {
				t.Errorf("%s: kinks %v, want %v", c.src, got, c.want)
			}
		}
	}
}

func TestBounded(t *testing.T) {
	for src, want := range map[string]bool{
		"sin(4*x)": true, "exp(sin(x))": true, "tanh(x)^2 + sigmoid(x)": true, "x": false,
		"x*sin(x)": false, "1/(1+x^2)": false, "sin(x)^0.5": false, "x > 1": true, "max(sin(x), cos(x))": true,
	} {
		if got := MustParse(src).Bounded(); got != want {
			t.Errorf("%s: Bounded %v, want %v", src, got, want)
		}
	}
}

func TestEvalValues(t *testing.T) {
	vars := []string{"s0", "s1", "a0"}
	x := []float64{1.5, -2, 0.25}
	for src, want := range map[string]float64{
		"s0 + s1*a0":                         1.5 - 0.5,
		"-s0^2":                              -2.25,
		"2^-1":                               0.5,
		"2^3^2":                              512,
		"(s0 > 1) && (s1 < -3 || a0 == .25)": 1,
		"!(s0 >= 1.5)":                       0,
		"s0 != s1":                           1,
		"s0 <= -1 || s1 > 0":                 0,
		"1e-2 * 3E2":                         3,
		"min(s0, s1) + max(s0, a0)":          -0.5,
		"exp(log(s0))":                       1.5,
		"+s0 - -s1":                          -0.5,
	} {
		e, err := Parse(src, vars)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := e.Compile().Eval(x); !close(got, want, 1e-15) {
			t.Errorf("%s = %g, want %g", src, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		col  int
		frag string
	}{
		{"", 1, "empty"},
		{"y", 1, `unknown name "y"`},
		{"sin(4*y)", 7, `unknown name "y"`},
		{"sin(x", 6, `expected "," or ")"`},
		{"(x", 3, `expected ")"`},
		{"x +", 4, "expected a number"},
		{"x $ 2", 3, "unexpected character"},
		{"x 2", 3, "unexpected number 2"},
		{"foo(x)", 1, "unknown function"},
		{"sin(x, x)", 1, "takes 1 argument"},
		{"max(x)", 1, "takes 2 arguments"},
		{"sin", 1, "parentheses"},
		{"x > 1 + (x < 2)", 7, "needs a number"},
		{"x && 1", 3, "needs a comparison"},
		{"!x", 1, "needs a comparison"},
		{"1 < x < 2", 7, "do not chain"},
		{"1.2.3", 1, "malformed number"},
		{"1e999", 1, `"1e999" is out of range: too large for a float64`},
		{"x + 1e-400", 5, `"1e-400" is out of range: too small for a float64 (it would be 0)`},
		{"x*0.000e-999 + 2.5E-400", 16, `"2.5E-400" is out of range: too small for a float64 (it would be 0)`},
		{"sin(x) é", 8, "unexpected character"},
		{strings.Repeat("(", 100) + "x" + strings.Repeat(")", 100), 0, "nested more than"},
		{strings.Repeat("x+", MaxLen/2) + "x", 1, "longer than"},
		{strings.Repeat("ψ", MaxLen), 1, "longer than"},
	} {
		_, err := Parse(c.src, []string{"x"})
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: error %v, want a ParseError", c.src, err)
			continue
		}
		if (c.col != 0 && pe.Column != c.col) || !strings.Contains(pe.Msg, c.frag) || !strings.Contains(err.Error(), "column") {
			t.Errorf("%q: %v (column %d), want column %d and %q", c.src, err, pe.Column, c.col, c.frag)
		}
		// The message quotes a source too long to parse only in part.
		if msg := err.Error(); len(c.src) > MaxLen && (len(msg) > 200 || !utf8.ValidString(msg)) {
			t.Errorf("%.40q…: error of %d bytes (valid UTF-8 %v), want at most 200", c.src, len(msg), utf8.ValidString(msg))
		}
	}
}

func TestLongTapeUsesPool(t *testing.T) {
	src := "x" + strings.Repeat(" + sin(x)", 40)
	p := MustCompile(src, "x")
	if p.Len() <= MaxStackSlots {
		t.Fatalf("tape of %d slots, want more than %d", p.Len(), MaxStackSlots)
	}
	v, d, dd := p.EvalD([]float64{0.3}, 0)
	if !close(v, 0.3+40*math.Sin(0.3), 1e-14) || !close(d, 1+40*math.Cos(0.3), 1e-14) || !close(dd, -40*math.Sin(0.3), 1e-14) {
		t.Errorf("got (%g, %g, %g)", v, d, dd)
	}
	if a := testing.AllocsPerRun(100, func() { p.EvalD([]float64{0.3}, 0) }); a != 0 {
		t.Errorf("EvalD allocates %v times", a)
	}
}

// TestNoAllocation: every way of evaluating allocates nothing, for a tape
// of each of the three stack sizes and one on the pool.
func TestNoAllocation(t *testing.T) {
	x, y := []float64{0.7}, []float64{-0.2}
	for _, src := range []string{
		"sin(4*x)",
		"-abs(x)^1.7/1.7 + sin(4*x)*y + cos(x*y)^2",
		"x" + strings.Repeat(" + sin(x*y)", 10),
		"x" + strings.Repeat(" + sin(x*y)", 30),
	} {
		p := MustCompile(src, "x", "y")
		xy := []float64{x[0], y[0]}
		if a := testing.AllocsPerRun(100, func() {
			p.EvalD(xy, 0)
			p.EvalSide(xy, 1, -1)
			p.Eval(xy)
			p.Eval2(x, y)
		}); a != 0 {
			t.Errorf("%d slots: allocates %v times per evaluation", p.Len(), a)
		}
	}
}

func TestConstantFolding(t *testing.T) {
	p := MustCompile("2*pi/4 + sin(0)", "x")
	if c, ok := p.Const(); !ok || c != math.Pi/2 {
		t.Errorf("Const = %v, %v; want pi/2", c, ok)
	}
	if _, ok := MustCompile("x*0", "x").Const(); ok {
		t.Error("x*0 folded to a constant (it is NaN at x = inf)")
	}
}

func TestUses(t *testing.T) {
	e, _ := Parse("s0 + a0", []string{"s0", "s1", "a0"})
	if !e.Uses(0) || e.Uses(1) || !e.Uses(2) {
		t.Error("Uses wrong")
	}
}

func TestEval2(t *testing.T) {
	e, err := Parse("s0*a1 - s1 + a0", []string{"s0", "s1", "a0", "a1"})
	if err != nil {
		t.Fatal(err)
	}
	p := e.Compile()
	s, a := []float64{2, 3}, []float64{5, 7}
	if got, want := p.Eval2(s, a), p.Eval([]float64{2, 3, 5, 7}); got != want || got != 16 {
		t.Errorf("Eval2 = %g, Eval = %g, want 16", got, want)
	}
}

// A kink primitive whose argument is stationary at its kink (u = u' = 0)
// keeps the sign of u” on both sides, so the expression is the smooth
// function it equals there: abs(x²) = x² has second derivative 2 at 0 (the
// per-primitive mean gave 0), max(x², 0) = x² too (it gave 1). Checked
// against the exact values and central differences, with either side.
func TestKinkStationaryArgument(t *testing.T) {
	const h = 1e-3
	for _, c := range []struct {
		src   string
		d, dd float64 // at 0
	}{
		{"abs(x^2)", 0, 2}, {"abs(-x^2)", 0, 2}, {"relu(x^2)", 0, 2}, {"relu(-x^2)", 0, 0},
		{"max(x^2, 0)", 0, 2}, {"min(-x^2, 0)", 0, -2}, {"max(0, x^2)", 0, 2}, {"min(0, -x^2)", 0, -2},
		{"max(x^2, -x^2)", 0, 2}, {"abs(x^2)*2", 0, 4}, {"3*abs(x^2) + x", 1, 6},
	} {
		p := MustCompile(c.src, "x")
		f := func(x float64) float64 { return p.Eval([]float64{x}) }
		fdd := (f(h) - 2*f(0) + f(-h)) / (h * h)
		if !close(fdd, c.dd, 1e-6) {
			t.Fatalf("%s: central difference %g, the test's %g", c.src, fdd, c.dd)
		}
		for _, side := range []float64{-1, 0, 1} {
			if _, d, dd := p.EvalSide([]float64{0}, 0, side); d != c.d || !close(dd, c.dd, 1e-12) {
				t.Errorf("%s at 0, side %g: derivatives (%g, %g), want (%g, %g)", c.src, side, d, dd, c.d, c.dd)
			}
		}
	}
}

// One-sided derivatives at a kink (EvalSide ±1) are the one-sided limits
// of the composed expression, checked by one-sided differences of the
// value; EvalD takes each primitive's mean separately, which for an
// expression nonlinear in the primitive is not the mean of those limits
// (docs/expressions.md): relu(x)^2 has f” = 0.5 at 0, not (0 + 2)/2, and
// abs(x)^0.5 has f' = 0 where the one-sided limits are ∓Inf.
func TestKinkOneSidedLimits(t *testing.T) {
	const h = 1e-4
	for _, src := range []string{"relu(x)^2", "exp(relu(x))", "abs(x)*x", "max(x, 2*x)^2", "abs(x - 0.5)^3 + relu(x - 0.5)", "min(x, -x)*sin(x)"} {
		p := MustCompile(src, "x")
		for _, k := range MustParse(src).Kinks(0) {
			for _, side := range []float64{-1, 1} {
				f := func(i float64) float64 { return p.Eval([]float64{k + side*i*h}) }
				// Second-order one-sided differences (errors O(h²)).
				fd := side * (-3*f(0) + 4*f(1) - f(2)) / (2 * h)
				fdd := (2*f(0) - 5*f(1) + 4*f(2) - f(3)) / (h * h)
				_, d, dd := p.EvalSide([]float64{k}, 0, side)
				if !close(d, fd, 1e-6) || !close(dd, fdd, 1e-3) {
					t.Errorf("%s at %g, side %g: (%g, %g), one-sided differences (%g, %g)", src, k, side, d, dd, fd, fdd)
				}
			}
		}
	}
	// The table of docs/expressions.md: the tape's value at 0 and the
	// one-sided ones, of f” (second) or f'.
	for _, c := range []struct {
		src               string
		second            bool
		tape, left, right float64
	}{
		{"relu(x)^2", true, 0.5, 0, 2},
		{"exp(relu(x))", true, 0.25, 0, 1},
		{"relu(relu(x))", false, 0.25, 0, 1},
		{"abs(x)^0.5", false, 0, math.Inf(-1), math.Inf(1)},
	} {
		p := MustCompile(c.src, "x")
		var v [3]float64
		for i, side := range []float64{0, -1, 1} {
			_, d, dd := p.EvalSide([]float64{0}, 0, side)
			v[i] = d
			if c.second {
				v[i] = dd
			}
		}
		if v != [3]float64{c.tape, c.left, c.right} {
			t.Errorf("%s at 0: tape %g, sides %g and %g; want %g, %g and %g", c.src, v[0], v[1], v[2], c.tape, c.left, c.right)
		}
	}
}

// Cond reads a boolean expression as a condition: a comparison with a NaN
// operand is undefined, whether < says false or != says true.
func TestCondUndefinedAtNaN(t *testing.T) {
	for _, c := range []struct {
		src            string
		x              float64
		holds, defined bool
	}{
		{"log(x) > 0", 2, true, true},
		{"log(x) > 0", 0.5, false, true},
		{"log(x) > 0", -1, false, false},
		{"log(x) != 0", -1, false, false},
		{"x < 1 || log(x) < 0", -1, false, false}, // undefined even where the other side holds
		{"!(sqrt(x) >= 1)", 4, false, true},
	} {
		p := MustCompile(c.src, "x")
		holds, defined := p.Cond([]float64{c.x})
		if holds != c.holds || defined != c.defined {
			t.Errorf("%s at x = %v: (holds, defined) = (%v, %v), want (%v, %v)", c.src, c.x, holds, defined, c.holds, c.defined)
		}
	}
}
