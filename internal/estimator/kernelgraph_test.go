package estimator

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// chain2 is a 2-D law with known conditionals: s ~ U(−2, 2),
// s'_0 | s ~ the bimodal law of kernelbimodal_test.go, and
// s'_1 | s, s'_0 ~ N(0.6 s'_0 − 0.3 s, 0.5²): its log density is the sum
// of the two exact conditional log densities.
type chain2 struct{}

const chain2SD = 0.5

func (chain2) draw(rng *rand.Rand) (s, x0, x1 float64) {
	s, x0 = bimodal{}.draw(rng)
	return s, x0, 0.6*x0 - 0.3*s + chain2SD*rng.NormFloat64()
}

func (chain2) logPdf(s, x0, x1 float64) float64 {
	return bimodal{}.logPdf(s, x0) + normLogPdf(x1, 0.6*x0-0.3*s, chain2SD)
}

// chain2Data draws n transitions: phi (n×dphi, bimodalFeatures), next
// (n×2), and the states.
func chain2Data(n, dphi int, rng *rand.Rand) (phi, next, state []float64) {
	phi, next, state = make([]float64, n*dphi), make([]float64, 2*n), make([]float64, n)
	for t := range n {
		s, x0, x1 := chain2{}.draw(rng)
		bimodalFeatures(s, phi[t*dphi:(t+1)*dphi])
		next[2*t], next[2*t+1], state[t] = x0, x1, s
	}
	return
}

