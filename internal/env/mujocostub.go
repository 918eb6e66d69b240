//go:build !mujoco

package env

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
)

// Without -tags mujoco the MuJoCo tasks are registered by name only, so
// that smrl list envs names them and a config selecting one loads (its
// keys are those of the tagged build, so its snapshot is the same) but
// cannot be built: env.New refuses it (exit 2, before any output) saying
// how to build a binary that runs it.
func init() {
	for _, k := range MuJoCoKinds {
		Register(Kind{Part: config.Part{Name: k.Name, Aliases: []config.Alias{k.GymAlias()},
			Doc:  "Gymnasium's " + k.Alias + " (MuJoCo): needs a build with -tags mujoco (make mujoco)",
			Uses: []string{"model"}, Dim: k.Dim},
			Build: func(*config.Config) (*MDP, error) {
				return nil, fmt.Errorf("env.kind: %s (%s) is a MuJoCo task and this smrl was built without it: %s", k.Name, k.Alias, MuJoCoBuildHint)
			}})
	}
}
