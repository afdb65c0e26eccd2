//go:build !linux

package catalogdb

import "syscall"

// setParentDeathSignal does nothing where the kernel has no parent-death
// signal: there the managed server outlives a semcat that is killed, and
// the next start adopts it.
func setParentDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
