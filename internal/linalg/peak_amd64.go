//go:build !purego

package linalg

// peakFMA256 and peakFMA512 run n rounds of twelve independent fused
// multiply-adds on 256-bit and on 512-bit registers (peak_amd64.s): the
// machine's peak rate, against which BenchmarkPeakFMA puts the kernels'.
//
//go:noescape
func peakFMA256(n int)

//go:noescape
func peakFMA512(n int)
