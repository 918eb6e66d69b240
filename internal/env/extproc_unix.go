//go:build unix

package env

import (
	"os/exec"
	"syscall"
)

// isolate puts the process in its own process group, so that a terminal's
// Ctrl-C reaches smrl alone (which lets the trials in flight finish, the
// process with them) and a kill reaches the programs it started too.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
}

// killGroup kills the process's group (the process and its children).
// The group is killed only while the process has not been reaped (Signal
// goes through a pidfd where the system has them), so that a reused
// process id is never hit.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if cmd.Process.Signal(syscall.Signal(0)) == nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // it may have exited already
	}
	cmd.Process.Kill() //nolint:errcheck // likewise
}
