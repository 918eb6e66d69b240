package env

import "syscall"

// setDeathSignal has Linux kill the process when smrl dies (even by
// SIGKILL, which leaves smrl no chance to reap it).
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
