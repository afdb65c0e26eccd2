package localpg

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeathSignal has the kernel send sig to the child when the thread
// that started it ends.
func setParentDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {
	attr.Pdeathsig = sig
}

// checkPostmaster reports why process pid is not the postmaster of
// clusterDir, or nil if it is: its program must be postgres and its working
// directory, which a postmaster sets to its data directory before it
// writes postmaster.pid, must be clusterDir.
func checkPostmaster(pid int, clusterDir string) error {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	exe, err := os.Readlink(filepath.Join(proc, "exe"))
	if err != nil {
		return fmt.Errorf("its program cannot be read (%v)", err)
	}
	// A binary replaced by a package upgrade reads "<path> (deleted)".
	if name := filepath.Base(strings.TrimSuffix(exe, " (deleted)")); name != "postgres" {
		return fmt.Errorf("it runs %s, not postgres", exe)
	}
	cwd, err := os.Readlink(filepath.Join(proc, "cwd"))
	if err != nil {
		return fmt.Errorf("its data directory cannot be read (%v)", err)
	}
	want, err := filepath.EvalSymlinks(clusterDir)
	if err != nil {
		return fmt.Errorf("%s: %v", clusterDir, err)
	}
	if cwd != want {
		return fmt.Errorf("it is the postgres of %s, not of %s", cwd, want)
	}
	return nil
}
