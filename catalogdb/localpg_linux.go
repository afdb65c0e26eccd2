package catalogdb

import "syscall"

// setParentDeathSignal has the kernel send sig to the child when the thread
// that started it ends.
func setParentDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {
	attr.Pdeathsig = sig
}
