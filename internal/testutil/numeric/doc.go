// Package numeric holds the helpers of package testutil that import nothing
// of smrl: tolerance and bit-for-bit comparisons of float64 values, the
// flags telling whether the compiler may fuse multiply-adds (FusedMulAdd,
// AMD64V3), and the test binaries' garbage-collector target (FewerGCs).
//
// The tests of the leaf packages (dataset, expfam, linalg, mcmc, metrics,
// stats, vmath) import it instead of testutil, whose config loaders link
// internal/config, viper and YAML into every test binary that imports it:
// their test binaries are half the size and link in about half the time.
// testutil re-exports every name of it, so a test that also loads a config
// imports testutil alone. Like testutil, only _test.go files may import it
// (TestOnlyTestsImportTestutil).
package numeric
