package estimator

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// unsharedGauss is a Gaussian coordinate that expfam.Coords does not
// recognise (not a *GaussCoord), so its product keeps one block per
// coordinate: the layout before shared blocks, as the reference.
type unsharedGauss struct{ *expfam.GaussCoord }

// gaussProduct returns the product of Gaussian coordinates of scales sigma,
// as *GaussCoord (shared blocks when the σ are equal) or, with unshared, as
// unsharedGauss.
func gaussProduct(t testing.TB, sigma []float64, unshared bool) *expfam.Coords {
	t.Helper()
	cs := make([]expfam.Coord, len(sigma))
	for i, s := range sigma {
		g, err := expfam.NewGaussCoord(s)
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = g
		if unshared {
			cs[i] = unsharedGauss{g}
		}
	}
	p, err := expfam.NewCoords(cs)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rffData draws n transitions with d_phi features of a 3-dimensional state
// and a 1-dimensional action (random Fourier features, as the learners of
// the control tasks use) and Gaussian next states of ds coordinates.
func rffData(t testing.TB, n, ds, dphi int, seed uint64) (phis, nexts [][]float64) {
	t.Helper()
	f, err := expfam.NewRFF(3, 1, dphi, 1, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	for range n {
		s := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		a := []float64{2*rng.Float64() - 1}
		phi := make([]float64, dphi)
		f.Phi(s, a, phi)
		next := make([]float64, ds)
		for i := range next {
			next[i] = math.Sin(s[i%3]+a[0]) + 0.1*rng.NormFloat64()
		}
		phis, nexts = append(phis, phi), append(nexts, next)
	}
	return phis, nexts
}

// Coords.SharedBlocks holds exactly for Gaussian coordinates of one σ.
func TestCoordsSharedBlocks(t *testing.T) {
	relu, err := expfam.NewReLU(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	g1, _ := expfam.NewGaussCoord(1)
	g1b, _ := expfam.NewGaussCoord(1)
	g2, _ := expfam.NewGaussCoord(0.5)
	for _, c := range []struct {
		name string
		cs   []expfam.Coord
		want bool
	}{
		{"one gaussian", []expfam.Coord{g1}, true},
		{"gaussians of one σ", []expfam.Coord{g1, g1b, g1}, true},
		{"gaussians of two σ", []expfam.Coord{g1, g2}, false},
		{"gaussian and relu", []expfam.Coord{g1, relu}, false},
		{"relu first", []expfam.Coord{relu, g1}, false},
		{"not a *GaussCoord", []expfam.Coord{g1, unsharedGauss{g1}}, false},
	} {
		p, err := expfam.NewCoords(c.cs)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.SharedBlocks(); got != c.want {
			t.Errorf("%s: SharedBlocks() = %v, want %v", c.name, got, c.want)
		}
	}
}

// With equal blocks kept once, score matching in a product of Gaussian
// coordinates of one σ gives the same V_n, b_n, estimate, objective,
// cross-validation and confidence quantities as one block per coordinate,
// to the bit (the same arithmetic on each of the equal blocks); the
// sandwich, computed by matrix products over the shared factorisation
// instead of per block, agrees to rounding. Weights switch to one block
// per coordinate, and then agree to the bit as well.
func TestSMSharedBlocksEqualPerCoordinateBlocks(t *testing.T) {
	const n, ds, dphi = 300, 4, 24
	phis, nexts := rffData(t, n, ds, dphi, 11)
	data := func(i int) ([]float64, []float64) { return phis[i], nexts[i] }
	capped, err := expfam.NewDistWeight([]float64{0}, math.Inf(-1), math.Inf(1), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		sigma   float64
		lambda  float64
		weights []expfam.Weight
	}{
		{"σ 1", 1, 1e-3, nil},
		{"σ 0.3", 0.3, 1e-2, nil},
		{"σ 1, λ 0", 1, 0, nil},
		{"σ 1, weighted", 1, 1e-3, []expfam.Weight{nil, capped, nil, nil}},
	} {
		sigma := slices.Repeat([]float64{c.sigma}, ds)
		var es [2]*SM
		for k, unshared := range []bool{false, true} {
			e, err := NewSMFor(gaussProduct(t, sigma, unshared), dphi, c.weights, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				e.Add(data(i))
			}
			es[k] = e
		}
		sh, ref := es[0], es[1]
		if want := c.weights == nil; sh.shared != want {
			t.Fatalf("%s: shared layout %v, want %v", c.name, sh.shared, want)
		}
		if ref.shared {
			t.Fatalf("%s: the reference product shares its blocks", c.name)
		}
		if !slices.Equal(sh.V(), ref.V()) || !slices.Equal(sh.B(), ref.B()) {
			t.Errorf("%s: V_n or b_n differ from the per-coordinate blocks", c.name)
		}
		fs, err := sh.Fit(c.lambda)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := ref.Fit(c.lambda)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fs.W, fr.W) {
			t.Errorf("%s: Ŵ differs from the per-coordinate blocks' (max |Δ| %g)", c.name, maxAbsDiff(fs.W, fr.W))
		}
		if a, b := sh.Objective(fs.W), ref.Objective(fr.W); a != b {
			t.Errorf("%s: objective %v, want %v", c.name, a, b)
		}
		if c.lambda > 0 {
			if a, b := fs.LogDet(), fr.LogDet(); a != b {
				t.Errorf("%s: log det %v, want %v", c.name, a, b)
			}
			x := make([]float64, len(fs.W))
			for i := range x {
				x[i] = math.Cos(float64(i))
			}
			if a, b := fs.Norm(x), fr.Norm(x); a != b {
				t.Errorf("%s: |x|_P %v, want %v", c.name, a, b)
			}
			grid := []float64{1e-4, 1e-2, 1}
			cs, err := CrossValidate(sh, n, data, 3, grid)
			if err != nil {
				t.Fatal(err)
			}
			cr, err := CrossValidate(ref, n, data, 3, grid)
			if err != nil {
				t.Fatal(err)
			}
			for i := range grid {
				if cs.Points[i] != cr.Points[i] {
					t.Errorf("%s: cross-validation point %d: %v, want %v", c.name, i, cs.Points[i], cr.Points[i])
				}
			}
			if !slices.Equal(cs.All.V(), cr.All.V()) {
				t.Errorf("%s: cross-validation's merged V_n differs", c.name)
			}
			ss, err := sh.Sandwich(fs, n, data, SEOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sr, err := ref.Sandwich(fr, n, data, SEOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range ss {
				if math.Abs(ss[i]-sr[i]) > 1e-9*sr[i] {
					t.Errorf("%s: sandwich se %d: %v, want %v", c.name, i, ss[i], sr[i])
					break
				}
			}
		}
	}
}

func maxAbsDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// BenchmarkSMSharedBlocks: accumulate and fit n = 2000 transitions of the
// acrobot learner's shape (d_s = 6 Gaussian coordinates of σ = 1, d_phi =
// 400 random features), with the blocks shared (one d_phi² matrix) and, as
// before, one per coordinate.
func BenchmarkSMSharedBlocks(b *testing.B) {
	const n, ds, dphi = 2000, 6, 400
	phis, nexts := rffData(b, n, ds, dphi, 5)
	for _, c := range []struct {
		name     string
		unshared bool
	}{{"shared", false}, {"per-coordinate", true}} {
		fam := gaussProduct(b, slices.Repeat([]float64{1}, ds), c.unshared)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				e := NewSM(fam, dphi)
				for i := range n {
					e.Add(phis[i], nexts[i])
				}
				if _, err := e.Fit(1e-3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
