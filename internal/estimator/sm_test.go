package estimator

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// addScaled gives the plain loop's bits (y_i += a·x_i, rounded after the
// multiply and after the add) on both of its paths, for every length
// around minSIMDRow and every alignment of y (gonum's loop peels one term
// to align), with terms of mixed sign and magnitude.
func TestAddScaledIsPlainLoop(t *testing.T) {
	if testutil.AMD64V3 {
		t.Skip("GOAMD64=v3: the plain loop may round as one FMA")
	}
	rng := rand.New(rand.NewPCG(24, 4))
	draw := func() float64 { return math.Ldexp(2*rng.Float64()-1, rng.IntN(60)-30) }
	for n := 0; n <= 3*minSIMDRow+3; n++ {
		for off := range 3 {
			x, y := make([]float64, n+off), make([]float64, n+off)
			for i := range x {
				x[i], y[i] = draw(), draw()
			}
			a := draw()
			want := append([]float64(nil), y[off:]...)
			for i := range want {
				want[i] += a * x[off+i]
			}
			addScaled(y[off:], a, x[off:])
			for i, w := range want {
				if math.Float64bits(y[off+i]) != math.Float64bits(w) {
					t.Fatalf("n %d, offset %d: y_%d = %v, plain loop %v", n, off, i, y[off+i], w)
				}
			}
		}
	}
}
