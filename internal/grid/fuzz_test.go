package grid

import (
	"errors"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// FuzzParseSet feeds arbitrary --set arguments to the grid parser. It must
// never panic; it either returns an axis of distinct values whose texts
// make one safe directory name each, or an input error quoting the
// argument.
func FuzzParseSet(f *testing.F) {
	for _, s := range []string{"planner.tau=1,2,5", "lambda=log:1e-6:1e-2:5", "planner.n_rollouts=lin:10:100:10",
		"env.w0=[[1,1]],[[1,-1]]", "env.actions=[1,-1],[-1,1]", "planner.rollout=sample,mean", "seed=lin:0:1e19:2",
		"planner.tau=lin:1:1e308:3", "confidence.b_psi=auto,3", "=", "x", "planner.tau=[,]", "env.w0=[[", "lambda=lin:nan:1:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		a, err := ParseSet(arg)
		if err != nil {
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "--set "+arg) {
				t.Fatalf("error %v is not an input error quoting the argument", err)
			}
			return
		}
		g := &Grid{Axes: []*Axis{a}}
		seen := map[string]bool{}
		for i := range a.Values {
			name := g.DirName([]int{i})
			if seen[name] || strings.ContainsAny(name, "/\\\x00") || name == "" || name == "." || name == ".." {
				t.Fatalf("value %d of %q: directory name %q is unsafe or not unique", i, arg, name)
			}
			seen[name] = true
		}
	})
}
