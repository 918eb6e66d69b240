package expfam

import (
	"math"
	"math/rand/v2"
	"testing"
)

func BenchmarkNewCDF(b *testing.B) {
	sin, _ := NewSin(4, 1.7)
	for i := 0; i < b.N; i++ {
		NewCDF(sin, 3)
	}
}

func BenchmarkTableRow(b *testing.B) {
	sin, _ := NewSin(4, 1.7)
	for i := 0; i < b.N; i++ {
		t := NewTable(sin)
		t.row(t.lin + 3*TableEtaRes)
	}
}

// BenchmarkTableSample measures one tabulated draw at varying η (rows built).
func BenchmarkTableSample(b *testing.B) {
	sin, _ := NewSin(4, 1.7)
	t := NewTable(sin)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		t.Quantile(-4+8*float64(i)/2000, 0.5)
	}
	b.ResetTimer()
	var s float64
	for i := 0; i < b.N; i++ {
		eta := -4 + 8*float64(i&1023)/1024
		s += t.Quantile(eta, rng.Float64())
	}
	_ = s
}

// reluBenchEta puts α₊ = −s(η₁ + η₂) ≈ 3.2 on the continued fraction and
// α₋ = s(η₁ − η₃) ≈ −0.4 on erfc.
var reluBenchEta = []float64{-0.8, -5.6, 0}

func BenchmarkReLUCumulants(b *testing.B) {
	f, _ := NewReLU(0.5, 3)
	grad, hess := make([]float64, 3), make([]float64, 9)
	var s float64
	for i := 0; i < b.N; i++ {
		a, _ := f.Cumulants(reluBenchEta, grad, hess)
		s += a
	}
	sinkF = s
}

func BenchmarkReLULogPartition(b *testing.B) {
	f, _ := NewReLU(0.5, 3)
	var s float64
	for i := 0; i < b.N; i++ {
		a, _ := f.LogPartition(reluBenchEta)
		s += a
	}
	sinkF = s
}

func BenchmarkReLUMean(b *testing.B) {
	f, _ := NewReLU(0.5, 3)
	var s float64
	for i := 0; i < b.N; i++ {
		s += f.Mean(reluBenchEta)
	}
	sinkF = s
}

// BenchmarkTableLookup measures the table's Cumulants, MeanX and Quantile
// with every row built, inside the linear grid (|η| < 4) and on the
// geometric grid beyond it (η ∈ [10, 30]).
func BenchmarkTableLookup(b *testing.B) {
	sin, _ := NewSin(4, 1.7)
	t := NewTable(sin)
	for _, r := range []struct {
		name   string
		lo, hi float64
	}{{"linear", -4, 4}, {"geometric", 10, 30}} {
		etas := make([]float64, 1024)
		for i := range etas {
			etas[i] = r.lo + (r.hi-r.lo)*(float64(i)+0.5)/1024
			t.Quantile(etas[i], 0.5)
		}
		b.Run("Cumulants/"+r.name, func(b *testing.B) {
			var s float64
			for i := 0; i < b.N; i++ {
				a, _, _, _ := t.Cumulants(etas[i&1023])
				s += a
			}
			sinkF = s
		})
		b.Run("MeanX/"+r.name, func(b *testing.B) {
			var s float64
			for i := 0; i < b.N; i++ {
				s += t.MeanX(etas[i&1023])
			}
			sinkF = s
		})
		b.Run("Quantile/"+r.name, func(b *testing.B) {
			var s float64
			for i := 0; i < b.N; i++ {
				s += t.Quantile(etas[i&1023], float64(i&4095)/4096*0.998+0.001)
			}
			sinkF = s
		})
	}
}

func BenchmarkReLUSample(b *testing.B) {
	f, _ := NewReLU(0.5, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	var s float64
	for i := 0; i < b.N; i++ {
		s += f.Sample(reluBenchEta, rng)
	}
	sinkF = s
}

// BenchmarkTableRowsFar builds, cold, 16 custom-sin rows spread over the
// geometric grid beyond ±TableGeoEta (η from ±8 to ±8·e^{1400/128} ≈ ±4.6e5),
// the rows a d_s = 8 run at λ = 1e-4 mostly needs.
func BenchmarkTableRowsFar(b *testing.B) {
	sin, _ := NewSin(4, 1.7)
	for i := 0; i < b.N; i++ {
		t := NewTable(sin)
		for k := 0; k < 8; k++ {
			t.row(2*t.lin + 200*k)
			t.row(-200*k - 1)
		}
	}
}

// BenchmarkKernelLineCDF measures one quadrature of the 1-D kernel family
// with 12 centres (kernelLine: Σ_k η_k exp(−r_k²/(2σ²)) at every grid point
// and node).
func BenchmarkKernelLineCDF(b *testing.B) {
	centres := make([]float64, 12)
	eta := make([]float64, 12)
	for k := range centres {
		centres[k] = -2.2 + 0.4*float64(k)
		eta[k] = 0.8 * math.Sin(1.3*float64(k))
	}
	f, err := NewKernel(1, centres, 0.5, 1.5)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := f.LineCDF(eta); err != nil {
			b.Fatal(err)
		}
	}
}
