package main

import (
	"strings"
	"testing"
)

// A typed flag's bad value is said in words, with exit 2, without Go's
// strconv wording.
func TestFlagValueErrorsInWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--episodes", "x"}, `invalid argument "x" for "--episodes" flag: want a whole number`},
		{[]string{"run", "--seed", "-1"}, `invalid argument "-1" for "--seed" flag: want a whole number ≥ 0`},
		{[]string{"run", "--workers", "99999999999999999999"}, `"--workers" flag: out of range for a whole number`},
		{[]string{"run", "--no-plots=maybe"}, `"--no-plots" flag: want true or false`},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "strconv") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
	}
}
