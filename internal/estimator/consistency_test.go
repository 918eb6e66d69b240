package estimator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// consistencyCase is a one-coordinate family with phi = [s, 1],
// s ~ Unif[−1, 1], and its true W0.
type consistencyCase struct {
	name string
	c    expfam.Coord
	w0   []float64
	// maxRatio is the bound on |Ŵ_SM − W0| / |Ŵ_MLE − W0| (RMS over
	// seeds) at the largest n.
	maxRatio float64
}

func consistencyCases(t testing.TB) []consistencyCase {
	relu, _ := expfam.NewReLU(1, 2)
	ex, _ := expfam.NewExponential(1)
	ga, _ := expfam.NewGamma(1)
	be, _ := expfam.NewBeta(0.5)
	tg, _ := expfam.NewTruncGauss(0.5, 0, 1)
	return []consistencyCase{
		{"relu", relu, []float64{0.5, 0.3, 1.0, -0.5}, 1.6},
		{"exponential", ex, []float64{0.5, 2}, 2.5},
		{"gamma", ga, []float64{0.5, 1, 0.3, 2}, 2.5},
		{"beta", be, []float64{0.5, 1, -0.3, 2}, 2.5},
		{"truncated-gaussian", tg, []float64{0.4, 0.3}, 2.5},
	}
}

// consistencyData draws n transitions of c under w0 into phi (n×2) and
// next (n) from rng.
func consistencyData(c expfam.Coord, w0 []float64, n int, rng *rand.Rand) (phi, next []float64) {
	m := c.StatDim()
	phi, next = make([]float64, 2*n), make([]float64, n)
	eta := make([]float64, m)
	for t := range n {
		s := 2*rng.Float64() - 1
		phi[2*t], phi[2*t+1] = s, 1
		for k := range m {
			eta[k] = w0[2*k]*s + w0[2*k+1]
		}
		next[t] = c.Sample(eta, rng)
	}
	return phi, next
}

// fitSM fits score matching with weight w (nil: none) and kernel
// bandwidth h (0: none) on the data.
func fitSM(t testing.TB, c expfam.Coord, w expfam.Weight, h float64, phi, next []float64) []float64 {
	return fitSMFloor(t, c, w, h, 0, phi, next)
}

// fitSMFloor is fitSM with the information floor m (SetFloor).
func fitSMFloor(t testing.TB, c expfam.Coord, w expfam.Weight, h, m float64, phi, next []float64) []float64 {
	e := addSM(t, c, w, h, phi, next)
	if err := e.SetFloor(m); err != nil {
		t.Fatal(err)
	}
	f, err := e.Fit(1e-8)
	if err != nil {
		t.Fatal(err)
	}
	return f.W
}

// fitSMAndFloor returns fitSM's and fitSMFloor's estimates from one pass
// over the data: the floor acts in Fit only (applyFloor), so the sums are
// the same and the two fits are those of two separate estimators, bit for
// bit (TestFitSMAndFloorIsTwoFits), at half the cost.
func fitSMAndFloor(t testing.TB, c expfam.Coord, w expfam.Weight, m float64, phi, next []float64) (plain, floored []float64) {
	e := addSM(t, c, w, 0, phi, next)
	f, err := e.Fit(1e-8)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetFloor(m); err != nil {
		t.Fatal(err)
	}
	g, err := e.Fit(1e-8)
	if err != nil {
		t.Fatal(err)
	}
	return f.W, g.W
}

