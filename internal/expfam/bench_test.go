package expfam

import (
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
