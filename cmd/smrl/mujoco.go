//go:build mujoco

package main

// A binary built with -tags mujoco runs Gymnasium's MuJoCo tasks
// (docs/mujoco.md): their package registers them as environments.
import _ "github.com/smrl-dev/smrl/internal/env/mujoco"
