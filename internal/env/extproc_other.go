//go:build !unix

package env

import "os/exec"

// isolate does nothing where there are no process groups.
func isolate(*exec.Cmd) {}

// killGroup kills the process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill() //nolint:errcheck // it may have exited already
	}
}
