package estimator

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// blockedData returns n transitions of d_s-dimensional Gaussian data on
// d_phi = blockedMin + 4 standard normal features, s' = W φ/√d_phi + 0.5 ε.
func blockedData(ds, n int) (dphi int, data Data) {
	dphi = blockedMin + 4
	rng := rand.New(rand.NewPCG(21, 22))
	phis := make([]float64, n*dphi)
	nexts := make([]float64, n*ds)
	for i := range phis {
		phis[i] = rng.NormFloat64()
	}
	for t := range n {
		for k := range ds {
			var s float64
			for j := range dphi {
				s += float64((k+j)%5-2) * phis[t*dphi+j]
			}
			nexts[t*ds+k] = s/math.Sqrt(float64(dphi)) + 0.5*rng.NormFloat64()
		}
	}
	return dphi, func(t int) ([]float64, []float64) { return phis[t*dphi : (t+1)*dphi], nexts[t*ds : (t+1)*ds] }
}

// TestBlockedStatisticsMatchDense: above blockedMin features the Gaussian
// SM statistics are summed in blocks by level-3 products; they must equal
// the definitions V = c·I ⊗ Σ φφᵀ, b = Σ ξ(s') ⊗ φ summed one transition at
// a time in plain loops to 1e-10 (n = 300 crosses two full blocks and a
// partial one), and the fit must equal the solve of each row on its own
// with the same factor (one multi-right-hand-side call against d_s calls).
func TestBlockedStatisticsMatchDense(t *testing.T) {
	const ds, n = 3, 300
	dphi, data := blockedData(ds, n)
	g, err := expfam.NewGaussian(ds, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	e := NewSM(g, dphi)
	if !e.pend.on() {
		t.Fatal("the blocked accumulation is off at d_phi = blockedMin + 4")
	}
	gram := make([]float64, dphi*dphi)
	b := make([]float64, ds*dphi)
	gg, xi := make([]float64, ds), make([]float64, ds)
	for i := range n {
		phi, next := data(i)
		e.Add(phi, next)
		g.ScoreDiag(next, gg, xi)
		for j := range dphi {
			for m := range dphi {
				gram[j*dphi+m] += phi[j] * phi[m]
			}
			for k := range ds {
				b[k*dphi+j] += xi[k] * phi[j]
			}
		}
	}
	c, _ := g.ConstantC()
	v := e.V()
	d := ds * dphi
	for k := range ds {
		for j := range dphi {
			row := v[(k*dphi+j)*d+k*dphi : (k*dphi+j)*d+(k+1)*dphi]
			want := make([]float64, dphi)
			for m := range dphi {
				want[m] = c * gram[j*dphi+m]
			}
			testutil.CloseSlices(t, "row of V", row, want, 1e-10)
		}
	}
	testutil.CloseSlices(t, "b", e.B(), b, 1e-10)

	f, err := e.Fit(0.1)
	if err != nil {
		t.Fatal(err)
	}
	ch := f.blocks[0].c
	for k := range ds {
		x := mat.NewVecDense(dphi, nil)
		if err := ch.SolveVecTo(x, mat.NewVecDense(dphi, append([]float64(nil), b[k*dphi:(k+1)*dphi]...))); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, dphi)
		for j := range want {
			want[j] = -x.AtVec(j)
		}
		testutil.CloseSlices(t, "row of Ŵ", f.W[k*dphi:(k+1)*dphi], want, 1e-10)
	}
}

// TestBlockedLDSMatchesPerTransition: LDS above blockedMin (blocks of
// transitions, one solve for every row) against LDS fitted from sums made
// transition by transition (the pending block switched off), to 1e-10, and
// the same bits on one goroutine and on four.
func TestBlockedLDSMatchesPerTransition(t *testing.T) {
	const ds, n = 2, 200
	dphi, data := blockedData(ds, n)
	fit := func(blocked bool) []float64 {
		e := NewLDS(ds, dphi)
		if !blocked {
			e.pend = pending{}
		}
		for i := range n {
			e.Add(data(i))
		}
		f, err := e.Fit(0.5)
		if err != nil {
			t.Fatal(err)
		}
		return f.W
	}
	want := fit(false)
	prev := runtime.GOMAXPROCS(1)
	one := fit(true)
	runtime.GOMAXPROCS(4)
	four := fit(true)
	runtime.GOMAXPROCS(prev)
	testutil.CloseSlices(t, "Ŵ", one, want, 1e-10)
	for i := range one {
		if math.Float64bits(one[i]) != math.Float64bits(four[i]) {
			t.Fatalf("Ŵ[%d]: %v on one goroutine, %v on four", i, one[i], four[i])
		}
	}
}

