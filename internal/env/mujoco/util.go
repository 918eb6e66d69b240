//go:build mujoco

package mujoco

import "math"

// allFinite reports whether no coordinate of s is NaN or infinite.
func allFinite(s []float64) bool {
	for _, x := range s {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// sumSquares is Σ a_i².
func sumSquares(a []float64) float64 {
	var s float64
	for _, x := range a {
		s += x * x
	}
	return s
}
