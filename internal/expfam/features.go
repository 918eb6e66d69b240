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
// They approximate the Gaussian kernel exp(−|z − z'|²/(2ℓ²)). After
// ScaleInputs(c) they are features of z_i/c_i instead: one length ℓ then
// fits inputs of different ranges.
//
// Phi allocates nothing, and evaluates the cosine with Cos (within 5e-16
// of math.Cos for |ω_jᵀz + b_j| ≤ 1, about 3× faster), so a batch of
// rollouts costs D multiply-adds per input plus D cosines per transition.
// On amd64 with AVX2 it runs in vector registers (rff_amd64.s), to the
// bit as the scalar loop (SMRL_NOSIMD=1 forces that loop).
//
// With FMA set, Phi computes the same features in fused multiply-adds
// (phiFMA: the config key features.fma), about 40% fewer operations in the
// AVX-512 kernels and other bits than without it; the default (false) keeps
// the bits every shipped config and measurement was made with.
type RFF struct {
	DS, DA int
	Omega  []float64 // D×(DS+DA)
	Bias   []float64
	Scale  float64
	Seed   uint64
	Length float64
	Inputs []float64 // the input scales c_i of ScaleInputs; nil: 1
	// FMA selects phiFMA's arithmetic (fused multiply-adds, the same bits
	// on every machine) over phiScalar's (separate multiplies and adds).
	FMA    bool
	omegaT []float64 // Omega transposed, (DS+DA)×D: Phi runs along j

	// omegaP and biasP are Omega and Bias in blocks of eight features for
	// PhiBatch8: omegaP[64·blk + 8i + k] = ω_{8·blk+k, i}, D rounded up to
	// a multiple of 8 with zero frequencies and phases.
	omegaP, biasP []float64

	// maxBias = max_j |b_j| and maxOmega[i] = max_j |ω_ji| bound every
	// argument of the cosine: |ω_jᵀz + b_j| ≤ maxBias + Σ_i maxOmega[i]|z_i|.
	maxBias  float64
	maxOmega []float64
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
	f.transpose()
	return f, nil
}

// transpose sets omegaT and the bounds maxBias and maxOmega from Omega and
// Bias.
func (f *RFF) transpose() {
	in, d := f.DS+f.DA, len(f.Bias)
	f.omegaT = make([]float64, len(f.Omega))
	f.maxOmega = make([]float64, in)
	for j := range d {
		for i := range in {
			w := f.Omega[j*in+i]
			f.omegaT[i*d+j] = w
			f.maxOmega[i] = max(f.maxOmega[i], math.Abs(w))
		}
	}
	f.maxBias = 0
	for _, b := range f.Bias {
		f.maxBias = max(f.maxBias, math.Abs(b))
	}
	d8 := (d + 7) &^ 7
	f.omegaP, f.biasP = make([]float64, d8*in), make([]float64, d8)
	copy(f.biasP, f.Bias)
	for j := range d {
		blk, k := j/8, j%8
		for i := range in {
			f.omegaP[blk*8*in+8*i+k] = f.Omega[j*in+i]
		}
	}
}

// Batch8Len is the length of PhiBatch8's out: 8 × D rounded up to a
// multiple of 8 features.
func (f *RFF) Batch8Len() int { return 8 * len(f.biasP) }

// argBound returns maxBias + Σ_i maxOmega[i]|x_i|, x = [s, a], a bound on
// every argument of the cosine at that input (NaN when an input is NaN).
func (f *RFF) argBound(s, a []float64) float64 {
	bound := f.maxBias
	mo := f.maxOmega[:len(s)+len(a)]
	for i, v := range s {
		bound += mo[i] * math.Abs(v)
	}
	for i, v := range a {
		bound += mo[len(s)+i] * math.Abs(v)
	}
	return bound
}

// ScaleInputs makes f the features of (z_1/c_1, …, z_n/c_n), n = d_s + d_a,
// by dividing column i of the frequencies by c_i. Each c_i must be a finite
// number > 0.
func (f *RFF) ScaleInputs(c []float64) error {
	in := f.DS + f.DA
	if len(c) != in {
		return fmt.Errorf("rff input scales: %d numbers for %d inputs (d_s + d_a)", len(c), in)
	}
	for i, v := range c {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("rff input scale %d must be a finite number > 0, got %v", i, v)
		}
	}
	for j := range f.Bias {
		for i, v := range c {
			f.Omega[j*in+i] /= v
		}
	}
	f.Inputs = append([]float64(nil), c...)
	f.transpose()
	return nil
}

// String names the map and its keys; fma=true only when FMA is set, so that
// the default's name (in model files and reports) is the one it always was.
func (f *RFF) String() string {
	fma := ""
	if f.FMA {
		fma = ", fma=true"
	}
	if f.Inputs != nil {
		return fmt.Sprintf("rff(dim=%d, length=%g, seed=%d, input_scale=%v%s)", len(f.Bias), f.Length, f.Seed, f.Inputs, fma)
	}
	return fmt.Sprintf("rff(dim=%d, length=%g, seed=%d%s)", len(f.Bias), f.Length, f.Seed, fma)
}
func (f *RFF) Dim() int       { return len(f.Bias) }
func (f *RFF) StateDim() int  { return f.DS }
func (f *RFF) ActionDim() int { return f.DA }

