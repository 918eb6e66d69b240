// Package vmath evaluates elementary functions over slices, each element
// to the bit of package math's function of it:
//
//	Exps(dst, x):          dst[i] = math.Exp(x[i])           for i < len(dst)
//	Sins(dst, x):          dst[i] = math.Sin(x[i])
//	Sincoss(sin, cos, x):  sin[i], cos[i] = math.Sincos(x[i])  for i < len(sin)
//
// Where the CPU allows, a kernel runs math's arithmetic in four vector
// lanes at once: the same operations in the same order on each element,
// so the same roundings. Elements that take a branch of math's code other
// than its common path (zeros for the sine, NaN, ±Inf, huge arguments;
// for exp, results that overflow and those below 2⁻¹⁰²² that math reaches
// by its denormal branch) go to math's function itself.
// The sine's kernel is left out of builds with GOAMD64=v3 or later, where
// the compiler may fuse math's own Go code (math's exp is assembly, the
// same in every build). The kernels are a matter of speed, never of
// results: SMRL_NOSIMD=1 (internal/simd) turns them off, and the tests
// compare both paths with package math bit for bit.
package vmath