// TestSandwichLevel3MatchesDefinition: the sandwich of the Gaussian SM fit
// above blockedMin (chunks solved by the factor, no inverse) against the
// definition Σ_t r_tk² (B⁻¹ φ_t)_j² with B⁻¹ formed explicitly, and the
// level-3 diagonal of A⁻¹ M A⁻¹ of a non-shared block against the same
// product written out, both to 1e-10.
func TestSandwichLevel3MatchesDefinition(t *testing.T) {
	const ds, n = 2, 150
	dphi, data := blockedData(ds, n)
	g, _ := expfam.NewGaussian(ds, 0.5)
	e := NewSM(g, dphi)
	for i := range n {
		e.Add(data(i))
	}
	f, err := e.Fit(0.2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Sandwich(f, n, data, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var inv mat.SymDense
	if err := f.blocks[0].c.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, ds*dphi)
	eta, r := make([]float64, ds), make([]float64, ds)
	x := make([]float64, dphi)
	for i := range n {
		phi, next := data(i)
		e.terms(next)
		linear(f.W, phi, eta)
		e.residual(eta, r)
		for j := range dphi {
			var s float64
			for m := range dphi {
				s += inv.At(j, m) * phi[m]
			}
			x[j] = s
		}
		for k := range ds {
			for j := range dphi {
				want[k*dphi+j] += r[k] * r[k] * x[j] * x[j]
			}
		}
	}
	testutil.CloseSlices(t, "sandwich variances", got, want, 1e-10)

	// A non-shared block: diag(A⁻¹ M A⁻¹) for a random symmetric M.
	rng := rand.New(rand.NewPCG(23, 24))
	m := make([]float64, dphi*dphi)
	for i := range dphi {
		for j := i; j < dphi; j++ {
			m[i*dphi+j] = rng.NormFloat64()
		}
	}
	blk := f.blocks[0]
	blk.s = 2
	out := make([]float64, dphi)
	if err := sandwichDiag(blk, m, out); err != nil {
		t.Fatal(err)
	}
	for i := range dphi {
		var s float64
		for j := range dphi {
			var t1 float64 // (A⁻¹ M)_ij
			for l := range dphi {
				mlj := m[min(l, j)*dphi+max(l, j)]
				t1 += inv.At(i, l) * mlj
			}
			s += t1 * inv.At(j, i)
		}
		testutil.Close(t, "diag(A⁻¹ M A⁻¹)/s²", out[i], s/4, 1e-10)
	}
}

// TestBlockedProductOfGaussiansMatchesPerTransition: the Gaussian
// learners' family as configs build it, a product of one-statistic
// coordinates (expfam.Coords of GaussCoord), with two σ (two owning
// blocks, the others sharing their sums), summed in blocks above
// blockedMin against the same estimator summing transition by transition
// (blockPending off): V, b and Ŵ to 1e-10.
func TestBlockedProductOfGaussiansMatchesPerTransition(t *testing.T) {
	const ds, n = 3, 300
	dphi, data := blockedData(ds, n)
	var cs []expfam.Coord
	for _, s := range []float64{0.5, 0.7, 0.5} {
		c, err := expfam.NewGaussCoord(s)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	fam, err := expfam.NewCoords(cs)
	if err != nil {
		t.Fatal(err)
	}
	blocked, plain := NewSM(fam, dphi), NewSM(fam, dphi)
	if !blocked.bpend.on() {
		t.Fatal("blocked accumulation is off for a product of Gaussians at d_phi = blockedMin + 4")
	}
	plain.bpend = blockPending{}
	for i := range n {
		blocked.Add(data(i))
		plain.Add(data(i))
	}
	testutil.CloseSlices(t, "V", blocked.V(), plain.V(), 1e-10)
	testutil.CloseSlices(t, "b", blocked.B(), plain.B(), 1e-10)
	fb, err := blocked.Fit(0.1)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := plain.Fit(0.1)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CloseSlices(t, "Ŵ", fb.W, fp.W, 1e-10)
}

// TestBlockPendingVaryingWeights: rows with weights that differ (the
// weighted score matching's h g²) are summed as (D^{1/2}Φ)ᵀ(D^{1/2}Φ),
// against Σ_t w_t φ_t φ_tᵀ in plain loops (1e-10); a negative weight is
// refused.
func TestBlockPendingVaryingWeights(t *testing.T) {
	dphi, data := blockedData(1, 20)
	p := newBlockPending(dphi, []int{1, 1})
	alias := []int{-1, -1}
	rng := rand.New(rand.NewPCG(25, 26))
	want := make([]float64, dphi*dphi)
	for i := range 20 {
		phi, _ := data(i)
		w := rng.Float64()
		if !p.add(phi, []float64{w, 0}, []float64{1, 0}, alias) {
			t.Fatal("add refused a positive weight")
		}
		for j := range dphi {
			for m := j; m < dphi; m++ {
				want[j*dphi+m] += w * phi[j] * phi[m]
			}
		}
	}
	v := [][]float64{make([]float64, dphi*dphi), make([]float64, dphi*dphi)}
	p.flush(v, alias)
	for j := range dphi {
		testutil.CloseSlices(t, "V_0 row", v[0][j*dphi+j:(j+1)*dphi], want[j*dphi+j:(j+1)*dphi], 1e-10)
	}
	for _, x := range v[1] {
		if x != 0 {
			t.Fatal("a block of weight 0 took a sum")
		}
	}
	phi, _ := data(0)
	if p.add(phi, []float64{-1, 0}, []float64{1, 0}, alias) {
		t.Fatal("add stored a negative weight")
	}
}