// Phi writes φ(s, a): phiScalar's bits, or phiFMA's when FMA is set, by a
// vector kernel where one gives them and by the Go loop otherwise.
func (f *RFF) Phi(s, a, out []float64) {
	if f.phiVector(s, a, out) {
		return
	}
	f.phiRef(s, a, out)
}

// PhiBulk sets out = f.Phi(s, a), the same bits, for smrl estimate's
// passes over its data: random Fourier features run their AVX-512 kernel
// there from 256 features (bulk512MinDim), where Phi of a run waits for
// 1500 (phi512MinDim: among a planner's AVX2 code the AVX-512 kernel slows
// that code). Measured for a Gaussian fit at D = 1024, whose statistics
// are Dsyrk products on the AVX-512 tile: with Phi in AVX2 the fit took
// more CPU time.
func PhiBulk(f Features, s, a, out []float64) {
	if r, ok := f.(*RFF); ok && r.phiBulkVector(s, a, out) {
		return
	}
	f.Phi(s, a, out)
}

// phiRef is the Go reference of the arithmetic f uses: phiFMA when FMA is
// set, phiScalar otherwise.
func (f *RFF) phiRef(s, a, out []float64) { f.phiRefFrom(s, a, out, 0) }

// phiRefFrom is phiRef of the features from j0 on (out[j0:D]; the vector
// kernels' tails): each feature's arithmetic does not depend on j0.
func (f *RFF) phiRefFrom(s, a, out []float64, j0 int) {
	if f.FMA {
		f.phiFMAFrom(s, a, out, j0)
	} else {
		f.phiScalarFrom(s, a, out, j0)
	}
}

// phiScalar is Phi's portable loop; phiVector (rff_amd64.go) gives the same
// bits in vector registers.
func (f *RFF) phiScalar(s, a, out []float64) { f.phiScalarFrom(s, a, out, 0) }

// phiScalarFrom is phiScalar of the features from j0 on.
func (f *RFF) phiScalarFrom(s, a, out []float64, j0 int) {
	d := len(f.Bias)
	out = out[j0:d]
	// z_j = b_j + Σ_i ω_ji x_i, accumulated input by input (the same order
	// of additions as a row-by-row dot product) along contiguous columns.
	copy(out, f.Bias[j0:])
	for i, v := range s[:f.DS] {
		axpy(out, f.omegaT[i*d+j0:(i+1)*d], v)
	}
	for i, v := range a[:f.DA] {
		axpy(out, f.omegaT[(f.DS+i)*d+j0:(f.DS+i+1)*d], v)
	}
	scaleCos(out, f.Scale)
}

// phiFMA is Phi's arithmetic with FMA set, the reference every kernel of
// that mode gives to the bit: φ_j = scale·cos(z_j) with
//
//	z_j = fma(ω_{j,n−1}, x_{n−1}, … fma(ω_j1, x_1, fma(ω_j0, x_0, b_j))),
//
// x = [s, a], a chain of fused multiply-adds in phiScalar's order (from b_j,
// input by input), and the cosine of cosFMA (the reduction's x/π + 1/2 and
// the Horner steps fused). math.FMA rounds once, exactly, on every CPU
// (an FMA instruction where there is one, software elsewhere), and the
// multiplies it does not fuse are never followed by an addition the
// compiler could fuse, so the bits are the same on every machine and in
// every build (GOAMD64=v3, purego, arm64), unlike phiScalar's.
func (f *RFF) phiFMA(s, a, out []float64) { f.phiFMAFrom(s, a, out, 0) }

// phiFMAFrom is phiFMA of the features from j0 on.
func (f *RFF) phiFMAFrom(s, a, out []float64, j0 int) {
	d := len(f.Bias)
	out = out[j0:d]
	copy(out, f.Bias[j0:])
	for i, v := range s[:f.DS] {
		fmaxpy(out, f.omegaT[i*d+j0:(i+1)*d], v)
	}
	for i, v := range a[:f.DA] {
		fmaxpy(out, f.omegaT[(f.DS+i)*d+j0:(f.DS+i+1)*d], v)
	}
	scaleCosFMA(out, f.Scale)
}

// fmaxpy sets out[j] = fma(w[j], v, out[j]) (len(w) ≥ len(out)).
func fmaxpy(out, w []float64, v float64) {
	w = w[:len(out)]
	for j := range out {
		out[j] = math.FMA(w[j], v, out[j])
	}
}

// axpy adds v·w to out (len(w) ≥ len(out)).
func axpy(out, w []float64, v float64) {
	w = w[:len(out)]
	for j := range out {
		out[j] += w[j] * v
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
