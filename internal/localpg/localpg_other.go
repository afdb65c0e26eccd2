//go:build !linux

package localpg

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeathSignal does nothing where the kernel has no parent-death
// signal: there the managed server outlives a semcat that is killed, and
// the next start adopts it.
func setParentDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}

// checkPostmaster reports why process pid is not a postmaster, or nil if
// it is. Without /proc only the program's name is checked (ps), not its
// data directory.
func checkPostmaster(pid int, _ string) error {
	out, err := exec.Command("ps", "-o", "comm=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return fmt.Errorf("ps cannot tell what it runs (%v)", err)
	}
	if name := filepath.Base(strings.TrimSpace(string(out))); name != "postgres" {
		return fmt.Errorf("it runs %s, not postgres", name)
	}
	return nil
}
