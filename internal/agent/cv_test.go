package agent

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// TestCVLearner: the sm agent with lambda: cv fits, at every refit, the λ
// that estimator.CrossValidate picks on all transitions so far, and the
// largest λ of the grid while there are fewer transitions than folds.
func TestCVLearner(t *testing.T) {
	sin, _ := expfam.NewSin(4, 1.7)
	prod, _ := expfam.NewProduct(sin, 1)
	cv := CVConfig{Grid: []float64{1e-4, 0.1, 10, 1000}, Folds: 4}
	add, fit := cvLearner(estimator.NewSM(prod, 2), &transitions{dphi: 2, ds: 1}, cv)
	rng := rand.New(rand.NewPCG(9, 9))
	var phis, nexts [][]float64
	for k := range 60 {
		phi := []float64{2*rng.Float64() - 1, float64(1 - 2*rng.IntN(2))}
		next := []float64{rng.NormFloat64()}
		add(phi, next)
		phis, nexts = append(phis, phi), append(nexts, next)
		if k != 2 && k != 59 {
			continue
		}
		f, err := fit()
		if err != nil {
			t.Fatal(err)
		}
		n := k + 1
		data := func(i int) ([]float64, []float64) { return phis[i], nexts[i] }
		want := slices.Max(cv.Grid)
		if n >= cv.Folds {
			res, err := estimator.CrossValidate(estimator.NewSM(prod, 2), n, data, cv.Folds, cv.Grid)
			if err != nil {
				t.Fatal(err)
			}
			want = res.Points[res.Best].Lambda
		}
		e := estimator.NewSM(prod, 2)
		for i := range n {
			e.Add(data(i))
		}
		g, err := e.Fit(want)
		if err != nil {
			t.Fatal(err)
		}
		if f.Lambda != want || f.N != n {
			t.Errorf("n = %d: fit at λ = %g on %d transitions, want λ = %g", n, f.Lambda, f.N, want)
		}
		for i := range g.W {
			if d := f.W[i] - g.W[i]; d > 1e-12 || d < -1e-12 {
				t.Errorf("n = %d: W %v, direct fit %v", n, f.W, g.W)
				break
			}
		}
	}
}
