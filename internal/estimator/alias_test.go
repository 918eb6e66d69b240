package estimator

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// ownStorage gives every block of e its own storage, which turns the
// sharing of identical blocks off: the accumulation before it existed.
func ownStorage(e *SM) {
	for i := range e.alias {
		e.unalias(i)
	}
}

// Blocks that share storage (a product of Gaussians of one σ) give the same
// bits as blocks accumulated one by one: V, b, the fit, the cross-validation
// and merged accumulators; blocks whose updates part (another σ, a weight
// that differs, a weight of zero) get their own storage at that transition.
func TestSharedBlocksAreBitIdentical(t *testing.T) {
	g1, _ := expfam.NewGaussCoord(1)
	g2, _ := expfam.NewGaussCoord(0.7)
	relu, _ := expfam.NewReLU(0.7, 3)
	capped, _ := expfam.NewDistWeight([]float64{0.1}, math.Inf(-1), math.Inf(1), 0.8, 2)
	cases := []struct {
		name    string
		cs      []expfam.Coord
		weights []expfam.Weight
		shared  int  // blocks still sharing storage after the data
		far     bool // coordinate 1 far from capped's point in the first half: its block parts halfway
	}{
		{"three gaussians of one sigma", []expfam.Coord{g1, g1, g1}, nil, 2, false},
		{"gaussians of two sigmas", []expfam.Coord{g1, g2, g1, g2}, nil, 1, false},
		{"a weight parts one block", []expfam.Coord{g1, g1, g1}, []expfam.Weight{nil, capped, nil}, 1, false},
		{"a weight parts one block halfway", []expfam.Coord{g1, g1, g1}, []expfam.Weight{nil, capped, nil}, 1, true},
		{"relu blocks of two statistics", []expfam.Coord{relu, g1, relu, g1}, nil, 1, false},
		{"one coordinate", []expfam.Coord{g1}, nil, 0, false},
	}
	const dphi, n = 7, 60
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fam, err := expfam.NewCoords(c.cs)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			phis := make([][]float64, n)
			nexts := make([][]float64, n)
			for i := range n {
				phis[i] = make([]float64, dphi)
				for j := range phis[i] {
					phis[i][j] = rng.NormFloat64()
				}
				nexts[i] = make([]float64, len(c.cs))
				for j := range nexts[i] {
					nexts[i][j] = 2 * rng.NormFloat64()
				}
			}
			if c.far {
				for i := range n / 2 {
					nexts[i][1] = 3 + math.Abs(nexts[i][1]) // h = 1 there, as the unweighted blocks'
				}
			}
			if len(c.cs) > 1 {
				nexts[n/2][1] = 0 // capped's weight is 0 at 0: block 1 takes no update there
			}
			build := func(own bool) *SM {
				e := NewSM(fam, dphi)
				if c.weights != nil {
					if err := e.SetWeights(c.weights); err != nil {
						t.Fatal(err)
					}
				}
				if own {
					ownStorage(e)
				}
				return e
			}
			shared, own := build(false), build(true)
			for i := range n {
				shared.Add(phis[i], nexts[i])
				own.Add(phis[i], nexts[i])
			}
			sharing := 0
			for _, j := range shared.alias {
				if j >= 0 {
					sharing++
				}
			}
			if sharing != c.shared {
				t.Errorf("%d blocks share storage, want %d (alias %v)", sharing, c.shared, shared.alias)
			}
			testutil.RequireSameBits(t, "V", shared.V(), own.V())
			testutil.RequireSameBits(t, "b", shared.B(), own.B())
			fs, err1 := shared.Fit(1e-3)
			fo, err2 := own.Fit(1e-3)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			testutil.RequireSameBits(t, "W", fs.W, fo.W)
			// Blocks that share their sums share their factorisation, and
			// the sandwich's shared path agrees with the per-block one.
			for i, j := range shared.alias {
				if j >= 0 && fs.blocks[i].c != fs.blocks[j].c {
					t.Errorf("block %d shares block %d's sums but not its factorisation", i, j)
				}
			}
			data := func(t int) ([]float64, []float64) { return phis[t], nexts[t] }
			ses, err1 := shared.Sandwich(fs, n, data, SEOptions{})
			seo, err2 := own.Sandwich(fo, n, data, SEOptions{})
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for i := range ses {
				testutil.AbsClosef(t, ses[i], seo[i], 1e-12*math.Abs(seo[i]), "se[%d] = %v shared, %v per block", i, ses[i], seo[i])
			}

			grid := []float64{1e-4, 1e-2, 1}
			cvs, err1 := CrossValidate(build(false), n, data, 5, grid)
			cvo, err2 := CrossValidate(build(true), n, data, 5, grid)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for i := range grid {
				testutil.RequireSameBits(t, "cv loss", []float64{cvs.Points[i].Loss}, []float64{cvo.Points[i].Loss})
			}
			testutil.RequireSameBits(t, "cv V", cvs.All.V(), cvo.All.V())

			// Merging an accumulator whose blocks parted into one whose did
			// not, and the other way round.
			for _, order := range [][2]bool{{false, true}, {true, false}, {false, false}} {
				a, b := build(order[0]), build(order[1])
				for i := range n / 2 {
					a.Add(phis[i], nexts[i])
				}
				for i := n / 2; i < n; i++ {
					b.Add(phis[i], nexts[i])
				}
				want := build(true)
				wa, wb := build(true), build(true)
				for i := range n / 2 {
					wa.Add(phis[i], nexts[i])
				}
				for i := n / 2; i < n; i++ {
					wb.Add(phis[i], nexts[i])
				}
				want.merge(wa)
				want.merge(wb)
				a.merge(b)
				testutil.RequireSameBits(t, "merged V", a.V(), want.V())
			}
		})
	}
}