// addSM is a score-matching estimator of the one-coordinate family c
// (weight w, kink bandwidth h when > 0) holding the transitions (phi, next).
func addSM(t testing.TB, c expfam.Coord, w expfam.Weight, h float64, phi, next []float64) *SM {
	fam, _ := expfam.NewCoords([]expfam.Coord{c})
	var ws []expfam.Weight
	if w != nil {
		ws = []expfam.Weight{w}
	}
	var hs []float64
	if h > 0 {
		hs = []float64{h}
	}
	e, err := NewSMFor(fam, 2, ws, hs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range next {
		e.Add(phi[2*i:2*i+2], next[i:i+1])
	}
	return e
}

// fitMLE returns the MLE of W (λ = 1e-8) by Newton's method from start
// (nil: from 0, MLE.Fit's rule).
func fitMLE(t testing.TB, c expfam.Coord, phi, next, start []float64) []float64 {
	fam, _ := expfam.NewCoords([]expfam.Coord{c})
	e := NewMLE(fam, 2)
	for i := range next {
		e.Add(phi[2*i:2*i+2], next[i:i+1])
	}
	f, err := e.Fit(1e-8, start)
	if err != nil {
		t.Fatal(err)
	}
	return f.W
}

// rmsErrors returns, per n, the RMS over seeds of |Ŵ − W0|_F of weighted
// SM and, when mle is true, of MLE.
// seeds(n) gives the number of seeds at each n (more at small n, where
// they are cheap, so that the slope is not at the mercy of a few draws).
func rmsErrors(t testing.TB, c consistencyCase, ns []int, seedsAt func(n int) int, mle bool) (sm, ml []float64) {
	sm, _, ml = rmsErrorsFloor(t, c, ns, seedsAt, func(int) bool { return mle }, 0)
	return sm, ml
}

// rmsErrorsFloor is rmsErrors that also returns, in fl, the RMS errors of
// weighted SM with the information floor m on the same data, and fits MLE
// at the sizes n for which mle(n) holds.
func rmsErrorsFloor(t testing.TB, c consistencyCase, ns []int, seedsAt func(n int) int, mle func(n int) bool, m float64) (sm, fl, ml []float64) {
	w := expfam.DefaultWeight(c.c)
	sm, fl, ml = make([]float64, len(ns)), make([]float64, len(ns)), make([]float64, len(ns))
	for i, n := range ns {
		seeds := seedsAt(n)
		for s := range seeds {
			rng := rand.New(rand.NewPCG(uint64(s), uint64(n)))
			phi, next := consistencyData(c.c, c.w0, n, rng)
			var plain []float64
			if m > 0 {
				var floored []float64
				plain, floored = fitSMAndFloor(t, c.c, w, m, phi, next)
				ef := frob(floored, c.w0)
				fl[i] += ef * ef / float64(seeds)
			} else {
				plain = fitSM(t, c.c, w, 0, phi, next)
			}
			e := frob(plain, c.w0)
			sm[i] += e * e / float64(seeds)
			if mle(n) {
				// Newton from the SM estimate, a consistent one: the same
				// maximum to Newton's tolerance in fewer steps than from 0.
				e := frob(fitMLE(t, c.c, phi, next, plain), c.w0)
				ml[i] += e * e / float64(seeds)
			}
		}
		sm[i], fl[i], ml[i] = math.Sqrt(sm[i]), math.Sqrt(fl[i]), math.Sqrt(ml[i])
	}
	return sm, fl, ml
}

// slope is the least-squares slope of log err on log n.
func slope(ns []int, err []float64) float64 {
	var mx, my float64
	for i, n := range ns {
		mx += math.Log(float64(n))
		my += math.Log(err[i])
	}
	mx /= float64(len(ns))
	my /= float64(len(ns))
	var sxy, sxx float64
	for i, n := range ns {
		dx := math.Log(float64(n)) - mx
		sxy += dx * (math.Log(err[i]) - my)
		sxx += dx * dx
	}
	return sxy / sxx
}

// Weighted score matching is consistent at the 1/√n rate on data drawn
// exactly from each family: the slope of log RMS error (100 and 16 seeds)
// on log n from 10³ to 10⁵ is within ±0.1 of −0.5, and at n = 10⁴ (12
// seeds) its error is within the factor of MLE's (1.6 for relu,
// 2.5 for the bounded families; measured ratios in the log and
// docs/weighted-sm.md). So is it with the agents' default information
// floor (SetFloor), on the same data. The least-squares slope through
// three sizes equally spaced in log n is (y₃ − y₁)/(2 log 10): the middle
// size does not enter it, so it takes only the 12 seeds of the comparison
// with MLE (it took 40 besides, and those 12 again, for nothing). The
// 10³…10⁶ version with MLE at 10⁶ runs with SMRL_LONG=1.
func TestWeightedSMConsistency(t *testing.T) {
	ns := []int{1000, 10000, 100000}
	for _, c := range consistencyCases(t) {
		sm, fl, ml := rmsErrorsFloor(t, c, ns, func(n int) int { return map[int]int{1000: 100, 10000: 12, 100000: 16}[n] },
			func(n int) bool { return n == 10000 }, DefaultFloor)
		sl := slope(ns, sm)
		if fs := slope(ns, fl); math.Abs(fs+0.5) > 0.1 {
			t.Errorf("%s: slope %.3f with the floor, want −0.5 ± 0.1", c.name, fs)
		}
		t.Logf("%s: with floor %g: RMS error %.4g %.4g %.4g", c.name, float64(DefaultFloor), fl[0], fl[1], fl[2])
		ratio := sm[1] / ml[1]
		t.Logf("%s: RMS error %.4g %.4g %.4g at n = 1e3, 1e4, 1e5: slope %.3f; MLE %.4g at 1e4 (ratio %.2f)", c.name, sm[0], sm[1], sm[2], sl, ml[1], ratio)
		if math.Abs(sl+0.5) > 0.1 {
			t.Errorf("%s: slope %.3f, want −0.5 ± 0.1", c.name, sl)
		}
		if ratio > c.maxRatio {
			t.Errorf("%s: SM/MLE error ratio %.2f at n = 1e4, want <= %g", c.name, ratio, c.maxRatio)
		}
	}
}

// The long version: 10³ … 10⁶ (200, 100, 40 and 10 seeds), MLE at 10⁶
// (10 seeds) (make reproduce).
func TestWeightedSMConsistencyLong(t *testing.T) {
	if os.Getenv("SMRL_LONG") == "" {
		t.Skip("SMRL_LONG=1 runs the 1e3..1e6 consistency test (minutes)")
	}
	ns := []int{1000, 10000, 100000, 1000000}
	for _, c := range consistencyCases(t) {
		sm, _ := rmsErrors(t, c, ns, func(n int) int { return map[int]int{1000: 200, 10000: 100, 100000: 40, 1000000: 10}[n] }, false)
		smr, ml := rmsErrors(t, c, ns[3:], func(int) int { return 10 }, true)
		sl := slope(ns, sm)
		ratio := smr[0] / ml[0]
		t.Logf("%s: RMS error %.4g %.4g %.4g %.4g at n = 1e3..1e6: slope %.3f; MLE %.4g at 1e6 (ratio %.2f)", c.name, sm[0], sm[1], sm[2], sm[3], sl, ml[0], ratio)
		if math.Abs(sl+0.5) > 0.1 {
			t.Errorf("%s: slope %.3f, want −0.5 ± 0.1", c.name, sl)
		}
		if ratio > c.maxRatio {
			t.Errorf("%s: SM/MLE error ratio %.2f at n = 1e6, want <= %g", c.name, ratio, c.maxRatio)
		}
	}
}

// TestReLUWeightCapChoice measures the choice of expfam.ReLUWeightCap
// (SMRL_LONG=1): the RMS error of weighted SM for h = min(|x|/(C s), 1) and
// several C, of the kernel kink term and of MLE, at n = 10⁵ over 40 seeds on
// the relu test problem.
func TestReLUWeightCapChoice(t *testing.T) {
	if os.Getenv("SMRL_LONG") == "" {
		t.Skip("SMRL_LONG=1 measures the relu weight cap")
	}
	relu, _ := expfam.NewReLU(1, 2)
	w0 := []float64{0.5, 0.3, 1.0, -0.5}
	const n, seeds = 100000, 40
	caps := []float64{0.25, 0.5, 0.75, 1, 2, 4, 1e9}
	rms := make([]float64, len(caps)+2)
	for s := range seeds {
		rng := rand.New(rand.NewPCG(uint64(s), 99))
		phi, next := consistencyData(relu, w0, n, rng)
		for i, c := range caps {
			w := &expfam.DistWeight{Points: []float64{0}, Lo: math.Inf(-1), Hi: math.Inf(1), C: c, P: 1}
			e := frob(fitSM(t, relu, w, 0, phi, next), w0)
			rms[i] += e * e / seeds
		}
		e := frob(fitSM(t, relu, nil, 0.15, phi, next), w0)
		rms[len(caps)] += e * e / seeds
		e = frob(fitMLE(t, relu, phi, next, nil), w0)
		rms[len(caps)+1] += e * e / seeds
	}
	mle := math.Sqrt(rms[len(caps)+1])
	for i, c := range caps {
		name := fmt.Sprintf("C = %g s", c)
		if c == 1e9 {
			name = "h = |x| (no cap)"
		}
		t.Logf("%-18s RMS |Ŵ − W0| %.4g (%.2f × MLE)", name, math.Sqrt(rms[i]), math.Sqrt(rms[i])/mle)
	}
	t.Logf("%-18s RMS |Ŵ − W0| %.4g (%.2f × MLE)", "kernel h = 0.15 s", math.Sqrt(rms[len(caps)]), math.Sqrt(rms[len(caps)])/mle)
	t.Logf("%-18s RMS |Ŵ − W0| %.4g", "MLE", mle)
}

// MLE of a restricted family starts inside the natural parameter space
// even from a handful of transitions, where W = 0 and the SM estimate may
// both lie outside: feasibleStart finds a point, and Fit converges with λ > 0.
func TestMLERestrictedFamiliesTinyData(t *testing.T) {
	for _, c := range consistencyCases(t)[1:4] { // exponential, gamma, beta
		fam, _ := expfam.NewCoords([]expfam.Coord{c.c})
		lower := c.c.(expfam.Restricted).EtaLowerBounds()
		for seed := range uint64(20) {
			n := 2 + int(seed%6)
			phi, next := consistencyData(c.c, c.w0, n, rand.New(rand.NewPCG(seed, 5)))
			e := NewMLE(fam, 2)
			for i := range next {
				e.Add(phi[2*i:2*i+2], next[i:i+1])
			}
			w := []float64{-3, -3, -3, -3}[:2*c.c.StatDim()]
			if !e.feasibleStart(0, c.c.StatDim(), w) {
				t.Fatalf("%s seed %d: no feasible start", c.name, seed)
			}
			for i := range next {
				for k, lo := range lower {
					if eta := w[2*k]*phi[2*i] + w[2*k+1]*phi[2*i+1]; !(eta > lo) {
						t.Fatalf("%s seed %d: η_%d = %g at transition %d, want > %g", c.name, seed, k, eta, i, lo)
					}
				}
			}
			if _, err := e.Fit(1e-2, nil); err != nil {
				t.Errorf("%s seed %d, n = %d: %v", c.name, seed, n, err)
			}
		}
	}
}

// fitSMAndFloor's one pass gives the bits of two separate estimators, one
// without and one with the floor, on n = 6 transitions of every
// consistency case, where the default floor acts in some of them (at
// n = 1000 and above, TestWeightedSMConsistency's sizes, it acts in none).
func TestFitSMAndFloorIsTwoFits(t *testing.T) {
	acted := 0
	for _, c := range consistencyCases(t) {
		w := expfam.DefaultWeight(c.c)
		phi, next := consistencyData(c.c, c.w0, 6, rand.New(rand.NewPCG(3, 6)))
		plain, floored := fitSMAndFloor(t, c.c, w, DefaultFloor, phi, next)
		want, wantFl := fitSM(t, c.c, w, 0, phi, next), fitSMFloor(t, c.c, w, 0, DefaultFloor, phi, next)
		if !testutil.SameBits(plain, want) || !testutil.SameBits(floored, wantFl) {
			t.Errorf("%s: one pass gives %v and %v, two estimators %v and %v", c.name, plain, floored, want, wantFl)
		}
		if !testutil.SameBits(plain, floored) { // the floor acted
			acted++
		}
	}
	if acted == 0 {
		t.Error("the floor acted in no case: the comparison would not tell the two fits apart")
	}
}
