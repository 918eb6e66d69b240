package numeric

import (
	"math"
	"testing"
)

// SameBits reports whether a and b have the same length and, element by
// element, the same IEEE 754 bits (so 0 and -0 differ, and a NaN equals only
// a NaN of the same payload).
func SameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// RequireSameBits fails t, naming what and the first element that differs,
// unless got and want have the same length and the same bits element by
// element.
func RequireSameBits(t testing.TB, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s[%d] = %v, want %v (bits differ)", what, i, got[i], want[i])
		}
	}
}

// SameBitsOrNaN reports whether got and want have the same IEEE 754 bits or
// are both NaN, whatever their payloads: the test of a kernel that must give
// package math's result bit for bit, where any NaN stands for math's NaN.
func SameBitsOrNaN(got, want float64) bool {
	return math.Float64bits(got) == math.Float64bits(want) || (math.IsNaN(got) && math.IsNaN(want))
}
