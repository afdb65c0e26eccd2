package localpg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The managed server runs as semcat's child, watched by a supervisor
// goroutine (SPEC §9): it never outlives semcat, and semcat restarts it
// when it dies.
//
//   - The postmaster gets a parent-death signal (Linux), SIGINT, which is
//     PostgreSQL's fast shutdown: when semcat dies, even by SIGKILL, the
//     server stops within seconds instead of running on parented to init.
//     The kernel sends it when the thread that started the child ends, so
//     the supervisor starts every server from one goroutine locked to its
//     thread for as long as it supervises.
//   - The server runs in its own process group, so a terminal's Ctrl-C
//     reaches semcat alone, which then stops the server after its own
//     connections are closed rather than racing it.
//   - An exit semcat did not ask for is logged with the end of the server's
//     log and followed by a restart, after restartDelay and then doubling
//     delays up to maxRestartDelay while the server keeps failing.
const (
	restartDelay    = 500 * time.Millisecond
	maxRestartDelay = 30 * time.Second
	// stableRun is how long a server must run for its next failure to be
	// retried at restartDelay again.
	stableRun = time.Minute
	// killDelay is how long a server that ignores the immediate-shutdown
	// signal is given before SIGKILL.
	killDelay = 5 * time.Second
)

// child supervises the managed server process.
type child struct {
	p       *Cluster
	logFile string

	stopOnce sync.Once
	stop     chan struct{} // closed to ask the supervisor to stop the server
	done     chan struct{} // closed when the supervisor has returned
	stopErr  error         // how stopping the server went; read after done

	mu       sync.Mutex
	restarts int // servers started after the first
}

// errStopping reports a start given up because semcat is stopping.
var errStopping = errors.New("semcat: stopping while PostgreSQL starts")

// startChild starts the server as a supervised child and waits until it
// accepts connections or fails to start.
func (p *Cluster) startChild(ctx context.Context, logFile string) (*child, error) {
	c := &child{p: p, logFile: logFile, stop: make(chan struct{}), done: make(chan struct{})}
	first := make(chan error, 1)
	go c.supervise(first)
	select {
	case err := <-first:
		if err != nil {
			<-c.done
			return nil, err
		}
		return c, nil
	case <-ctx.Done():
		_ = c.shutdown()
		return nil, ctx.Err()
	}
}

// supervise runs the server until stop is closed, restarting it whenever it
// exits on its own. The outcome of the first start goes to first.
func (c *child) supervise(first chan<- error) {
	// Never unlocked: the thread must live as long as the servers it
	// started, and ends with this goroutine, after them.
	runtime.LockOSThread()
	defer close(c.done)
	delay := restartDelay
	for {
		started := time.Now()
		exited, err := c.run(&first)
		if first != nil { // the first start failed
			first <- err
			return
		}
		if !exited {
			return // stopped on request
		}
		if time.Since(started) > stableRun {
			delay = restartDelay
		}
		c.p.logger.Error("local PostgreSQL exited unexpectedly; restarting it",
			"dir", c.p.clusterDir, "err", err, "retry_in", delay.String(),
			"log_tail", tailPGLog(c.logFile, 5))
		select {
		case <-c.stop:
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, maxRestartDelay)
	}
}

// run starts one server and waits for it to end. It reports exited=false
// when it stopped the server on request; otherwise the server ended on its
// own (err says how), or, when *first is still not nil, failed to start.
// Once the first server accepts connections, run sends nil on *first and
// sets it to nil.
func (c *child) run(firstp *chan<- error) (exited bool, err error) {
	first := *firstp
	p := c.p
	cmd := exec.Command(p.bins.postgres, "-D", p.clusterDir)
	cmd.Dir = p.dir // the server account may not be allowed into our working directory
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PG") })
	log, err := os.OpenFile(c.logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return true, fmt.Errorf("semcat: opening %s: %w", c.logFile, err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr, syscall.SIGINT)
	if p.runAs != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: p.runAs.uid, Gid: p.runAs.gid, Groups: p.runAs.groups}
		if err := p.chown(c.logFile); err != nil {
			return true, err
		}
	}
	if err := cmd.Start(); err != nil {
		return true, fmt.Errorf("semcat: starting %s: %w", p.bins.postgres, err)
	}
	if first == nil {
		c.mu.Lock()
		c.restarts++
		c.mu.Unlock()
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	if err := c.awaitReady(cmd.Process.Pid, waited); err != nil {
		if errors.Is(err, errStopping) {
			c.stopErr = c.terminate(cmd.Process, waited)
			return false, err
		}
		if first == nil {
			// A restart that failed: the loop logs it and tries again.
			return true, err
		}
		return true, fmt.Errorf("semcat: starting PostgreSQL in %s failed: %w\nlast lines of %s:\n%s",
			p.clusterDir, err, c.logFile, tailPGLog(c.logFile, 20))
	}
	if first != nil {
		first <- nil
		*firstp = nil
	} else {
		p.logger.Info("restarted local PostgreSQL", "dir", p.clusterDir, "pid", cmd.Process.Pid)
	}
	select {
	case err := <-waited:
		return true, exitError(err)
	case <-c.stop:
		c.stopErr = c.terminate(cmd.Process, waited)
		return false, nil
	}
}

// awaitReady waits until the server with this pid says in postmaster.pid
// that it accepts connections (what pg_ctl start -w waits for), or exits,
// or startTimeout passes (it is then killed).
func (c *child) awaitReady(pid int, waited chan error) error {
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-waited:
			waited <- err // for a caller that also waits
			return fmt.Errorf("the server exited while starting: %w", exitError(err))
		case <-c.stop:
			return errStopping
		case <-deadline.C:
			_ = syscall.Kill(pid, syscall.SIGKILL)
			return fmt.Errorf("the server did not accept connections within %s", startTimeout)
		case <-tick.C:
			if serverReady(c.p.clusterDir, pid) {
				return nil
			}
		}
	}
}

// serverReady reports whether postmaster.pid names pid and says "ready".
func serverReady(clusterDir string, pid int) bool {
	raw, err := os.ReadFile(filepath.Join(clusterDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(raw), "\n")
	// Line 1 is the pid, line 8 the status (PostgreSQL 10 and later).
	return len(lines) > 7 && strings.TrimSpace(lines[0]) == fmt.Sprint(pid) &&
		strings.TrimSpace(lines[7]) == "ready"
}

// terminate stops the server: fast shutdown, then after startTimeout an
// immediate one, then SIGKILL.
func (c *child) terminate(proc *os.Process, waited <-chan error) error {
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, startTimeout}, {syscall.SIGQUIT, killDelay}, {syscall.SIGKILL, killDelay}} {
		if err := proc.Signal(step.sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("semcat: signalling PostgreSQL (pid %d): %w", proc.Pid, err)
		}
		select {
		case <-waited:
			return nil
		case <-time.After(step.wait):
			c.p.logger.Warn("local PostgreSQL did not stop in time", "signal", step.sig.String(), "waited", step.wait.String())
		}
	}
	return fmt.Errorf("semcat: PostgreSQL (pid %d) did not stop", proc.Pid)
}

// shutdown stops the server and the supervisor, waits for both and says
// whether the server stopped.
func (c *child) shutdown() error {
	c.stopOnce.Do(func() { close(c.stop) })
	<-c.done
	return c.stopErr
}

// exitError describes how a server process ended.
func exitError(err error) error {
	if err == nil {
		return errors.New("exit status 0")
	}
	return err
}
