// Package mujoco registers Gymnasium's v4 MuJoCo tasks (InvertedPendulum,
// Reacher, HalfCheetah, Hopper) as environment kinds, simulated by the
// MuJoCo library (Debian's libmujoco-dev 2.2.2, headless) through cgo.
// It builds only with -tags mujoco; cmd/smrl imports it under that tag
// (cmd/smrl/mujoco.go), and an untagged binary names the tasks as needing
// it (internal/env/mujocostub.go).
//
// A task is one file: its MJCF model (assets/NAME.xml, Gymnasium's v4
// asset, MIT-licensed), a Task (the reward the planners score, from the
// observation), and a spec: the observation of an mjData, the state
// restored from an observation, Gymnasium's reset noise, frame skip and
// horizon. This file holds what they share: loading the model, stepping
// an mjData, and the MDP of a spec.
//
// Without the tag the package holds only this file, and links nothing.
package mujoco
