package agent

import (
	"testing"
	"time"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/expfam"
)

func TestScratchCDF(t *testing.T) {
	s, _ := expfam.NewSin(4, 1.7)
	p, _ := expfam.NewProduct(s, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, eta := range []float64{0, 0.5, 1, 2, 3, 5, 10, 100, 300, 1000, -300} {
		st := time.Now()
		out := []float64{0}
		var sum float64
		n := 200
		for i := 0; i < n; i++ {
			p.Sample([]float64{eta}, rng, out)
			sum += out[0]
		}
		// expected reward under eta
		var r float64
		for i := 0; i < 20000; i++ {
			p.Sample([]float64{eta}, rng, out)
			x := out[0]
			r += expf(x)
		}
		t.Logf("eta %g: %v per draw, mean %g, E r %.3f", eta, time.Since(st)/time.Duration(n+20000), sum/float64(n), r/20000)
	}
}
func expf(x float64) float64 {
	a := x - 0.39269908169872414
	b := x + 1.1780972450961724
	return mathExp(-10*a*a) + mathExp(-10*b*b)
}
var mathExp = math.Exp
