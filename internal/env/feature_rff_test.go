package env

import (
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// The rff keys' fma reaches the map built for either section: false by
// default (the arithmetic of earlier versions, and the map's name
// unchanged), true when set, in the true environment's env.features and in
// the learners' model.features; the name says fma=true then.
func TestRFFFMAKeyBuildsFMA(t *testing.T) {
	base := testutil.LoadConfig(t, "")
	base.Env.Features.Kind = "rff"
	for _, section := range []string{"env.features", "model.features"} {
		for _, fma := range []bool{false, true} {
			c := base
			if fma {
				var err error
				if c, err = base.With(section+".fma", true); err != nil {
					t.Fatal(err)
				}
			}
			f, err := rffFeatures.Build(c, section, 2, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := f.(*expfam.RFF)
			if !ok || r.FMA != fma {
				t.Fatalf("%s.fma %v: built %v (FMA %v)", section, fma, f, ok && r.FMA)
			}
			if want := "rff(dim=64, length=1, seed=7)"; !fma && r.String() != want {
				t.Errorf("%s: name %q, want the earlier versions' %q", section, r.String(), want)
			} else if want := "rff(dim=64, length=1, seed=7, fma=true)"; fma && r.String() != want {
				t.Errorf("%s.fma true: name %q, want %q", section, r.String(), want)
			}
		}
	}
}
