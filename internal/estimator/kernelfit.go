package estimator

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// ErrKernelSettings marks kernel-family settings the data cannot honour:
// more centres than transitions, a bandwidth or base scale that is not a
// finite number > 0, an empty grid. The message names the setting (the
// config key's last part: centres, bandwidth, base_scale, lambda).
var ErrKernelSettings = errors.New("kernel family settings refused")

// Bounds of a kernel family's scales, checked at fit time against the
// data (checkKernelScales) and when a saved model is read back (against
// its centres). The quadrature of the 1-D family (expfam.NewCDF) works in
// units of the base scale b over |x/b| ≤ 1024, and smrl bounds states to
// [−1024, 1024] (config.MaxAbsState); so:
//
//   - σ and b lie in [KernelMinScale, KernelMaxScale] (the bounds of
//     env.family.bandwidth, cv.bandwidths and base_scale too), b ≤ 1024;
//   - b ≥ r/KernelScaleRatio, r = max |x_ti| over the next states (or
//     the centres): the data lie within 100 base scales of the base's
//     centre 0, where q(x) ≥ e^{−5000} is still representable;
//   - r/KernelScaleRatio·1e-2 ≤ σ ≤ KernelScaleRatio·max(r, b): a
//     bandwidth 10⁴ times below the data's extent makes every statistic
//     a spike the data never fill, one 100 times above it makes every
//     statistic the same constant (both fits are degenerate).
const (
	KernelMinScale   = 1e-6
	KernelMaxScale   = 1e6
	KernelScaleRatio = 100
	kernelMaxBase    = 1024
)

// checkKernelScales checks bandwidth σ and base scale b against the
// extent r of the data (see KernelMinScale); what names the extent. A
// saved model (fitted false) is checked against its centres, whose extent
// may be below the data's: there σ has no upper bound relative to r (a
// broad bandwidth is degenerate, not dangerous; the lower bounds hold a
// fortiori).
func checkKernelScales(r, sigma, b float64, what string, fitted bool) error {
	switch {
	case !(sigma >= KernelMinScale && sigma <= KernelMaxScale):
		return fmt.Errorf("bandwidth: %w: must lie in [%g, %g], got %v", ErrKernelSettings, KernelMinScale, KernelMaxScale, sigma)
	case !(b >= KernelMinScale && b <= kernelMaxBase):
		return fmt.Errorf("base_scale: %w: must lie in [%g, %d], got %v", ErrKernelSettings, KernelMinScale, kernelMaxBase, b)
	case b < r/KernelScaleRatio:
		hint := " (give base_scale 0, the data's standard deviation, or a larger one)"
		if !fitted {
			hint = ""
		}
		return fmt.Errorf("base_scale: %w: %v is below %s %.4g / %d: the base density N(0, b²) would vanish there%s", ErrKernelSettings, b, what, r, KernelScaleRatio, hint)
	case sigma < r/(100*KernelScaleRatio):
		return fmt.Errorf("bandwidth: %w: %v is below %s %.4g / %d: every statistic would be a spike the data do not fill", ErrKernelSettings, sigma, what, r, 100*KernelScaleRatio)
	case fitted && sigma > KernelScaleRatio*max(r, b):
		return fmt.Errorf("bandwidth: %w: %v is above %d × max(%s %.4g, base_scale %.4g): every statistic would be the same constant", ErrKernelSettings, sigma, KernelScaleRatio, what, r, b)
	}
	return nil
}

// maxAbs is max |x_i|.
func maxAbs(x []float64) float64 {
	var r float64
	for _, v := range x {
		r = max(r, math.Abs(v))
	}
	return r
}

// KernelOptions are the choices of FitKernel; zero values take defaults.
type KernelOptions struct {
	Centres    int       // m, drawn by a seeded subsample of the next states (required, ≥ 1)
	Bandwidths []float64 // σ candidates; one: fixed; nil: DefaultBandwidths
	BaseScale  float64   // b; 0: the standard deviation of the next states
	Lambdas    []float64 // λ candidates; one: fixed (required, each > 0)
	Folds      int       // contiguous folds of cross-validation (default 5)
	Seed       uint64    // of the centres' subsample
	Workers    int       // of KernelSM's product
	Tol        float64   // of CG (default 1e-8)
}

// KernelFit is a fitted kernel family: the family (its centres, σ, b),
// Ŵ (m×d_phi row-major), λ, and the cross-validation grid when one ran.
type KernelFit struct {
	Fam    *expfam.Kernel
	W      []float64
	DPhi   int
	Lambda float64
	// CV[i][j] is the held-out SM loss per transition of bandwidth i and
	// λ j (nil without a grid).
	CV         [][]float64
	Bandwidths []float64
	Lambdas    []float64
	Iterations int // CG iterations of the final fit
	// Warning, when not "", says the fit is degenerate (degenerateStats).
	Warning string
}

