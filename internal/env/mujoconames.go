package env

// MuJoCoKinds are the environment kinds of package env/mujoco (env.kind
// and the Gymnasium id that selects each), which links the MuJoCo library
// through cgo and so builds only with -tags mujoco. An untagged binary
// registers them as needing that build (mujocostub.go); package mujoco's
// tests check that it registers each.
var MuJoCoKinds = [][2]string{
	{"inverted-pendulum", "InvertedPendulum-v4"},
	{"reacher", "Reacher-v4"},
	{"half-cheetah", "HalfCheetah-v4"},
	{"hopper", "Hopper-v4"},
}

// MuJoCoBuildHint says how to build a binary with the MuJoCo tasks.
const MuJoCoBuildHint = "it needs a binary built with MuJoCo: install libmujoco-dev (Debian: apt-get install libmujoco-dev) " +
	"and build with go build -tags mujoco ./cmd/smrl, or make mujoco (docs/mujoco.md)"
