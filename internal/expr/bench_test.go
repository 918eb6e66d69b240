package expr

import (
	"math"
	"testing"
)

var sink float64

// BenchmarkPaperFamily is ψ' and ξ = (log q)' ψ' + ψ” of the paper's
// family written as expressions: one EvalD of each program, what an
// expression family's Score costs.
func BenchmarkPaperFamily(b *testing.B) {
	logq := MustCompile("-abs(x)^1.7/1.7", "x")
	psi := MustCompile("sin(4*x)", "x")
	x := []float64{0.3}
	for i := 0; b.Loop(); i++ {
		x[0] = 0.3 + float64(i&255)*0.01
		_, d, dd := psi.EvalD(x, 0)
		_, dl, _ := logq.EvalD(x, 0)
		sink += dl*d + dd
	}
}

// BenchmarkPaperFamilyGo is the same in hand-written Go (the built-in
// custom-sin's arithmetic), for comparison.
func BenchmarkPaperFamilyGo(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		x := 0.3 + float64(i&255)*0.01
		s, c := math.Sincos(4 * x)
		dl := -math.Copysign(math.Exp(0.7*math.Log(math.Abs(x))), x)
		sink += dl*4*c - 16*s
	}
}

func BenchmarkEvalPsi(b *testing.B) {
	psi := MustCompile("sin(4*x)", "x")
	x := []float64{0.3}
	for b.Loop() {
		sink += psi.Eval(x)
	}
}

// BenchmarkPsiD is ψ, ψ' and ψ” of the paper's ψ(x) = sin(4x).
func BenchmarkPsiD(b *testing.B) {
	psi := MustCompile("sin(4*x)", "x")
	x := []float64{0.3}
	for i := 0; b.Loop(); i++ {
		x[0] = 0.3 + float64(i&255)*0.01
		v, d, dd := psi.EvalD(x, 0)
		sink += v + d + dd
	}
}

// BenchmarkLogQD is log q and its derivatives for q = exp(−|x|^1.7/1.7).
func BenchmarkLogQD(b *testing.B) {
	logq := MustCompile("-abs(x)^1.7/1.7", "x")
	x := []float64{0.3}
	for i := 0; b.Loop(); i++ {
		x[0] = 0.3 + float64(i&255)*0.01
		v, d, dd := logq.EvalD(x, 0)
		sink += v + d + dd
	}
}
