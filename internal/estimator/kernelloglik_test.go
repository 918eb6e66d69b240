package estimator

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
)

// TestKernelLogLik2D: in d = 2 the held-out log-likelihood with importance
// -sampled log Z agrees with the same model normalised on a grid (within
// 3 of its reported log Z standard error, which is > 0), and degenerate
// weights are refused naming the transition.
func TestKernelLogLik2D(t *testing.T) {
	k, _ := kernelData(t, 2, 7, 4, 400, 8)
	w, err := k.Fit(1e-2, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := &KernelFit{Fam: k.Family(), W: w, DPhi: 4}
	// Held-out features of other states; kernelData keeps score terms, not
	// next states, so the held-out next states are points on the unit
	// circle (the check is of the numbers, not of the fit's quality).
	test, _ := kernelData(t, 2, 7, 4, 15, 9)
	phi, next := test.phi, make([]float64, 0, 30)
	for tt := range test.N() {
		next = append(next, math.Sin(float64(tt)), math.Cos(float64(tt)))
	}
	mean, _, seZ, err := fit.LogLik(phi, next, 4000, rand.New(rand.NewPCG(1, 2)), 100)
	if err != nil {
		t.Fatal(err)
	}
	const lo, hi, n = -9.0, 9.0, 160
	h := (hi - lo) / n
	f := fit.Fam
	psi, eta, x := make([]float64, f.M), make([]float64, f.M), make([]float64, 2)
	var exact float64
	for tt := range test.N() {
		p := phi[tt*4 : (tt+1)*4]
		for kk := range eta {
			eta[kk] = expfam.Dot(w[kk*4:(kk+1)*4], p)
		}
		var z float64
		for i := 0; i <= n; i++ {
			for j := 0; j <= n; j++ {
				x[0], x[1] = lo+float64(i)*h, lo+float64(j)*h
				f.Psi(x, psi)
				z += h * h * math.Exp(f.LogBase(x)+expfam.Dot(psi, eta)) // the ends are negligible
			}
		}
		f.Psi(next[2*tt:2*tt+2], psi)
		exact += f.LogBase(next[2*tt:2*tt+2]) + expfam.Dot(psi, eta) - math.Log(z)
	}
	exact /= float64(test.N())
	t.Logf("mean log-likelihood: importance %.5f (log Z SE %.5f), grid %.5f", mean, seZ, exact)
	if seZ <= 0 || math.Abs(mean-exact) > 3*seZ {
		t.Errorf("importance %.5f ± %.5f vs grid %.5f", mean, seZ, exact)
	}
	_, _, _, err = fit.LogLik(phi, next, 100, rand.New(rand.NewPCG(1, 2)), 1000)
	if !errors.Is(err, mcmc.ErrDegenerate) || !strings.Contains(err.Error(), "transition 0") {
		t.Errorf("ESS bound above the draws: got %v, want ErrDegenerate naming transition 0", err)
	}
}

// TestKernelModelRoundTrip: a fitted kernel model written as JSON and read
// back (centres included) scores held-out data with the same bits; a
// model with a bad bandwidth or a short row is refused naming it.
func TestKernelModelRoundTrip(t *testing.T) {
	r := runBimodal(t, 300, 100, 8, 5, KernelOptions{Bandwidths: []float64{0.5}, Lambdas: []float64{1e-2}, Seed: 4})
	raw, err := json.Marshal(r.fit.Model())
	if err != nil {
		t.Fatal(err)
	}
	var m KernelModel
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	back, err := m.Fit()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	phi, next := make([]float64, 50*5), make([]float64, 50)
	for i := range next {
		s, x := bimodal{}.draw(rng)
		bimodalFeatures(s, phi[i*5:(i+1)*5])
		next[i] = x
	}
	a, _, _, err1 := r.fit.LogLik(phi, next, 0, nil, 0)
	b, _, _, err2 := back.LogLik(phi, next, 0, nil, 0)
	if err1 != nil || err2 != nil || math.Float64bits(a) != math.Float64bits(b) {
		t.Errorf("log-likelihood %v (%v) before, %v (%v) after the round trip", a, err1, b, err2)
	}
	bad := m
	bad.Bandwidth = math.NaN()
	if _, err := bad.Fit(); !errors.Is(err, ErrKernelSettings) || !strings.Contains(err.Error(), "bandwidth") {
		t.Errorf("NaN bandwidth: got %v", err)
	}
	bad = m
	bad.Centres = append([][]float64{{0.1, 0.2}}, m.Centres[1:]...)
	if _, err := bad.Fit(); !errors.Is(err, ErrKernelSettings) || !strings.HasPrefix(err.Error(), "centres:") {
		t.Errorf("short centre: got %v", err)
	}
	bad = m
	bad.Centres = append([][]float64{m.Centres[1]}, m.Centres[1:]...)
	if _, err := bad.Fit(); !errors.Is(err, expfam.ErrKernelCentres) {
		t.Errorf("coinciding centres: got %v", err)
	}
}
