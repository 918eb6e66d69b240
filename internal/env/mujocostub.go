//go:build !mujoco

package env

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
)

// Without -tags mujoco the MuJoCo tasks are registered by name only, so
// that smrl list envs names them and a config selecting one is refused
// (exit 2) with how to build a binary that runs it.
func init() {
	for _, k := range MuJoCoKinds {
		name, alias := k[0], k[1]
		Register(Kind{Part: config.Part{Name: name, Aliases: []config.Alias{{Name: alias}},
			Doc: "Gymnasium's " + alias + " (MuJoCo): needs a build with -tags mujoco (make mujoco)",
			Validate: func(_ *config.Config, bad config.Bad) {
				bad("env.kind", "%s (%s) is a MuJoCo task and this smrl was built without it: %s", name, alias, MuJoCoBuildHint)
			}},
			Build: func(*config.Config) (*MDP, error) {
				return nil, fmt.Errorf("env.kind: %s (%s): %s", name, alias, MuJoCoBuildHint)
			}})
	}
}
