//go:build unix && !linux

package env

import "syscall"

// setDeathSignal does nothing where the system has no parent-death
// signal: the process still sees its input close when smrl exits.
func setDeathSignal(*syscall.SysProcAttr) {}
