//go:build mujoco

package mujoco

// sumSquares is Σ a_i².
func sumSquares(a []float64) float64 {
	var s float64
	for _, x := range a {
		s += x * x
	}
	return s
}
