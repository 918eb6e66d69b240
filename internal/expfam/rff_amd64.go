//go:build !purego && !amd64.v3

package expfam

import (
	"math"

	"github.com/smrl-dev/smrl/internal/simd"
)

// useAVX2 selects the AVX2 kernels of random Fourier features (rffPhiAVX2)
// and of long rows of η = W φ (dot4x4AVX2), decided once at start-up
// (simd.AVX2: the CPU supports AVX2 and SMRL_NOSIMD is unset); the scalar
// loops give the same bits.
var useAVX2 = simd.AVX2

// rffConsts are the constants of the vector cosine, each four times (one
// 256-bit load): 1/π, 1/2, roundMagic, cosP7, …, cosP0, in the order of the
// offsets in rff_amd64.s.
type rffConsts [11][4]uint64

var rffC = func() (c rffConsts) {
	simd.Broadcast(c[:], simd.Float64s(1/math.Pi, 0.5, roundMagic,
		cosP7, cosP6, cosP5, cosP4, cosP3, cosP2, cosP1, cosP0)...)
	return c
}()

// rffPhiAVX2 sets phi[j] = scale·cos(b_j + Σ_i ω_ij x_i) for j < n4 (a
// multiple of 4, ≤ d), x = [s[0:ds], a[0:da]] (a may be nil when da is 0),
// with omegaT the (ds+da)×d transposed frequencies, and adds to
// part[4k:4k+4] the four partial sums of Dot4 over those n4 entries of row
// k of w (nrows rows of length d; nrows may be 0, w and part nil). When
// eta is not nil it also sets eta[k] = (s0 + s1) + (s2 + s3) from those
// sums: Dot4 of the rows when n4 = d. Every argument must be inside Cos's
// reduction range (|z| < 2^50, not NaN): the kernel does not check.
//
//go:noescape
func rffPhiAVX2(c *rffConsts, omegaT, bias, s *float64, ds int, a *float64, da, d, n4 int, scale float64, phi, w *float64, nrows int, part, eta *float64)

// dot4x4AVX2 writes to out[4k:4k+4] the four partial sums of Dot4 over the
// first n4 (a multiple of 4) entries of row w_k and y, for four rows.
//
//go:noescape
func dot4x4AVX2(w0, w1, w2, w3, y *float64, n4 int, out *[16]float64)

// phiVector is Phi with the AVX2 kernel. It returns false, having written
// nothing meaningful, when the kernel is off or does not apply (then the
// caller runs phiScalar).
func (f *RFF) phiVector(s, a, out []float64) bool { return f.phiEtaVector(s, a, out, nil, nil) }

// etaVector sets phi = Phi(s, a) and eta[k] = Dot4(w[k·d : (k+1)·d], phi)
// for every k < len(eta), d = Dim(), with the AVX2 kernel, which adds each
// group of features to the rows' partial sums while it is in registers: the
// bits of Phi followed by Eta's Dot4. It returns false, having written
// nothing meaningful, when the kernel is off or does not apply.
func (f *RFF) etaVector(s, a, w, phi, eta []float64) bool {
	if len(eta) == 0 || len(eta) > maxFusedRows || len(w) < len(eta)*len(f.Bias) {
		return false
	}
	return f.phiEtaVector(s, a, phi, w, eta)
}

// phiEtaVector is phiVector, and etaVector when eta is not empty.
func (f *RFF) phiEtaVector(s, a, out, w, eta []float64) bool {
	ds, da, d := f.DS, f.DA, len(f.Bias)
	if !useAVX2 || d < 4 || ds < 1 {
		return false
	}
	s, a = s[:ds], a[:da]
	// Half of Cos's range, for the rounding of the bound and of the
	// arguments; beyond it (and for NaN or ±Inf inputs) the scalar loop
	// calls math.Cos where it must.
	if !(f.argBound(s, a) < cosMaxArg/2) {
		return false
	}
	out = out[:d]
	wt := f.omegaT[:(ds+da)*d]
	n4 := d &^ 3
	var part [4 * maxFusedRows]float64
	var wp, ap, ep *float64
	if len(eta) > 0 {
		w = w[:len(eta)*d]
		wp = &w[0]
		if n4 == d {
			ep = &eta[0] // the kernel adds the lanes: no tail to add first
		}
	}
	if da > 0 {
		ap = &a[0]
	}
	rffPhiAVX2(&rffC, &wt[0], &f.Bias[0], &s[0], ds, ap, da, d, n4, f.Scale, &out[0], wp, len(eta), &part[0], ep)
	if n4 == d {
		return true
	}
	// The last d mod 4 features, as phiScalar computes them.
	for j := n4; j < d; j++ {
		z := f.Bias[j]
		for i, v := range s {
			z += wt[i*d+j] * v
		}
		for i, v := range a {
			z += wt[(ds+i)*d+j] * v
		}
		out[j] = z
	}
	scaleCos(out[n4:], f.Scale)
	for k := range eta {
		// Dot4's tail and its combination of the four lanes.
		s0, s1, s2, s3 := part[4*k], part[4*k+1], part[4*k+2], part[4*k+3]
		row := w[k*d : (k+1)*d]
		for j := n4; j < d; j++ {
			s0 += row[j] * out[j]
		}
		eta[k] = (s0 + s1) + (s2 + s3)
	}
	return true
}

// dot4Rows sets eta[k] = Dot4(w[k·n : (k+1)·n], y), n = len(y), for every
// k < len(eta), with the AVX2 kernel: the same partial sums, so the same
// bits. It returns false, doing nothing, when the kernel is off.
func dot4Rows(w, y, eta []float64) bool {
	n := len(y)
	if !useAVX2 || n < 4 || len(w) < len(eta)*n {
		return false
	}
	n4 := n &^ 3
	var part [16]float64
	for k0 := 0; k0 < len(eta); k0 += 4 {
		var rows [4]*float64
		for r := range rows {
			k := min(k0+r, len(eta)-1) // a short last group repeats its last row
			rows[r] = &w[k*n]
		}
		dot4x4AVX2(rows[0], rows[1], rows[2], rows[3], &y[0], n4, &part)
		for r := 0; r < 4 && k0+r < len(eta); r++ {
			k := k0 + r
			s0, s1, s2, s3 := part[4*r], part[4*r+1], part[4*r+2], part[4*r+3]
			row := w[k*n : (k+1)*n]
			for j := n4; j < n; j++ {
				s0 += row[j] * y[j]
			}
			eta[k] = (s0 + s1) + (s2 + s3)
		}
	}
	return true
}
