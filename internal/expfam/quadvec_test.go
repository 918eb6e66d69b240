package expfam

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// scalarKernelLine is kernelLine as it was before vmath.Exps: one math.Exp
// per centre, the reference of TestKernelLineIsScalar.
type scalarKernelLine struct{ kernelLine }

func (l scalarKernelLine) Psi(u float64) float64 {
	x := l.f.Base * u
	var s float64
	for k, e := range l.eta {
		r := x - l.f.Z[k]
		s += e * math.Exp(-r*r*l.f.inv2s)
	}
	return s
}

func (l scalarKernelLine) DPsi(u float64) float64 {
	x := l.f.Base * u
	s2 := l.f.Sigma * l.f.Sigma
	var s float64
	for k, e := range l.eta {
		r := x - l.f.Z[k]
		s -= e * r / s2 * math.Exp(-r*r*l.f.inv2s)
	}
	return l.f.Base * s
}

func (l scalarKernelLine) D2Psi(u float64) float64 {
	x := l.f.Base * u
	s2 := l.f.Sigma * l.f.Sigma
	var s float64
	for k, e := range l.eta {
		r := x - l.f.Z[k]
		s += e * (r*r/(s2*s2) - 1/s2) * math.Exp(-r*r*l.f.inv2s)
	}
	return l.f.Base * l.f.Base * s
}

// scalarNewCDF is NewCDF as it was before its nodes' exps were evaluated by
// vmath.Exps: math.Exp node by node (and edge by edge), summed as it goes.
// The reference of TestIntegrateIsScalar.
func scalarNewCDF(f Scalar, eta float64) (*CDF, error) {
	lo, hi, lmax, curv, err := scalarSupport(f, eta)
	if err != nil {
		return nil, err
	}
	width := 0.05
	if w := 0.5 / math.Sqrt(curv); w < width {
		width = w
	}
	edges, err := panelEdges(f, lo, hi, width)
	if err != nil {
		return nil, err
	}
	m := len(edges) - 1
	c := &CDF{Eta: eta, edges: edges, cdf: make([]float64, m+1), dens: make([]float64, m+1),
		dl: make([]float64, m), dr: make([]float64, m)}
	nonPos := false
	if n, ok := f.(logQNonPositive); ok && quadSkip {
		nonPos = n.logQNonPositive()
	}
	le := make([]float64, m+1)
	for p := range edges {
		x := edges[p]
		psi := f.Psi(x)
		if u := eta*psi - lmax; nonPos && u < skipLog {
			le[p] = u
			continue
		}
		le[p] = f.LogQ(x) + eta*psi - lmax
	}
	var total, s1, s2, sx, sxpsi float64
	for p := 0; p < m; p++ {
		a, b := edges[p], edges[p+1]
		if quadSkip && le[p] < skipLog && le[p+1] < skipLog {
			c.cdf[p+1] = total
			continue
		}
		mid, half := 0.5*(a+b), 0.5*(b-a)
		var mass float64
		for k, t := range glNodes {
			x := mid + half*t
			psi := f.Psi(x)
			if nonPos && eta*psi-lmax < skipLog {
				continue
			}
			w := glWeights[k] * half * math.Exp(f.LogQ(x)+eta*psi-lmax)
			mass += w
			s1 += w * psi
			s2 += w * psi * psi
			sx += w * x
			sxpsi += w * x * psi
		}
		total += mass
		c.cdf[p+1] = total
	}
	for p := range edges {
		c.dens[p] = math.Exp(le[p]) / total
		c.cdf[p] /= total
	}
	c.cdf[m] = 1
	bq, _ := f.(dLogQBounder)
	if !quadSkip {
		bq = nil
	}
	for p := 0; p < m; p++ {
		a, b := edges[p], edges[p+1]
		eps := 1e-9 * (b - a)
		c.dl[p] = densSlope(f, bq, c.dens[p], a+eps, eta*f.DPsi(a))
		c.dr[p] = densSlope(f, bq, c.dens[p+1], b-eps, eta*f.DPsi(b))
	}
	c.LogZ = lmax + math.Log(total)
	c.Mean = s1 / total
	c.Variance = math.Max(s2/total-c.Mean*c.Mean, 0)
	c.MeanX = sx / total
	c.CovXPsi = sxpsi/total - c.MeanX*c.Mean
	return c, nil
}