// DefaultBandwidths is the log grid med·2^{k/2}, k = −4…2, around the
// median pairwise distance med of the next states (of the first 500 of
// them, in the order given).
func DefaultBandwidths(next []float64, d int) []float64 {
	n := min(len(next)/d, 500)
	var dist []float64
	for a := range n {
		for c := range a {
			var r2 float64
			for i := range d {
				r := next[a*d+i] - next[c*d+i]
				r2 += r * r
			}
			dist = append(dist, math.Sqrt(r2))
		}
	}
	if len(dist) == 0 {
		return nil
	}
	slices.Sort(dist)
	med := dist[len(dist)/2]
	out := make([]float64, 0, 7)
	for k := -4; k <= 2; k++ {
		out = append(out, med*math.Pow(2, float64(k)/2))
	}
	return out
}

// StdOf is the standard deviation of all coordinates of the next states
// pooled (about their per-coordinate means).
func StdOf(next []float64, d int) float64 {
	n := len(next) / d
	var s2 float64
	for i := range d {
		var m float64
		for t := range n {
			m += next[t*d+i]
		}
		m /= float64(n)
		for t := range n {
			r := next[t*d+i] - m
			s2 += r * r
		}
	}
	return math.Sqrt(s2 / float64(n*d))
}

// SubsampleCentres draws m distinct rows of the n next states (n×d
// row-major) from a PCG stream of seed, in the order drawn: it walks a
// random permutation of the rows and skips a row equal (bit for bit) to
// one already taken, so duplicated next states (tied data) never make two
// centres coincide whatever the seed. Without duplicates it takes the
// permutation's first m rows. It fails (ErrKernelSettings, naming
// centres and the count) when the data hold fewer than m distinct rows.
func SubsampleCentres(next []float64, d, m int, seed uint64) ([]float64, error) {
	n := len(next) / d
	perm := rand.New(rand.NewPCG(seed, 0x6b65726e656c)).Perm(n) // "kernel"
	z := make([]float64, 0, m*d)
	seen := make(map[string]bool, m)
	key := make([]byte, 8*d)
	for _, t := range perm {
		for i, v := range next[t*d : (t+1)*d] {
			binary.LittleEndian.PutUint64(key[8*i:], math.Float64bits(v+0)) // +0: −0 and 0 are one value
		}
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		if z = append(z, next[t*d:(t+1)*d]...); len(z) == m*d {
			return z, nil
		}
	}
	return nil, fmt.Errorf("centres: %w: the %d next states hold only %d distinct values, fewer than the %d centres (centres are drawn among distinct next states)", ErrKernelSettings, n, len(seen), m)
}

func checkKernelOptions(o *KernelOptions, n, d int) error {
	switch {
	case o.Centres < 1:
		return fmt.Errorf("centres: %w: must be >= 1, got %d", ErrKernelSettings, o.Centres)
	case o.Centres > n:
		return fmt.Errorf("centres: %w: %d centres but only %d transitions to draw them from", ErrKernelSettings, o.Centres, n)
	case len(o.Lambdas) == 0:
		return fmt.Errorf("lambda: %w: no candidate", ErrKernelSettings)
	case math.IsNaN(o.BaseScale) || o.BaseScale < 0 || math.IsInf(o.BaseScale, 0):
		return fmt.Errorf("base_scale: %w: must be a finite number > 0, got %v", ErrKernelSettings, o.BaseScale)
	}
	for _, l := range o.Lambdas {
		if !(l > 0) || math.IsInf(l, 0) {
			return fmt.Errorf("lambda: %w: must be a finite number > 0, got %v", ErrKernelSettings, l)
		}
	}
	for _, s := range o.Bandwidths {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("bandwidth: %w: must be a finite number > 0, got %v", ErrKernelSettings, s)
		}
	}
	if len(o.Bandwidths)*len(o.Lambdas) > 1 && o.Folds > n {
		return fmt.Errorf("cv.folds: %w: %d folds of %d transitions", ErrKernelSettings, o.Folds, n)
	}
	return nil
}

