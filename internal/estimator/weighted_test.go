package estimator

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// weightedCase is a product family with weights for the structural tests.
type weightedCase struct {
	name    string
	fam     expfam.Family
	weights []expfam.Weight
	kinks   []float64 // kernel bandwidths, nil: none
	draw    func(rng *rand.Rand, next []float64)
}

func weightedCases(t *testing.T) []weightedCase {
	t.Helper()
	relu3, _ := expfam.NewReLU(0.7, 3)
	g, _ := expfam.NewGaussCoord(0.4)
	coords, err := expfam.NewCoords([]expfam.Coord{relu3, g})
	if err != nil {
		t.Fatal(err)
	}
	gauss, _ := expfam.NewGaussian(2, 0.5)
	sin, _ := expfam.NewSin(3, 1.5)
	prod, _ := expfam.NewProduct(sin, 2)
	capped, _ := expfam.NewDistWeight([]float64{0.1}, math.Inf(-1), math.Inf(1), 0.8, 2)
	normal := func(rng *rand.Rand, next []float64) {
		for i := range next {
			next[i] = rng.NormFloat64()
		}
	}
	return []weightedCase{
		{"relu-mog×gaussian, default weight", coords, []expfam.Weight{relu3.DefaultWeight(), nil}, nil, normal},
		{"relu-mog×gaussian, weight and kernel", coords, []expfam.Weight{relu3.DefaultWeight(), capped}, []float64{0.3, 0}, normal},
		{"relu-mog×gaussian, kernel only", coords, []expfam.Weight{nil, nil}, []float64{0.3, 0}, normal},
		{"gaussian switched to blocks", gauss, []expfam.Weight{capped, relu3.DefaultWeight()}, nil, normal},
		{"gaussian, constant C", gauss, nil, nil, normal},
		{"custom-sin product, weighted", prod, []expfam.Weight{nil, capped}, nil, normal},
		{"dense family", denseFamily{}, nil, nil, normal},
	}
}

