package expfam

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Features is a feature map phi: S×A → R^{d_phi}.
type Features interface {
	String() string
	// Dim is d_phi.
	Dim() int
	// StateDim and ActionDim are the dimensions of s and a it accepts.
	StateDim() int
	ActionDim() int
	// Phi writes phi(s, a) into out (len d_phi).
	Phi(s, a, out []float64)
}

// Linear is phi(s, a) = [s, a], the paper's features.
type Linear struct{ DS, DA int }

func (f Linear) String() string { return "linear" }
func (f Linear) Dim() int       { return f.DS + f.DA }
func (f Linear) StateDim() int  { return f.DS }
func (f Linear) ActionDim() int { return f.DA }
func (f Linear) Phi(s, a, out []float64) {
	copy(out, s[:f.DS])
	copy(out[f.DS:], a[:f.DA])
}

// Affine is phi(s, a) = [s, a, 1].
type Affine struct{ DS, DA int }

func (f Affine) String() string { return "affine" }
func (f Affine) Dim() int       { return f.DS + f.DA + 1 }
func (f Affine) StateDim() int  { return f.DS }
func (f Affine) ActionDim() int { return f.DA }
func (f Affine) Phi(s, a, out []float64) {
	copy(out, s[:f.DS])
	copy(out[f.DS:], a[:f.DA])
	out[f.DS+f.DA] = 1
}

// Constant is phi ≡ 1: an unconditional family with η = W (d_phi = 1).
type Constant struct{ DS, DA int }

func (f Constant) String() string          { return "constant" }
func (f Constant) Dim() int                { return 1 }
func (f Constant) StateDim() int           { return f.DS }
func (f Constant) ActionDim() int          { return f.DA }
func (f Constant) Phi(_, _, out []float64) { out[0] = 1 }

// RFF are random Fourier features of z = [s, a]:
// phi_j = sqrt(2/D) cos(ω_jᵀ z + b_j), ω_j ~ N(0, I/ℓ²), b_j ~ Unif[0, 2π),
// drawn once from a seeded PCG stream, so the same seed gives the same map.
type RFF struct {
	DS, DA int
	Omega  []float64 // D×(DS+DA)
	Bias   []float64
	Scale  float64
	Seed   uint64
	Length float64
}

// NewRFF draws d random Fourier features with length scale ell.
func NewRFF(ds, da, d int, ell float64, seed uint64) (*RFF, error) {
	if d < 1 {
		return nil, fmt.Errorf("rff dimension must be >= 1, got %d", d)
	}
	if !(ell > 0) || math.IsInf(ell, 0) {
		return nil, fmt.Errorf("rff length scale must be a finite number > 0, got %v", ell)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed_0ff))
	in := ds + da
	f := &RFF{DS: ds, DA: da, Omega: make([]float64, d*in), Bias: make([]float64, d),
		Scale: math.Sqrt(2 / float64(d)), Seed: seed, Length: ell}
	for i := range f.Omega {
		f.Omega[i] = rng.NormFloat64() / ell
	}
	for i := range f.Bias {
		f.Bias[i] = 2 * math.Pi * rng.Float64()
	}
	return f, nil
}

func (f *RFF) String() string {
	return fmt.Sprintf("rff(dim=%d, length=%g, seed=%d)", len(f.Bias), f.Length, f.Seed)
}
func (f *RFF) Dim() int       { return len(f.Bias) }
func (f *RFF) StateDim() int  { return f.DS }
func (f *RFF) ActionDim() int { return f.DA }
func (f *RFF) Phi(s, a, out []float64) {
	in := f.DS + f.DA
	for j := range f.Bias {
		w := f.Omega[j*in : (j+1)*in]
		z := f.Bias[j]
		for i, v := range s[:f.DS] {
			z += w[i] * v
		}
		for i, v := range a[:f.DA] {
			z += w[f.DS+i] * v
		}
		out[j] = f.Scale * math.Cos(z)
	}
}

// PerAction gives each action of a discrete set its own block of features:
// phi(s, a) = [s·1{a=a_1}, 1{a=a_1}, …, s·1{a=a_m}, 1{a=a_m}], so an
// action's parameters are learned only from transitions that played it.
type PerAction struct {
	DS      int
	Actions [][]float64
}

func (f PerAction) String() string { return "per-action" }
func (f PerAction) Dim() int       { return len(f.Actions) * (f.DS + 1) }
func (f PerAction) StateDim() int  { return f.DS }
func (f PerAction) ActionDim() int { return len(f.Actions[0]) }
func (f PerAction) Phi(s, a, out []float64) {
	clear(out[:f.Dim()])
	for i, act := range f.Actions {
		if slices.Equal(act, a[:len(act)]) {
			b := out[i*(f.DS+1):]
			copy(b, s[:f.DS])
			b[f.DS] = 1
			return
		}
	}
}
