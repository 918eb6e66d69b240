package expfam

import (
	"math"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// TestCDFSkipBitIdentical checks that skipping the panels whose edges lie
// more than -skipLog nats below the maximum leaves every CDF and every
// table row bit-identical to evaluating every node, on each bounded-ψ and
// unbounded-ψ family, at η from the linear grid to far out on the geometric
// grid (where most panels are skipped), and likewise densSlope's shortcut for
// the density derivative at edges of zero density.
func TestCDFSkipBitIdentical(t *testing.T) {
	if math.Exp(skipLog+250) != 0 {
		t.Fatalf("exp(%d) = %g, want 0: skipLog leaves too little margin", skipLog+250, math.Exp(skipLog+250))
	}
	sin4, _ := NewSin(4, 1.7)
	sin1, _ := NewSin(1, 1)
	sin8, _ := NewSin(8, 2.5)
	esin, _ := NewExpSin(1.7)
	xsin, _ := NewXSin(1.7)
	cases := []struct {
		f    Scalar
		rows []int // grid offsets past the positive (+) and negative (−) edge
	}{
		{sin4, []int{-300, 0, 64, 300, 700, 1100}},
		{sin1, []int{-100, 0, 200, 600}},
		{sin8, []int{0, 150, 500, 900}},
		{esin, []int{-50, 0, 250, 650}},
		{xsin, []int{-8000, -200, 0, 300}},
	}
	defer func() { quadSkip = true }()
	skipped := 0
	for _, tc := range cases {
		tab := NewTable(tc.f)
		for _, k := range tc.rows {
			for _, i := range []int{2*tab.lin + k, -k} {
				eta := tab.gridEta(i)
				quadSkip = false
				ref, errRef := NewCDF(tc.f, eta)
				rowRef := tab.build(i)
				quadSkip = true
				got, err := NewCDF(tc.f, eta)
				row := tab.build(i)
				if (err == nil) != (errRef == nil) {
					t.Fatalf("%v η = %g: error %v, reference %v", tc.f, eta, err, errRef)
				}
				if err != nil {
					continue
				}
				if !sameCDF(got, ref) {
					t.Errorf("%v η = %g: CDF differs from the reference", tc.f, eta)
				}
				if !sameRow(row, rowRef) {
					t.Errorf("%v η = %g (row %d): table row differs from the reference", tc.f, eta, i)
				}
				if math.Abs(eta) > 600 {
					skipped++
				}
			}
		}
	}
	if skipped < 10 {
		t.Fatalf("only %d rows far enough out to skip panels", skipped)
	}
}

func sameCDF(a, b *CDF) bool {
	return numeric.SameBits([]float64{a.LogZ, a.Mean, a.Variance, a.MeanX, a.CovXPsi}, []float64{b.LogZ, b.Mean, b.Variance, b.MeanX, b.CovXPsi}) &&
		numeric.SameBits(a.edges, b.edges) && numeric.SameBits(a.cdf, b.cdf) && numeric.SameBits(a.dens, b.dens) &&
		numeric.SameBits(a.dl, b.dl) && numeric.SameBits(a.dr, b.dr)
}

func sameRow(a, b *tableRow) bool {
	if (a.err == nil) != (b.err == nil) || a.ref != b.ref {
		return false
	}
	for j := range a.node {
		if !numeric.SameBits(a.node[j][:], b.node[j][:]) {
			return false
		}
	}
	return numeric.SameBits(a.lo[:], b.lo[:]) && numeric.SameBits(a.hi[:], b.hi[:]) && numeric.SameBits(a.sub, b.sub) &&
		numeric.SameBits([]float64{a.logZ, a.mean, a.vari, a.meanX, a.covXPsi}, []float64{b.logZ, b.mean, b.vari, b.meanX, b.covXPsi})
}
