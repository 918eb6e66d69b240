// Package testutil holds the helpers that the packages' tests share: the
// flag telling whether the compiler may fuse multiply-adds, bit-for-bit and
// tolerance comparisons of float64 values, and loading a config. The
// numeric helpers are package numeric's (internal/testutil/numeric), which
// the tests of the leaf packages import so as to link no config; testutil
// re-exports them under the same names (numeric.go).
//
// Only _test.go files may import it (TestOnlyTestsImportTestutil fails
// naming any other file that does), so no binary links package testing.
// It imports internal/config, so the in-package tests of config and of the
// packages config imports (errs, expr) cannot use LoadConfig and keep their
// own loaders.
package testutil