// FitKernel fits a kernel family to n transitions (phi n×d_phi, next n×d,
// row-major): centres by SubsampleCentres, b = BaseScale or the standard
// deviation of next, and (σ, λ) by K-fold held-out SM loss on contiguous
// folds (as CrossValidate) when more than one pair is given, then Ŵ on
// all transitions at the chosen pair.
func FitKernel(phi, next []float64, dphi, d int, o KernelOptions) (*KernelFit, error) {
	n := len(next) / d
	if len(phi) != n*dphi {
		return nil, fmt.Errorf("kernel score matching: %d feature numbers for %d transitions of d_phi %d", len(phi), n, dphi)
	}
	if o.Folds == 0 {
		o.Folds = 5
	}
	if o.Tol == 0 {
		o.Tol = 1e-8
	}
	if err := checkKernelOptions(&o, n, d); err != nil {
		return nil, err
	}
	if o.Bandwidths == nil {
		if o.Bandwidths = DefaultBandwidths(next, d); len(o.Bandwidths) == 0 || !(o.Bandwidths[0] > 0) {
			return nil, fmt.Errorf("bandwidth: %w: bandwidth cv without cv.bandwidths takes a grid around the median distance of the next states, which is 0 (tied data): give the candidates in cv.bandwidths, or a bandwidth", ErrKernelSettings)
		}
	}
	b := o.BaseScale
	if b == 0 {
		if b = StdOf(next, d); !(b > 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("base_scale: %w: its default, the standard deviation of the next states, is %v; give one", ErrKernelSettings, b)
		}
	}
	r := maxAbs(next)
	if o.BaseScale == 0 && b < r/KernelScaleRatio {
		return nil, fmt.Errorf("base_scale: %w: its default, the standard deviation %.4g of the next states, is below their largest |value| %.4g / %d: they lie far from the base's centre 0 for their spread (centre them, e.g. model.target: delta, or give a larger base_scale)", ErrKernelSettings, b, r, KernelScaleRatio)
	}
	for _, s := range o.Bandwidths {
		if err := checkKernelScales(r, s, b, "the largest |next state|", true); err != nil {
			return nil, err
		}
	}
	z, err := SubsampleCentres(next, d, o.Centres, o.Seed)
	if err != nil {
		return nil, err
	}
	fit := &KernelFit{DPhi: dphi, Bandwidths: o.Bandwidths, Lambdas: o.Lambdas}
	bestS, bestL, best := 0, 0, math.Inf(1)
	var e *KernelSM // the accumulator of the chosen bandwidth, kept from cross-validation
	if len(o.Bandwidths)*len(o.Lambdas) > 1 {
		fit.CV = make([][]float64, len(o.Bandwidths))
		for i, s := range o.Bandwidths {
			ei, err := kernelAccumulator(z, s, b, phi, next, dphi, d, o)
			if err != nil {
				return nil, err
			}
			if fit.CV[i], err = kernelCV(ei, o); err != nil {
				return nil, fmt.Errorf("bandwidth %g: %w", s, err)
			}
			for j, l := range fit.CV[i] {
				if l < best {
					bestS, bestL, best, e = i, j, l, ei
				}
			}
		}
		if math.IsInf(best, 1) {
			return nil, fmt.Errorf("lambda: %w: conjugate gradients did not converge for any (bandwidth, λ) of the grid in cross-validation; give larger λ candidates", ErrNotConverged)
		}
	}
	if e == nil {
		if e, err = kernelAccumulator(z, o.Bandwidths[bestS], b, phi, next, dphi, d, o); err != nil {
			return nil, err
		}
	}
	fit.Fam, fit.Lambda = e.Family(), o.Lambdas[bestL]
	if fit.W, err = e.Fit(fit.Lambda, nil); err != nil {
		return nil, err
	}
	fit.Iterations, _ = e.Iterations()
	fit.Warning = degenerateStats(fit.Fam, next)
	return fit, nil
}

// KernelFlatStats is the bound below which degenerateStats calls the
// kernel statistics numerically constant over the data: the largest
// standard deviation over the next states of one statistic psi_k(x_t)
// (each in (0, 1]). A bandwidth σ far above the spread s of the data
// makes that standard deviation about s²/σ² (1e-5 at σ = 250 s on
// examples/kernel, whose fit is then the base's log-likelihood within
// 0.04 nats; 1e-3 at σ = 25 s, a fit that beats the base).
const KernelFlatStats = 1e-4

// kernelSpikeMass is the other bound of degenerateStats: when the
// statistics sum to less than it over the next states on average over the
// centres, each is fed by its own centre (psi = 1 there) and on average
// by less than one other next state.
const kernelSpikeMass = 2

