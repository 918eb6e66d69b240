package numeric

import (
	"math"
	"testing"
)

// Within reports whether got is within tol of want, absolutely or relative to
// |want|:
//
//	|got − want| ≤ tol · max(1, |want|).
//
// Two infinities of the same sign are within any tol; a NaN is within
// nothing. tol must be non-negative.
func Within(got, want, tol float64) bool {
	if got == want {
		return true
	}
	if math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false
	}
	d := math.Abs(got - want)
	return d <= tol*math.Max(1, math.Abs(want))
}

// Close fails t, naming what, unless got is Within tol of want.
func Close(t testing.TB, what string, got, want, tol float64) {
	t.Helper()
	if !Within(got, want, tol) {
		t.Fatalf("%s = %v, want %v (tolerance %g)", what, got, want, tol)
	}
}

// CloseSlices fails t, naming what and the first element that differs,
// unless got and want have the same length and each got[i] is Within tol of
// want[i].
func CloseSlices(t testing.TB, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !Within(got[i], want[i], tol) {
			t.Fatalf("%s[%d] = %v, want %v (tolerance %g)", what, i, got[i], want[i], tol)
		}
	}
}

// AbsClose reports on t (t.Errorf, the test goes on), naming what, unless
// |got − want| ≤ tol: an absolute tolerance, for the checks written
// math.Abs(got-want) > tol by hand. It reports whether got was close. Equal
// values (infinities too) are close; a NaN is not (the hand-written check
// let a NaN pass).
func AbsClose(t testing.TB, what string, got, want, tol float64) bool {
	t.Helper()
	if AbsWithin(got, want, tol) {
		return true
	}
	t.Errorf("%s = %.15g, want %.15g (absolute tolerance %g)", what, got, want, tol)
	return false
}

// AbsWithin reports whether |got − want| ≤ tol: an absolute tolerance, the
// predicate of AbsClose for checks that report in their own words. Equal
// values (infinities too) are within; a NaN is not.
func AbsWithin(got, want, tol float64) bool {
	return got == want || math.Abs(got-want) <= tol
}

// AbsClosef reports format and args on t (t.Errorf, the test goes on)
// unless AbsWithin(got, want, tol): the one-line form of
//
//	if math.Abs(got-want) > tol { t.Errorf(format, args...) }
//
// that also reports a NaN. The message, formatted only on failure, should
// name got and want. It reports whether got was close.
func AbsClosef(t testing.TB, got, want, tol float64, format string, args ...any) bool {
	t.Helper()
	if AbsWithin(got, want, tol) {
		return true
	}
	t.Errorf(format, args...)
	return false
}
