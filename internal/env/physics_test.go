package env

import (
	"errors"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// Issue 19, item 10: subnormal physics constants passed "(0, 1e6]" and
// failed later with exit 1 and a hint about lambda. They are refused now
// by the environment's Validate, naming the key; the bounds
// [config.MinPhysics, config.MaxPhysics] themselves still load.
func TestPhysicsConstantsHaveMeaningfulLowerBounds(t *testing.T) {
	pendulum := "env:\n  kind: pendulum\n  horizon: 200\n  action_space: box\n  action_low: [-2]\n  action_high: [2]\n  pendulum: {%s}\nplanner:\n  kind: mppi\n"
	car := "env:\n  kind: mountain-car\n  horizon: 999\n  action_space: box\n  action_low: [-1]\n  action_high: [1]\n  mountain_car: {%s}\nplanner:\n  kind: mppi\n"
	for _, tc := range []struct{ body, want string }{
		{strings.Replace(pendulum, "%s", "mass: 1e-320", 1), "env.pendulum.mass: must lie in [1e-6, 1e6], got 1e-320"},
		{strings.Replace(pendulum, "%s", "max_torque: 1e-320", 1), "env.pendulum.max_torque: must lie in [1e-6, 1e6], got 1e-320"},
		{strings.Replace(pendulum, "%s", "max_speed: 5e-324, init_speed: 0", 1), "env.pendulum.max_speed: must lie in [1e-6, 1e6], got 5e-324"},
		{strings.Replace(pendulum, "%s", "length: 1e-7", 1), "env.pendulum.length: must lie in [1e-6, 1e6]"},
		{strings.Replace(pendulum, "%s", "mass: 1.000001e6", 1), "env.pendulum.mass: must lie in [1e-6, 1e6]"},
		{strings.Replace(car, "%s", "power: 1e-320", 1), "env.mountain_car.power: must lie in [1e-6, 1e6], got 1e-320"},
		{strings.Replace(car, "%s", "max_speed: 1e-320, goal_velocity: 0", 1), "env.mountain_car.max_speed: must lie in [1e-6, 1e6]"},
		{strings.Replace(pendulum, "%s", "mass: 1e-6, max_torque: 1e-6", 1), ""},
		{strings.Replace(pendulum, "%s", "mass: 1e6", 1), ""},
		{strings.Replace(car, "%s", "power: 1e-6", 1), ""},
	} {
		_, err := testutil.LoadYAML(t, tc.body)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.body, err)
			}
			continue
		}
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.body, err, tc.want)
		}
	}
	if config.MinPhysics != 1e-6 || config.MaxPhysics != 1e6 {
		t.Errorf("the messages say [1e-6, 1e6], the bounds are [%g, %g]", config.MinPhysics, config.MaxPhysics)
	}
}