// degenerateStats returns a warning when the statistics of f carry no
// information about the next states: every psi_k(x_t) varies by less
// than KernelFlatStats over the data (a bandwidth far above their spread:
// psi ≈ 1, so Ŵ ≈ 0 and the fit is the bare base), or Σ_t psi_k(x_t) is
// below kernelSpikeMass on average over k (a bandwidth far below their spacing: psi ≈ 0
// away from its own centre); "" otherwise.
func degenerateStats(f *expfam.Kernel, next []float64) string {
	n := len(next) / f.D
	psi := make([]float64, f.M)
	s1, s2 := make([]float64, f.M), make([]float64, f.M)
	for t := range n {
		f.Psi(next[t*f.D:(t+1)*f.D], psi)
		for k, v := range psi {
			s1[k] += v
			s2[k] += v * v
		}
	}
	var top, mass float64
	for k := range s1 {
		m := s1[k] / float64(n)
		top = max(top, math.Sqrt(max(s2[k]/float64(n)-m*m, 0)))
		mass += s1[k] / float64(f.M)
	}
	if mass < kernelSpikeMass {
		return fmt.Sprintf("warning: the kernel statistics of bandwidth %g are ≈ 0 at every next state but their own centre (Σ_t psi_k(x_t) over the %d next states is %.3g on average over the centres, below %g): each W entry is fitted from one point and the model is its base N(0, %g²) between them; choose a bandwidth near the spacing of the next states", f.Sigma, n, mass, float64(kernelSpikeMass), f.Base)
	}
	if top >= KernelFlatStats {
		return ""
	}
	return fmt.Sprintf("warning: the kernel statistics of bandwidth %g are numerically constant over the %d next states (largest standard deviation of one statistic %.3g < %g): Ŵ ≈ 0 and the model is its base N(0, %g²); choose a bandwidth near the spacing of the next states", f.Sigma, n, top, KernelFlatStats, f.Base)
}

// kernelAccumulator builds the family of bandwidth s and adds every
// transition.
func kernelAccumulator(z []float64, s, b float64, phi, next []float64, dphi, d int, o KernelOptions) (*KernelSM, error) {
	f, err := expfam.NewKernel(d, z, s, b)
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", err, ErrKernelSettings) // the setting first, as the other refusals
	}
	e := NewKernelSM(f, dphi)
	e.Tol, e.Workers = o.Tol, o.Workers
	for t := range len(next) / d {
		e.Add(phi[t*dphi:(t+1)*dphi], next[t*d:(t+1)*d])
	}
	return e, nil
}

// kernelCV returns the held-out SM loss per transition of each λ: fold k
// is the transitions [k n/K, (k+1) n/K); each λ's fit warm-starts from the
// previous λ's of the same fold. A fit whose conjugate gradients do not
// converge scores +Inf (that candidate is never chosen).
func kernelCV(e *KernelSM, o KernelOptions) ([]float64, error) {
	n := e.N()
	loss := make([]float64, len(o.Lambdas))
	for k := range o.Folds {
		lo, hi := k*n/o.Folds, (k+1)*n/o.Folds
		train, test := e.Without(lo, hi), e.Subset(lo, hi)
		var w []float64
		for j, l := range o.Lambdas {
			wj, err := train.Fit(l, w)
			if errors.Is(err, ErrNotConverged) {
				// An ill-conditioned candidate (a small λ with a small σ)
				// loses the comparison instead of ending it.
				loss[j], w = math.Inf(1), nil
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("fold %d, lambda %g: %w", k, l, err)
			}
			w = wj
			loss[j] += test.Loss(w)
		}
	}
	for j := range loss {
		loss[j] /= float64(n)
	}
	return loss, nil
}

// LogLik returns the mean log-likelihood per transition of the fitted
// model on (phi, next), the standard error of that mean over the
// transitions (sd/√n), and the standard error the importance-sampled log Z
// adds, √(Σ_t SE_t²)/n: 0 for d = 1, where log Z is exact (quadrature); for
// d > 1 each log Z is importance sampled (LogPartitionIS, draws per
// transition, minESS its bound). It fails with mcmc.ErrDegenerate
// (wrapped, naming the transition) when a point's weights degenerate.
func (f *KernelFit) LogLik(phi, next []float64, draws int, rng *rand.Rand, minESS float64) (mean, se, seZ float64, err error) {
	d, m := f.Fam.D, f.Fam.M
	n := len(next) / d
	eta := make([]float64, m)
	psi := make([]float64, m)
	var s, s2, isVar float64
	for t := range n {
		p := phi[t*f.DPhi : (t+1)*f.DPhi]
		f.eta(p, eta)
		x := next[t*d : (t+1)*d]
		var logZ float64
		if d == 1 {
			if logZ, err = f.Fam.LogPartition(eta); err != nil {
				return 0, 0, 0, fmt.Errorf("transition %d: %w", t, err)
			}
		} else {
			lz, err := f.Fam.LogPartitionIS(eta, draws, rng, minESS)
			if err != nil {
				return 0, 0, 0, fmt.Errorf("transition %d: log Z: %w", t, err)
			}
			logZ, isVar = lz.LogZ, isVar+lz.SE*lz.SE
		}
		f.Fam.Psi(x, psi)
		l := f.Fam.LogBase(x) + expfam.Dot(psi, eta) - logZ
		s += l
		s2 += l * l
	}
	mean = s / float64(n)
	v := (s2 - float64(n)*mean*mean) / float64(n-1)
	return mean, math.Sqrt(max(v, 0) / float64(n)), math.Sqrt(isVar) / float64(n), nil
}