// scalarSupport is support as it was before the scan's log-densities were
// kept for tighten and log q was evaluated over the scan by logQs.
func scalarSupport(f Scalar, eta float64) (lo, hi, lmax, curv float64, err error) {
	slo, shi := math.Inf(-1), math.Inf(1)
	if s, ok := f.(supported); ok {
		slo, shi = s.Support()
	}
	logd := func(x float64) float64 { return f.LogQ(x) + eta*f.Psi(x) }
	if !math.IsInf(slo, 0) && !math.IsInf(shi, 0) {
		step := math.Min(0.04, (shi-slo)/256)
		n := int(math.Ceil((shi - slo) / step))
		at := func(i int) float64 { return math.Min(slo+float64(i)*step, shi) }
		lmax = math.Inf(-1)
		for i := 0; i <= n; i++ {
			lmax = math.Max(lmax, logd(at(i)))
		}
		if math.IsNaN(lmax) || math.IsInf(lmax, 0) {
			return 0, 0, 0, 0, fmt.Errorf("%v at η = %g: %w (log-density %v on its support)", f, eta, ErrNotNormalisable, lmax)
		}
		lo, hi, curv = scalarTighten(logd, at, n, step, lmax)
		if !(lo <= hi) {
			return 0, 0, 0, 0, tooLarge(f, eta, lmax)
		}
		return math.Max(lo, slo), math.Min(hi, shi), lmax, curv, nil
	}
	const step = 0.04
	for r := 8.0; r <= 1024; r *= 2 {
		n := int(math.Round(2 * r / step))
		at := func(i int) float64 { return -r + float64(i)*step }
		lmax = math.Inf(-1)
		outer := math.Inf(-1)
		for i := 0; i <= n; i++ {
			x := at(i)
			l := logd(x)
			if l > lmax {
				lmax = l
			}
			if math.Abs(x) >= 0.75*r && l > outer {
				outer = l
			}
		}
		if math.IsNaN(lmax) || math.IsInf(lmax, 0) {
			break
		}
		if outer > lmax-logTail {
			continue
		}
		lo, hi, curv = scalarTighten(logd, at, n, step, lmax)
		if !(lo <= hi) {
			return 0, 0, 0, 0, tooLarge(f, eta, lmax)
		}
		return math.Max(lo, slo), math.Min(hi, shi), lmax, curv, nil
	}
	return 0, 0, 0, 0, fmt.Errorf("%v at η = %g: %w (log-density does not decay within |x| <= 1024)", f, eta, ErrNotNormalisable)
}

// scalarTighten is tighten as it was: the log-density evaluated again.
func scalarTighten(logd func(float64) float64, at func(int) float64, n int, step, lmax float64) (lo, hi, curv float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	curv = 1
	prev2, prev1 := math.NaN(), math.NaN()
	for i := 0; i <= n; i++ {
		x := at(i)
		l := logd(x)
		if l > lmax-logTail {
			if x < lo {
				lo = x
			}
			hi = x
			if !math.IsNaN(prev2) && !math.IsInf(prev2, 0) && !math.IsInf(prev1, 0) {
				if c := math.Abs(l-2*prev1+prev2) / (step * step); c > curv {
					curv = c
				}
			}
		}
		prev2, prev1 = prev1, l
	}
	return lo - step, hi + step, curv
}

// randomKernelLine is a 1-D kernel family of 1 to 13 centres (so every
// remainder of Exps's groups of four), at random η, both as the line
// NewCDF integrates and as its one-exp-per-centre reference.
func randomKernelLine(t *testing.T, rng *rand.Rand) (kernelLine, scalarKernelLine) {
	t.Helper()
	m := 1 + rng.IntN(13)
	z := make([]float64, m)
	eta := make([]float64, m)
	for k := range z {
		z[k] = 4*rng.Float64() - 2 + 1e-3*float64(k)
		eta[k] = 3 * rng.NormFloat64()
	}
	f, err := NewKernel(1, z, 0.05+rng.Float64(), 0.3+2*rng.Float64())
	if err != nil {
		t.Fatal(err)
	}
	l := kernelLine{f: f, eta: eta, buf: make([]float64, m)}
	return l, scalarKernelLine{kernelLine{f: f, eta: eta}}
}

// TestKernelLineIsScalar checks kernelLine's Psi, DPsi and D2Psi, whose m
// exps vmath.Exps evaluates, against the one-math.Exp-per-centre formula
// bit for bit (math.Float64bits), at random points and at the edge cases:
// exponents that underflow (to a denormal and to 0), huge and infinite
// points, NaN points and NaN or infinite η_k. A NaN result must be NaN in
// both, of any sign and payload: Go does not specify a NaN's bits, and the
// compiler may order the operands of a commutative product either way
// (amd64 passes on the first operand's NaN), so the reference itself gives
// −NaN or +NaN by its register allocation. With SMRL_NOSIMD=1 it checks the
// scalar fallback the same way.
func TestKernelLineIsScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 5))
	edge := []float64{0, math.Copysign(0, -1), 1e-300, 5e-324, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), 26, -26, 38.5, 1e8}
	for trial := range 200 {
		l, ref := randomKernelLine(t, rng)
		if trial%10 == 9 {
			l.eta[rng.IntN(len(l.eta))] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e308}[trial/10%4]
		}
		us := append([]float64(nil), edge...)
		for range 40 {
			us = append(us, 8*rng.NormFloat64())
		}
		// Points where some exponent lies in exp's denormal range
		// (−745 < −r²/(2σ²) < −708) and just past its underflow.
		for _, a := range []float64{-710, -740, -745.2, -800} {
			r := math.Sqrt(-a / l.f.inv2s)
			us = append(us, (l.f.Z[0]+r)/l.f.Base, (l.f.Z[0]-r)/l.f.Base)
		}
		for _, u := range us {
			got := []float64{l.Psi(u), l.DPsi(u), l.D2Psi(u)}
			want := []float64{ref.Psi(u), ref.DPsi(u), ref.D2Psi(u)}
			if !sameBitsOrNaNs(got, want) {
				t.Fatalf("%v, η %v, u = %v: (Psi, DPsi, D2Psi) = %v (bits %x), one math.Exp per centre gives %v (%x)", l.f, l.eta, u, got, bitsOf(got), want, bitsOf(want))
			}
		}
	}
}

