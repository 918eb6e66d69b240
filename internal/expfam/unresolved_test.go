package expfam

import (
	"errors"
	"math"
	"testing"
	"time"
)

// Densities too sharp for the quadrature (a huge α, a huge natural
// parameter) are refused with ErrUnresolved, quickly and without a huge
// allocation, where they used to panic in makeslice.
func TestNewCDFRefusesUnresolvableDensities(t *testing.T) {
	sharp, err := NewSin(4, 1000)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := NewSin(4, 1.7)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    Scalar
		eta  float64
	}{
		{"alpha 1000", sharp, 1},
		{"eta 1e20", paper, 1e20},
		{"eta -1e15", paper, -1e15},
	} {
		start := time.Now()
		_, err := NewCDF(tc.f, tc.eta)
		if !errors.Is(err, ErrUnresolved) && !errors.Is(err, ErrNotNormalisable) {
			t.Errorf("%s: err = %v, want ErrUnresolved or ErrNotNormalisable", tc.name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %v to refuse", tc.name, d)
		}
	}
	// The sampler turns the refusal into NaN, which callers check.
	if q := NewTable(paper).Quantile(1e20, 0.5); !math.IsNaN(q) {
		t.Errorf("Quantile at η = 1e20 = %v, want NaN", q)
	}
}