// KernelModel is a fitted kernel family as plain data, for a saved model:
// everything LogLik and sampling need, the centres included (they were
// drawn from the fitted data and cannot be drawn again without it).
// encoding/json writes each float64 in the shortest form that reads back
// to the same bits, so a model scores the same after a round trip.
type KernelModel struct {
	Dim       int         `json:"dim"`
	Centres   [][]float64 `json:"centres"` // m rows of dim numbers
	Bandwidth float64     `json:"bandwidth"`
	BaseScale float64     `json:"base_scale"`
	Lambda    float64     `json:"lambda"`
	W         [][]float64 `json:"W"` // m rows of d_phi numbers
}

// Model returns f as a KernelModel.
func (f *KernelFit) Model() KernelModel {
	m := KernelModel{Dim: f.Fam.D, Bandwidth: f.Fam.Sigma, BaseScale: f.Fam.Base, Lambda: f.Lambda}
	for k := range f.Fam.M {
		m.Centres = append(m.Centres, append([]float64(nil), f.Fam.Z[k*f.Fam.D:(k+1)*f.Fam.D]...))
		m.W = append(m.W, append([]float64(nil), f.W[k*f.DPhi:(k+1)*f.DPhi]...))
	}
	return m
}

// Fit rebuilds the fitted family from a KernelModel read back, refusing
// (ErrKernelSettings, naming the field) rows of the wrong length and what
// expfam.NewKernel refuses (bandwidth, base scale, coinciding centres).
func (m KernelModel) Fit() (*KernelFit, error) {
	if m.Dim < 1 || len(m.Centres) == 0 || len(m.W) != len(m.Centres) {
		return nil, fmt.Errorf("centres: %w: %d centres of dim %d for %d rows of W", ErrKernelSettings, len(m.Centres), m.Dim, len(m.W))
	}
	dphi := len(m.W[0])
	if dphi == 0 {
		return nil, fmt.Errorf("model W: %w: its rows are empty", ErrKernelSettings)
	}
	if !(m.Lambda > 0) || math.IsInf(m.Lambda, 0) {
		return nil, fmt.Errorf("lambda: %w: the model's λ must be a finite number > 0, got %v", ErrKernelSettings, m.Lambda)
	}
	z := make([]float64, 0, len(m.Centres)*m.Dim)
	w := make([]float64, 0, len(m.W)*dphi)
	for k, c := range m.Centres {
		if len(c) != m.Dim {
			return nil, fmt.Errorf("centres: %w: centre %d has %d numbers, want %d", ErrKernelSettings, k, len(c), m.Dim)
		}
		if len(m.W[k]) != dphi {
			return nil, fmt.Errorf("model W: %w: row %d has %d numbers, want %d", ErrKernelSettings, k, len(m.W[k]), dphi)
		}
		z = append(z, c...)
		w = append(w, m.W[k]...)
	}
	for i, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("model W: %w: entry %d is %v", ErrKernelSettings, i, v)
		}
	}
	for k, v := range z {
		if math.Abs(v) > kernelMaxBase {
			return nil, fmt.Errorf("centres: %w: centre %d holds %v, outside [−%d, %d]", ErrKernelSettings, k/m.Dim, v, kernelMaxBase, kernelMaxBase)
		}
	}
	if err := checkKernelScales(maxAbs(z), m.Bandwidth, m.BaseScale, "the largest |centre|", false); err != nil {
		return nil, err
	}
	f, err := expfam.NewKernel(m.Dim, z, m.Bandwidth, m.BaseScale)
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", err, ErrKernelSettings) // the setting first, as the other refusals
	}
	return &KernelFit{Fam: f, W: w, DPhi: dphi, Lambda: m.Lambda}, nil
}
