package expfam

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
)

// KernelSpec is a kernel family before its data: the choices a config
// makes (the number of centres m, the bandwidth or its candidates, the
// base scale or "the data's", the graph), with the statistics themselves
// (the centres, the chosen σ and b) bound at fit time from the fitted next
// states (estimator.FitKernelSpec). It is the data-dependent family of
// env.family.kind: kernel without explicit centre points and of
// model.family: kernel: env.New builds it before any data exist, so it
// stands in the ModelSpec as a Distribution whose String, StateDim and
// StatDim are known, and an estimator that finds it (a type assertion,
// not a key's name) binds it. Its other methods are never reached by a
// caller that binds first; they panic with ErrKernelUnbound, a
// programming error (the config layer refuses every path that would
// sample an unbound family: a true kernel family needs its centre points).
//
// Graph "joint" is one kernel family on R^d (d_psi = m, W m×d_phi);
// graph "autoregressive" is one 1-D kernel family per coordinate i given
// (s, a, s'_<i) (d_psi = m per coordinate, W_i m×(d_phi + i)); StatDim is
// then d·m.
type KernelSpec struct {
	D, M int
	// Bandwidths are the candidates of σ: one, fixed; nil, the default log
	// grid around the median distance of the fitted next states.
	Bandwidths []float64
	// BaseScale is b; 0 takes the standard deviation of the fitted next
	// states (per coordinate for the autoregressive graph).
	BaseScale float64
	Graph     string // "joint" or "autoregressive"
	Seed      uint64 // of the centres' subsample
}

// ErrKernelUnbound is the panic of an unbound KernelSpec asked for what
// only a bound family has.
var ErrKernelUnbound = errors.New("kernel family used before it was bound to data (estimator.FitKernelSpec)")

// Kernel graphs.
const (
	KernelJoint          = "joint"
	KernelAutoregressive = "autoregressive"
)

func (k *KernelSpec) String() string {
	bw := "cv"
	if len(k.Bandwidths) == 1 {
		bw = fmt.Sprint(k.Bandwidths[0])
	} else if len(k.Bandwidths) > 1 {
		s := make([]string, len(k.Bandwidths))
		for i, b := range k.Bandwidths {
			s[i] = fmt.Sprint(b)
		}
		bw = "cv of [" + strings.Join(s, " ") + "]"
	}
	base := "data"
	if k.BaseScale > 0 {
		base = fmt.Sprint(k.BaseScale)
	}
	return fmt.Sprintf("kernel(dim=%d, centres=%d, bandwidth=%s, base_scale=%s, graph=%s)", k.D, k.M, bw, base, k.Graph)
}

// StateDim is d.
func (k *KernelSpec) StateDim() int { return k.D }

// StatDim is m for the joint graph, d·m for the autoregressive one.
func (k *KernelSpec) StatDim() int {
	if k.Graph == KernelAutoregressive {
		return k.D * k.M
	}
	return k.M
}

func (k *KernelSpec) unbound() { panic(ErrKernelUnbound) }

// Psi, LogBase, ScoreTerms, Sample and Mean need the bound family.
func (k *KernelSpec) Psi(x, out []float64)                            { k.unbound() }
func (k *KernelSpec) LogBase(x []float64) float64                     { k.unbound(); return 0 }
func (k *KernelSpec) ScoreTerms(x, jac, xi []float64)                 { k.unbound() }
func (k *KernelSpec) Sample(eta []float64, r *rand.Rand, o []float64) { k.unbound() }
func (k *KernelSpec) Mean(eta, out []float64)                         { k.unbound() }

// LogPartition fails: an unbound family has no statistics to normalise.
func (k *KernelSpec) LogPartition(eta []float64) (float64, error) { return 0, ErrKernelUnbound }

// KernelDist is a bound joint kernel family on R^d as a Distribution:
// for d = 1 sampled by the inverse CDF of its quadrature (exact), its
// mean by the same quadrature. For d > 1 wrap the Kernel in NewMCMC
// instead (the Joint interface).
type KernelDist struct{ *Kernel }

// CheckEta returns the error the quadrature of Sample and Mean fails
// with at η, nil when it succeeds: a finite but huge η (a saved W entry
// of 1e50, say) makes a tilt e^{η_k} too large to normalise in float64.
// Callers that take η from user input (smrl sample, env.kind model)
// check it first, so that Sample's panic is a programming error.
func (k KernelDist) CheckEta(eta []float64) error {
	_, err := k.LineCDF(eta)
	return err
}

// EtaChecker is a Distribution whose Sample and Mean are defined for
// finite η only where CheckEta accepts it (KernelDist).
type EtaChecker interface {
	CheckEta(eta []float64) error
}

// Sample draws x ~ P(· | η) by the inverse CDF (d = 1). A quadrature
// failure (an η that CheckEta refuses) panics: its callers check η first.
func (k KernelDist) Sample(eta []float64, rng *rand.Rand, out []float64) {
	x, err := k.SampleLine(eta, rng)
	if err != nil {
		panic(fmt.Sprintf("kernel family: %v", err))
	}
	out[0] = x
}

// Mean writes E[x | η] (d = 1) as ∫_0^1 Q(u) du by the midpoint rule on
// 2000 quantiles of the quadrature's inverse CDF (the mean planners' use;
// error well below the law's scale·1e-3 for these light-tailed laws).
func (k KernelDist) Mean(eta, out []float64) {
	c, err := k.LineCDF(eta)
	if err != nil {
		panic(fmt.Sprintf("kernel family: %v", err))
	}
	const n = 2000
	var s float64
	for i := range n {
		s += c.Quantile((float64(i) + 0.5) / n)
	}
	out[0] = k.Base * s / n
}
