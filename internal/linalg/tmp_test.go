package linalg

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

func benchPanel(b *testing.B, narrow bool) {
	u := upperFactor(128, 2000, 1, 1)
	x0 := randMat(rand.New(rand.NewPCG(1, 2)), 128*2000)
	x := make([]float64, len(x0))
	defer func(s bool) { narrowSolve = s }(narrowSolve)
	narrowSolve = narrow
	best := fastest(b, func() {
		copy(x, x0)
		Impl{}.Dtrsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, 128, 1872, 1, u, 2000, x[128:], 2000)
	})
	b.ReportMetric(best/1e6, "min-ms/op")
}
func BenchmarkTmpPanelNarrow(b *testing.B)  { benchPanel(b, true) }
func BenchmarkTmpPanelGeneral(b *testing.B) { benchPanel(b, false) }