// TestIntegrateIsScalar checks NewCDF, whose nodes' and edges' exps
// vmath.Exps evaluates a chunk at a time, against scalarNewCDF (math.Exp
// node by node) bit for bit, with and without the skip of negligible
// panels: on the scalar families at η from small to far out (where most
// panels and nodes are skipped, and panels skipped and kept share a chunk),
// and on random kernel lines (whose ψ is itself vectorised).
func TestIntegrateIsScalar(t *testing.T) {
	sin4, _ := NewSin(4, 1.7)
	sin1, _ := NewSin(1, 1)
	esin, _ := NewExpSin(1.7)
	xsin, _ := NewXSin(1.7)
	type tc struct {
		f, ref Scalar
		eta    float64
	}
	var cases []tc
	for _, f := range []Scalar{sin4, sin1, esin, xsin} {
		for _, eta := range []float64{-900, -3, 0.7, 8} {
			cases = append(cases, tc{f, f, eta})
		}
	}
	rng := rand.New(rand.NewPCG(32, 6))
	for range 6 {
		l, ref := randomKernelLine(t, rng)
		cases = append(cases, tc{l, ref, 1})
	}
	defer func() { quadSkip = true }()
	for _, skip := range []bool{true, false} {
		quadSkip = skip
		for _, c := range cases {
			got, err := NewCDF(c.f, c.eta)
			want, errRef := scalarNewCDF(c.ref, c.eta)
			if (err == nil) != (errRef == nil) {
				t.Fatalf("%v η = %g: error %v, reference %v", c.f, c.eta, err, errRef)
			}
			if err == nil && !sameCDF(got, want) {
				t.Errorf("%v η = %g (skip %v): CDF differs from math.Exp node by node", c.f, c.eta, skip)
			}
		}
	}
}

func bitsOf(v []float64) []uint64 {
	b := make([]uint64, len(v))
	for i, x := range v {
		b[i] = math.Float64bits(x)
	}
	return b
}

// sameBitsOrNaNs reports whether a and b hold the same bits element by
// element, a NaN matching any NaN.
func sameBitsOrNaNs(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !numeric.SameBitsOrNaN(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestLogQsIsLogQ checks genNormalBase.logQs, whose exps vmath.Exps
// evaluates, against LogQ point by point bit for bit, for α = 1, 1.7, 2 and
// 2.5, at random points and at ±0, denormals, huge and infinite points
// (a NaN point must give NaN).
func TestLogQsIsLogQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 7))
	x := []float64{0, math.Copysign(0, -1), 5e-324, -1e-310, 1e-300, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 700, 1e5}
	for range 61 {
		x = append(x, 5*rng.NormFloat64())
	}
	for _, alpha := range []float64{1, 1.7, 2, 2.5} {
		b := genNormalBase{alpha}
		for _, n := range []int{len(x), 3, 5} { // every remainder of the groups of four
			got := make([]float64, n)
			b.logQs(x[:n], got)
			for i, v := range x[:n] {
				if want := b.LogQ(v); !numeric.SameBitsOrNaN(got[i], want) {
					t.Fatalf("α = %g: logQs at %v = %v (%x), LogQ %v (%x)", alpha, v, got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
				}
			}
		}
	}
}

// TestKernelPsiIsScalar checks Kernel.Psi, whose m exps vmath.Exps
// evaluates, against one math.Exp per centre bit for bit, for d = 1, 2, 3
// at random points and at points whose exponents underflow, are infinite
// or NaN.
func TestKernelPsiIsScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 7))
	for _, d := range []int{1, 2, 3} {
		for trial := range 20 {
			m := 1 + rng.IntN(13)
			z := make([]float64, m*d)
			for i := range z {
				z[i] = 3 * rng.NormFloat64()
			}
			f, err := NewKernel(d, z, 0.2+rng.Float64(), 1+rng.Float64())
			if err != nil {
				t.Fatal(err)
			}
			got, want := make([]float64, m), make([]float64, m)
			for p := range 30 {
				x := make([]float64, d)
				for i := range x {
					x[i] = 4 * rng.NormFloat64()
					if p%10 == 9 {
						x[i] = []float64{1e200, math.Inf(1), math.NaN(), 40}[(trial+i)%4]
					}
				}
				f.Psi(x, got)
				for k := range want {
					var r2 float64
					for i, zi := range f.Z[k*d : (k+1)*d] {
						r := x[i] - zi
						r2 += r * r
					}
					want[k] = math.Exp(-r2 * f.inv2s)
				}
				if !sameBitsOrNaNs(got, want) {
					t.Fatalf("%v at %v: Psi %v (bits %x), one math.Exp per centre %v (%x)", f, x, got, bitsOf(got), want, bitsOf(want))
				}
			}
		}
	}
}