func newWeightedSM(t *testing.T, c weightedCase, dphi int) *SM {
	t.Helper()
	e := NewSM(c.fam, dphi)
	if c.weights != nil {
		if err := e.SetWeights(c.weights); err != nil {
			t.Fatal(err)
		}
	}
	if c.kinks != nil {
		if err := e.EstimateKinks(c.kinks); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// The structured accumulation of Add (block upper triangles, weights, kernel
// terms) equals the sum of the dense per-transition V_t and b_t of
// AddTransition, which the sandwich covariance uses.
func TestWeightedAddEqualsPerTransitionSum(t *testing.T) {
	const dphi = 3
	for _, c := range weightedCases(t) {
		e := newWeightedSM(t, c, dphi)
		ds, dpsi := c.fam.StateDim(), c.fam.StatDim()
		d := dpsi * dphi
		v, b := make([]float64, d*d), make([]float64, d)
		cs, xi := make([]float64, dpsi*dpsi), make([]float64, dpsi)
		rng := rand.New(rand.NewPCG(1, 2))
		phi, next := make([]float64, dphi), make([]float64, ds)
		for range 200 {
			for j := range phi {
				phi[j] = 2*rng.Float64() - 1
			}
			c.draw(rng, next)
			e.AddTransition(phi, next, v, b, cs, xi)
			e.Add(phi, next)
		}
		got, gotB := e.V(), e.B()
		for i := range v {
			if !testutil.AbsWithin(got[i], v[i], 1e-10*(1+math.Abs(v[i]))) {
				t.Fatalf("%s: V[%d] = %v, per-transition sum %v", c.name, i, got[i], v[i])
			}
		}
		for i := range b {
			if !testutil.AbsWithin(gotB[i], b[i], 1e-10*(1+math.Abs(b[i]))) {
				t.Fatalf("%s: b[%d] = %v, per-transition sum %v", c.name, i, gotB[i], b[i])
			}
		}
	}
}

// dlogp returns ∂ log p and ∂² log p of coordinate density
// q(x) exp(<ψ(x), η>) at x by central differences of the log density:
// independent of the analytic Score.
func dlogp(c expfam.Coord, eta []float64, x float64) (d1, d2 float64) {
	psi := make([]float64, c.StatDim())
	lp := func(x float64) float64 {
		c.Psi(x, psi)
		l := c.LogQ(x)
		for k, e := range eta {
			l += e * psi[k]
		}
		return l
	}
	const h1, h2 = 1e-6, 1e-4
	d1 = (lp(x+h1) - lp(x-h1)) / (2 * h1)
	d2 = (lp(x+h2) - 2*lp(x) + lp(x-h2)) / (h2 * h2)
	return d1, d2
}

// weightedObjective is the empirical weighted score-matching loss
// Σ_t Σ_i ½ h (∂ log p)² + h' ∂ log p + h ∂² log p of W, with the
// derivatives of log p by finite differences in x and h' by finite
// differences of h.
func weightedObjective(cs []expfam.Coord, ws []expfam.Weight, dphi int, w []float64, phis, nexts [][]float64) float64 {
	var j float64
	for t, phi := range phis {
		off := 0
		for i, c := range cs {
			m := c.StatDim()
			eta := make([]float64, m)
			for k := range eta {
				eta[k] = Dot(w[(off+k)*dphi:(off+k+1)*dphi], phi)
			}
			off += m
			x := nexts[t][i]
			d1, d2 := dlogp(c, eta, x)
			h, dh := 1.0, 0.0
			if ws[i] != nil {
				h, _ = ws[i].At(x)
				const e = 1e-7
				hp, _ := ws[i].At(x + e)
				hm, _ := ws[i].At(x - e)
				dh = (hp - hm) / (2 * e)
			}
			j += 0.5*h*d1*d1 + dh*d1 + h*d2
		}
	}
	return j
}

// Dot is Σ x_j y_j.
func Dot(x, y []float64) float64 {
	var s float64
	for j := range x {
		s += x[j] * y[j]
	}
	return s
}

// The weighted normal equations are the gradient of the weighted objective:
// V_n vec(W) + b_n = ∇_W J_n(W) at random W, with J_n computed from finite
// differences of the log density (away from the kink, where it is smooth).
func TestWeightedNormalEquationsAreObjectiveGradient(t *testing.T) {
	relu, _ := expfam.NewReLU(0.8, 3)
	g, _ := expfam.NewGaussCoord(0.6)
	cs := []expfam.Coord{relu, g}
	fam, _ := expfam.NewCoords(cs)
	wg, _ := expfam.NewDistWeight(nil, -1, 1, 0.5, 2)
	ws := []expfam.Weight{relu.DefaultWeight(), wg}
	const dphi = 2
	rng := rand.New(rand.NewPCG(3, 4))
	var phis, nexts [][]float64
	for len(phis) < 60 {
		x := []float64{2 * rng.NormFloat64(), 1.9*rng.Float64() - 0.95}
		// stay off the kink and the caps, where h is not differentiable
		if math.Abs(x[0]) < 1e-3 || math.Abs(math.Abs(x[0])-0.8) < 1e-3 || math.Abs(1-math.Abs(x[1])-0.5) < 1e-3 {
			continue
		}
		phis = append(phis, []float64{2*rng.Float64() - 1, 1})
		nexts = append(nexts, x)
	}
	e := NewSM(fam, dphi)
	if err := e.SetWeights(ws); err != nil {
		t.Fatal(err)
	}
	for i := range phis {
		e.Add(phis[i], nexts[i])
	}
	v, b := e.V(), e.B()
	d := len(b)
	w := make([]float64, d)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	for i := range d {
		grad := b[i]
		for j := range d {
			grad += v[i*d+j] * w[j]
		}
		const step = 1e-2 // J is quadratic in W: central differences are exact up to rounding
		wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
		wp[i] += step
		wm[i] -= step
		fd := (weightedObjective(cs, ws, dphi, wp, phis, nexts) - weightedObjective(cs, ws, dphi, wm, phis, nexts)) / (2 * step)
		testutil.AbsClosef(t, fd, grad, 1e-4*(1+math.Abs(grad)), "∂J/∂w[%d]: normal equations %.8g, finite differences %.8g", i, grad, fd)
	}
}

// populationSM integrates the population V and b of (weighted) score
// matching for one coordinate family c and a few feature vectors phis
// (equally likely) under W0, with the density normalised by the same
// quadrature, on [lo, hi] split at breaks. It returns −V⁻¹b, the
// population minimiser.
func populationSM(t *testing.T, c expfam.Coord, w expfam.Weight, kernel bool, w0 []float64, phis [][]float64, lo, hi float64, breaks []float64) []float64 {
	t.Helper()
	m := c.StatDim()
	dphi := len(phis[0])
	d := m * dphi
	vp, bp := mat.NewSymDense(d, nil), make([]float64, d)
	g, xi, psi := make([]float64, m), make([]float64, m), make([]float64, m)
	pts := append([]float64{lo}, breaks...)
	pts = append(pts, hi)
	integrate := func(f func(x float64) float64) float64 {
		var s float64
		for k := 0; k+1 < len(pts); k++ {
			s += quad.Fixed(f, pts[k], pts[k+1], 400, quad.Legendre{}, 0)
		}
		return s
	}
	for _, phi := range phis {
		eta := make([]float64, m)
		for k := range eta {
			eta[k] = Dot(w0[k*dphi:(k+1)*dphi], phi)
		}
		dens := func(x float64) float64 {
			c.Psi(x, psi)
			l := c.LogQ(x)
			for k, e := range eta {
				l += e * psi[k]
			}
			return math.Exp(l)
		}
		z := integrate(dens)
		for k := range m {
			for l := k; l < m; l++ {
				val := integrate(func(x float64) float64 {
					c.Score(x, g, xi)
					h := 1.0
					if w != nil {
						h, _ = w.At(x)
					}
					return h * g[k] * g[l] * dens(x) / z
				})
				for j := range dphi {
					for jj := range dphi {
						r, cc := k*dphi+j, l*dphi+jj
						if r <= cc {
							vp.SetSym(r, cc, vp.At(r, cc)+val*phi[j]*phi[jj])
						} else if k != l {
							vp.SetSym(cc, r, vp.At(cc, r)+val*phi[j]*phi[jj])
						}
					}
				}
			}
			val := integrate(func(x float64) float64 {
				c.Score(x, g, xi)
				h, dh := 1.0, 0.0
				if w != nil {
					h, dh = w.At(x)
				}
				return (h*xi[k] + dh*g[k]) * dens(x) / z
			})
			if kink, ok := c.(expfam.Kinked); ok && kernel {
				at, jump := kink.Kinks()
				for j := range at {
					val += jump[j][k] * dens(at[j]) / z // the δ term, exactly
				}
			}
			for j := range dphi {
				bp[k*dphi+j] += val * phi[j]
			}
		}
	}
	if m == 3 { // relu-mog: ψ is linearly dependent; a tiny ridge picks one minimiser
		for i := range d {
			vp.SetSym(i, i, vp.At(i, i)+1e-10)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(vp) {
		t.Fatal("population V is not positive definite")
	}
	x := mat.NewVecDense(d, nil)
	if err := ch.SolveVecTo(x, mat.NewVecDense(d, bp)); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, d)
	for i := range out {
		out[i] = -x.AtVec(i)
	}
	return out
}

// The population minimiser of weighted score matching, by quadrature, is
// W0: the objective is consistent. Plain score matching without the δ term
// is not (the authors' estimator), and with the exact δ term it is again;
// these two rows show the test can tell.
func TestWeightedPopulationMinimiserIsW0(t *testing.T) {
	relu2, _ := expfam.NewReLU(1, 2)
	relu3, _ := expfam.NewReLU(0.5, 3)
	phis := [][]float64{{-1, 1}, {0, 1}, {1, 1}, {0.5, 1}}
	for _, c := range []struct {
		name    string
		c       expfam.Coord
		w       expfam.Weight
		kernel  bool
		w0      []float64
		lo, hi  float64
		breaks  []float64
		biased  bool
		support float64
	}{
		{"relu, default weight", relu2, relu2.DefaultWeight(), false, []float64{0.5, 0.3, 1.0, -0.5}, -12, 12, []float64{-1, 0, 1}, false, 0},
		{"relu, |x|/0.25", relu2, &expfam.DistWeight{Points: []float64{0}, Lo: math.Inf(-1), Hi: math.Inf(1), C: 0.25, P: 1}, false, []float64{0.5, 0.3, 1.0, -0.5}, -12, 12, []float64{-0.25, 0, 0.25}, false, 0},
		{"relu, no weight, exact δ", relu2, nil, true, []float64{0.5, 0.3, 1.0, -0.5}, -12, 12, []float64{0}, false, 0},
		{"relu, no weight, no δ (biased)", relu2, nil, false, []float64{0.5, 0.3, 1.0, -0.5}, -12, 12, []float64{0}, true, 0},
		{"relu-mog, default weight", relu3, relu3.DefaultWeight(), false, []float64{1, 0.4, 2, -1, 0.5, 0.8}, -6, 6, []float64{-0.5, 0, 0.5}, false, 0},
	} {
		got := populationSM(t, c.c, c.w, c.kernel, c.w0, phis, c.lo, c.hi, c.breaks)
		// relu-mog: W is identified only up to (1, −1, 1) per column; compare
		// the identified combinations c₊ = η₁ + η₂ and c₋ = η₁ − η₃.
		diff := frob(got, c.w0)
		if c.c.StatDim() == 3 {
			diff = 0
			for j := range 2 {
				cp := (got[j] + got[2+j]) - (c.w0[j] + c.w0[2+j])
				cm := (got[j] - got[4+j]) - (c.w0[j] - c.w0[4+j])
				diff += cp*cp + cm*cm
			}
			diff = math.Sqrt(diff)
		}
		t.Logf("%s: population minimiser %.6f, |· − W0| = %.2e", c.name, got, diff)
		if c.biased {
			if diff < 0.1 {
				t.Errorf("%s: |W* − W0| = %.3g, expected a bias", c.name, diff)
			}
		} else if diff > 1e-7 {
			t.Errorf("%s: |W* − W0| = %.3g, want < 1e-7", c.name, diff)
		}
	}
}

func TestSetWeightsErrors(t *testing.T) {
	relu, _ := expfam.NewReLU(1, 2)
	fam, _ := expfam.NewCoords([]expfam.Coord{relu})
	if err := NewSM(fam, 2).SetWeights(nil); err == nil {
		t.Error("wrong number of weights accepted")
	}
	if err := NewSM(denseFamily{}, 2).SetWeights([]expfam.Weight{relu.DefaultWeight(), nil, nil}); err == nil {
		t.Error("weights on a non-product family accepted")
	}
	e := NewSM(fam, 2)
	e.Add([]float64{1, 1}, []float64{0.5})
	if err := e.SetWeights([]expfam.Weight{relu.DefaultWeight()}); err == nil {
		t.Error("weights after the first transition accepted")
	}
	for _, bad := range [][4]float64{{0, 1, -1, 1}, {1, 0.5, -1, 1}, {1, 1, 1, -1}, {math.NaN(), 1, -1, 1}} {
		if _, err := expfam.NewDistWeight(nil, bad[2], bad[3], bad[0], bad[1]); err == nil {
			t.Errorf("NewDistWeight(c=%v, p=%v, (%v, %v)) accepted", bad[0], bad[1], bad[2], bad[3])
		}
	}
}

// The confidence set of a weighted fit is the weighted V's: |δ|²_P =
// δᵀ(V_w + λI)δ and LogDet = log det(V_w/λ + I) with V_w the sum of the
// per-transition weighted terms, and posterior draws R⁻¹z have |·|_P = |z|.
func TestWeightedConfidenceUsesWeightedV(t *testing.T) {
	relu, _ := expfam.NewReLU(0.7, 2)
	g, _ := expfam.NewGaussCoord(0.4)
	fam, _ := expfam.NewCoords([]expfam.Coord{relu, g})
	e := NewSM(fam, 2)
	tw, _ := expfam.NewDistWeight(nil, -1, 1, 0.5, 1)
	if err := e.SetWeights([]expfam.Weight{relu.DefaultWeight(), tw}); err != nil {
		t.Fatal(err)
	}
	d := fam.StatDim() * 2
	v, b := make([]float64, d*d), make([]float64, d)
	cs, xi := make([]float64, 9), make([]float64, 3)
	rng := rand.New(rand.NewPCG(8, 9))
	for range 300 {
		phi := []float64{2*rng.Float64() - 1, 1}
		next := []float64{rng.NormFloat64(), 1.8*rng.Float64() - 0.9}
		e.Add(phi, next)
		e.AddTransition(phi, next, v, b, cs, xi)
	}
	const lambda = 0.3
	f, err := e.Fit(lambda)
	if err != nil {
		t.Fatal(err)
	}
	p := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			p.SetSym(i, j, v[i*d+j]/lambda)
		}
		p.SetSym(i, i, p.At(i, i)+1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(p) {
		t.Fatal("V/λ + I not positive definite")
	}
	if got, want := f.LogDet(), ch.LogDet(); !testutil.AbsWithin(got, want, 1e-9*math.Abs(want)) {
		t.Errorf("LogDet %.12g, log det(V_w/λ + I) %.12g", got, want)
	}
	delta := make([]float64, d)
	for i := range delta {
		delta[i] = rng.NormFloat64()
	}
	var q float64
	for i := range d {
		q += lambda * delta[i] * delta[i]
		for j := range d {
			q += delta[i] * v[i*d+j] * delta[j]
		}
	}
	if got := f.Norm(delta); !testutil.AbsWithin(got*got, q, 1e-9*q) {
		t.Errorf("|δ|²_P = %.12g, δᵀ(V_w + λI)δ = %.12g", got*got, q)
	}
	out := make([]float64, d)
	if err := f.InvSqrt(delta, out); err != nil {
		t.Fatal(err)
	}
	var z2 float64
	for _, z := range delta {
		z2 += z * z
	}
	if got := f.Norm(out); !testutil.AbsWithin(got*got, z2, 1e-9*z2) {
		t.Errorf("|R⁻¹z|²_P = %.12g, |z|² = %.12g", got*got, z2)
	}
}

// The sandwich of a weighted fit (and of one with kernel kink terms) equals
// the dense A⁻¹ (Σ_t g_t g_tᵀ) A⁻¹, A = Σ_t V_t + λI, g_t = V_t ŵ + b_t,
// built from the dense per-transition V_t and b_t of AddTransition: the
// weights reach the sandwich (and, through the same terms, CV) as they
// reach Add.
func TestWeightedSandwichEqualsDense(t *testing.T) {
	const dphi, n, lambda = 3, 80, 0.1
	for _, c := range weightedCases(t) {
		e := newWeightedSM(t, c, dphi)
		ds, dpsi := c.fam.StateDim(), c.fam.StatDim()
		d := dpsi * dphi
		rng := rand.New(rand.NewPCG(3, 4))
		var phis, nexts [][]float64
		for range n {
			phi, next := make([]float64, dphi), make([]float64, ds)
			for j := range phi {
				phi[j] = 2*rng.Float64() - 1
			}
			c.draw(rng, next)
			phis, nexts = append(phis, phi), append(nexts, next)
			e.Add(phi, next)
		}
		f, err := e.Fit(lambda)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := e.Sandwich(f, n, func(i int) ([]float64, []float64) { return phis[i], nexts[i] }, SEOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// Dense: per-transition V_t, b_t into fresh buffers.
		cs, xi := make([]float64, dpsi*dpsi), make([]float64, dpsi)
		vts, bts := make([][]float64, n), make([][]float64, n)
		a := mat.NewSymDense(d, nil)
		for t0 := range n {
			vts[t0], bts[t0] = make([]float64, d*d), make([]float64, d)
			e.AddTransition(phis[t0], nexts[t0], vts[t0], bts[t0], cs, xi)
			for i := range d {
				for j := i; j < d; j++ {
					a.SetSym(i, j, a.At(i, j)+vts[t0][i*d+j])
				}
			}
		}
		for i := range d {
			a.SetSym(i, i, a.At(i, i)+lambda)
		}
		// ŵ from the dense normal equations A w = −Σ b_t.
		rhs := mat.NewVecDense(d, nil)
		for _, bt := range bts {
			for i, x := range bt {
				rhs.SetVec(i, rhs.AtVec(i)-x)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			t.Fatalf("%s: dense A not positive definite", c.name)
		}
		var w mat.VecDense
		if err := ch.SolveVecTo(&w, rhs); err != nil {
			t.Fatal(err)
		}
		for i := range d {
			if !testutil.AbsWithin(f.W[i], w.AtVec(i), 1e-9*(1+math.Abs(w.AtVec(i)))) {
				t.Fatalf("%s: W[%d] = %.12g, dense %.12g", c.name, i, f.W[i], w.AtVec(i))
			}
		}
		meat := mat.NewSymDense(d, nil)
		g := make([]float64, d)
		for t0 := range n {
			for i := range d {
				s := bts[t0][i]
				for j := range d {
					s += vts[t0][i*d+j] * w.AtVec(j)
				}
				g[i] = s
			}
			meat.SymRankOne(meat, 1, mat.NewVecDense(d, g))
		}
		var inv mat.SymDense
		if err := ch.InverseTo(&inv); err != nil {
			t.Fatal(err)
		}
		var tmp, cov mat.Dense
		tmp.Mul(&inv, meat)
		cov.Mul(&tmp, &inv)
		for i := range d {
			want := cov.At(i, i)
			testutil.AbsClosef(t, got[i], want, 1e-8*math.Abs(want)+1e-300, "%s: sandwich variance[%d] = %.12g, dense %.12g", c.name, i, got[i], want)
		}
	}
}