// TestKernelAutoregressive2D: the autoregressive graph fitted on a 2-D law
// whose conditionals are known (chain2) scores held-out transitions
// within 0.2 nats per transition of the true log density (Σ of the two
// exact conditionals), and well above the product of the best fixed-σ
// Gaussians on the true conditional means; its fit survives a JSON round
// trip with the same bits.
func TestKernelAutoregressive2D(t *testing.T) {
	const dphi = 5
	rng := rand.New(rand.NewPCG(36, 2))
	phi, next, _ := chain2Data(1000, dphi, rng)
	tphi, tnext, tstate := chain2Data(300, dphi, rng)
	spec := &expfam.KernelSpec{D: 2, M: 12, Bandwidths: []float64{0.5}, Graph: expfam.KernelAutoregressive, Seed: 3}
	g, err := FitKernelSpec(spec, phi, next, dphi, KernelOptions{Lambdas: []float64{1e-2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Coords) != 2 || g.Coords[1].DPhi != dphi+1 || g.Coords[1].Fam.D != 1 {
		t.Fatalf("autoregressive fit: %d coordinates, the second with d_phi %d", len(g.Coords), g.Coords[1].DPhi)
	}
	ll, se, seZ, err := g.LogLik(tphi, tnext, 0, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var truth, r0, r1 float64
	for i, s := range tstate {
		x0, x1 := tnext[2*i], tnext[2*i+1]
		truth += chain2{}.logPdf(s, x0, x1)
		d0, d1 := x0-bimodal{}.mean(s), x1-(0.6*x0-0.3*s)
		r0, r1 = r0+d0*d0, r1+d1*d1
	}
	n := float64(len(tstate))
	truth /= n
	sd0, sd1 := math.Sqrt(r0/n), math.Sqrt(r1/n)
	var gauss float64
	for i, s := range tstate {
		x0, x1 := tnext[2*i], tnext[2*i+1]
		gauss += normLogPdf(x0, bimodal{}.mean(s), sd0) + normLogPdf(x1, 0.6*x0-0.3*s, sd1)
	}
	gauss /= n
	t.Logf("autoregressive kernel %.4f ± %.4f (log Z SE %g), truth %.4f, Gaussians on the true means %.4f", ll, se, seZ, truth, gauss)
	if seZ != 0 {
		t.Errorf("the autoregressive log Z is exact, got an SE of %g", seZ)
	}
	if ll < truth-0.2 || ll > truth+0.1 {
		t.Errorf("kernel %.4f not within [−0.2, +0.1] nats of the truth %.4f", ll, truth)
	}
	if ll < gauss+0.2 {
		t.Errorf("kernel %.4f not 0.2 nats above the Gaussians %.4f", ll, gauss)
	}
	raw, err := json.Marshal(g.Model())
	if err != nil {
		t.Fatal(err)
	}
	var m KernelGraphModel
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	back, err := m.Fit(2, dphi)
	if err != nil {
		t.Fatal(err)
	}
	few, fewNext := tphi[:20*dphi], tnext[:40]
	ll1, _, _, err := g.LogLik(few, fewNext, 0, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ll2, _, _, err := back.LogLik(few, fewNext, 0, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !testutil.SameBits([]float64{ll2}, []float64{ll1}) {
		t.Errorf("log-likelihood after a round trip %v, before %v", ll2, ll1)
	}
	if _, err := m.Fit(3, dphi); err == nil {
		t.Error("a 2-coordinate autoregressive model read for d = 3 was not refused")
	}
}

// TestKernelGraphsAgreeIn1D: for d = 1 the joint and the autoregressive
// graphs are the same model: the same Ŵ bits, the same log-likelihood.
func TestKernelGraphsAgreeIn1D(t *testing.T) {
	const dphi = 5
	rng := rand.New(rand.NewPCG(7, 7))
	phi, next := make([]float64, 300*dphi), make([]float64, 300)
	for i := range 300 {
		s, x := bimodal{}.draw(rng)
		bimodalFeatures(s, phi[i*dphi:(i+1)*dphi])
		next[i] = x
	}
	o := KernelOptions{Lambdas: []float64{1e-2, 1}}
	var fits [2]*KernelGraphFit
	for i, graph := range []string{expfam.KernelJoint, expfam.KernelAutoregressive} {
		var err error
		if fits[i], err = FitKernelSpec(&expfam.KernelSpec{D: 1, M: 8, Bandwidths: []float64{0.4, 0.8}, Graph: graph, Seed: 5}, phi, next, dphi, o); err != nil {
			t.Fatal(err)
		}
	}
	if !testutil.SameBits(fits[1].Coords[0].W, fits[0].Coords[0].W) {
		t.Error("Ŵ of the two graphs differ")
	}
	a, _, _, _ := fits[0].LogLik(phi[:40*dphi], next[:40], 0, nil, 0)
	b, _, _, _ := fits[1].LogLik(phi[:40*dphi], next[:40], 0, nil, 0)
	if !testutil.SameBits([]float64{b}, []float64{a}) {
		t.Errorf("log-likelihood of the two graphs: %v and %v", b, a)
	}
}

// TestKernelAutoregressiveSample: draws of the autoregressive graph follow
// each conditional's inverse CDF: at a fixed (s, a), s'_0 passes a
// Kolmogorov–Smirnov test against coordinate 0's quadrature CDF, and the
// probability integral transform u = F_1(s'_1 | s, a, s'_0) of coordinate
// 1's CDF at the drawn s'_0 passes one against U(0, 1) (400 draws; the
// 1% critical value of the KS statistic, 1.63/√n).
func TestKernelAutoregressiveSample(t *testing.T) {
	const dphi = 5
	rng := rand.New(rand.NewPCG(36, 9))
	phi, next, _ := chain2Data(600, dphi, rng)
	spec := &expfam.KernelSpec{D: 2, M: 10, Bandwidths: []float64{0.5}, Graph: expfam.KernelAutoregressive, Seed: 1}
	g, err := FitKernelSpec(spec, phi, next, dphi, KernelOptions{Lambdas: []float64{1e-2}})
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, dphi)
	bimodalFeatures(0.7, p)
	const n = 400
	x0s, us := make([]float64, n), make([]float64, n)
	out := make([]float64, 2)
	eta0, eta1 := make([]float64, 10), make([]float64, 10)
	g.Coords[0].eta(p, eta0)
	c0, err := g.Coords[0].Fam.LineCDF(eta0)
	if err != nil {
		t.Fatal(err)
	}
	in := append(append([]float64(nil), p...), 0)
	for i := range n {
		if err := g.Sample(p, rng, out); err != nil {
			t.Fatal(err)
		}
		x0s[i] = out[0]
		in[dphi] = out[0]
		g.Coords[1].eta(in, eta1)
		c1, err := g.Coords[1].Fam.LineCDF(eta1)
		if err != nil {
			t.Fatal(err)
		}
		us[i] = c1.At(out[1] / g.Coords[1].Fam.Base)
	}
	b0 := g.Coords[0].Fam.Base
	crit := 1.63 / math.Sqrt(n)
	if d := stats.KS(x0s, func(x float64) float64 { return c0.At(x / b0) }); d > crit {
		t.Errorf("s'_0: KS %.4f against its conditional's CDF, above %.4f", d, crit)
	}
	if d := stats.KS(us, func(u float64) float64 { return min(max(u, 0), 1) }); d > crit {
		t.Errorf("s'_1: KS %.4f of its probability integral transform against U(0, 1), above %.4f", d, crit)
	}
}

// TestKernelCVNotConverged: a cross-validation in which no candidate's
// conjugate gradients converge (a tolerance no solve reaches: a negative
// one, since at this size KernelSM's block preconditioner is the exact
// inverse and the residual underflows to 0, below any positive one) is
// refused naming lambda, not reported as a choice.
func TestKernelCVNotConverged(t *testing.T) {
	const dphi = 3
	rng := rand.New(rand.NewPCG(5, 5))
	phi, next := make([]float64, 40*dphi), make([]float64, 40)
	for i := range 40 {
		s, x := bimodal{}.draw(rng)
		bimodalFeatures(s, phi[i*dphi:(i+1)*dphi])
		next[i] = x
	}
	_, err := FitKernel(phi, next, dphi, 1, KernelOptions{Centres: 4, Bandwidths: []float64{0.5}, Lambdas: []float64{0.1, 1}, Tol: -1})
	if !errors.Is(err, ErrNotConverged) || !strings.HasPrefix(err.Error(), "lambda:") {
		t.Errorf("got %v, want ErrNotConverged naming lambda", err)
	}
}

// TestKernelFirstDensity: the drawn density of s'_0 of an autoregressive
// fit integrates to 1 by an independent trapezoid rule (1e-6) and its log
// equals the log-likelihood of coordinate 0 at the same point (1e-12);
// the joint graph of d = 2 is refused.
func TestKernelFirstDensity(t *testing.T) {
	const dphi = 5
	phi, next, _ := chain2Data(400, dphi, rand.New(rand.NewPCG(36, 9)))
	spec := &expfam.KernelSpec{D: 2, M: 8, Bandwidths: []float64{0.5}, Graph: expfam.KernelAutoregressive, Seed: 3}
	g, err := FitKernelSpec(spec, phi, next, dphi, KernelOptions{Lambdas: []float64{1e-2}})
	if err != nil {
		t.Fatal(err)
	}
	p := phi[:dphi]
	b := g.Coords[0].Fam.Base
	const n = 20001
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = -12*b + 24*b*float64(i)/(n-1)
	}
	if err := g.FirstDensity(p, xs, ys); err != nil {
		t.Fatal(err)
	}
	var integral float64
	for i := 1; i < n; i++ {
		integral += 0.5 * (ys[i] + ys[i-1]) * (xs[i] - xs[i-1])
	}
	testutil.Close(t, "∫ P(s'_0 | s) ds'_0", integral, 1, 1e-6)
	x0 := []float64{next[0]}
	ll := []float64{0}
	if _, err := g.Coords[0].pointLogLik(p, x0, 0, nil, 0, ll); err != nil {
		t.Fatal(err)
	}
	y := []float64{0}
	if err := g.FirstDensity(p, x0, y); err != nil {
		t.Fatal(err)
	}
	testutil.Close(t, "log density at s'_0", math.Log(y[0]), ll[0], 1e-12)
	joint := &expfam.KernelSpec{D: 2, M: 8, Bandwidths: []float64{0.5}, Graph: expfam.KernelJoint, Seed: 3}
	gj, err := FitKernelSpec(joint, phi, next, dphi, KernelOptions{Lambdas: []float64{1e-2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := gj.FirstDensity(p, x0, y); !errors.Is(err, ErrKernelDensity) {
		t.Errorf("joint graph of d = 2: err %v, want ErrKernelDensity", err)
	}
}
