package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a semcat process started the way a user starts it:
// `semcat serve --data-dir DIR --addr 127.0.0.1:PORT`, with its managed
// PostgreSQL and its on-disk Bleve index under DIR.
type Server struct {
	DataDir string
	URL     string // http://127.0.0.1:PORT
	LogPath string
	// PprofURL is the base URL of the server's runtime profiles, when the
	// harness runs with -profile.
	PprofURL string

	cmd    *exec.Cmd
	log    *os.File
	exited chan struct{}
	err    error         // the process's exit status, once exited is closed
	cgroup *memoryCgroup // the memory cgroup it runs in (-memory-limit), or nil
}

// limitMemory moves the server into a memory cgroup of its own, limited to
// limit bytes; Stop removes the cgroup. Its PostgreSQL, started already,
// stays where it is.
func (s *Server) limitMemory(limit int64) error {
	procCgroup, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return err
	}
	c, err := newMemoryCgroup("/sys/fs/cgroup", string(procCgroup), fmt.Sprintf("semcat-bench-%d", os.Getpid()), limit)
	if err != nil {
		return err
	}
	if err := c.add(s.cmd.Process.Pid); err != nil {
		c.remove()
		return err
	}
	s.cgroup = c
	return nil
}

// moduleRoot returns the directory of the go.mod above the working
// directory: `go run ./benchmarks` runs from the repository root, but
// running from benchmarks/ works too.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; run from the semcat repository")
		}
		dir = parent
	}
}

// buildSemcat builds ./cmd/semcat of the module at root into dir.
func buildSemcat(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "semcat")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/semcat")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/semcat: %w\n%s", err, out)
	}
	return bin, nil
}

// freeAddr returns a loopback address with a port nothing listens on now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startServer runs bin serve with a fresh data directory under tmp and waits
// until /readyz answers 200. The server's JSON log goes to tmp/server.log.
// extra are more flags of serve.
func startServer(ctx context.Context, bin, tmp string, profile bool, extra ...string) (*Server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &Server{DataDir: filepath.Join(tmp, "data"), URL: "http://" + addr,
		LogPath: filepath.Join(tmp, "server.log"), exited: make(chan struct{})}
	if s.log, err = os.Create(s.LogPath); err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--data-dir", s.DataDir, "--addr", addr}, extra...)
	if profile {
		paddr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		s.PprofURL = "http://" + paddr
		args = append(args, "--pprof-addr", paddr)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// Its own process group: a Ctrl-C at the terminal reaches only the
	// harness, which then stops the server in order.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		s.log.Close()
		return nil, fmt.Errorf("starting semcat: %w", err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()

	deadline := time.Now().Add(3 * time.Minute)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(s.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.exited:
			return s, fmt.Errorf("semcat exited before it was ready (%v); last lines of %s:\n%s", s.err, s.LogPath, s.tail(20))
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("semcat not ready after 3 minutes; last lines of %s:\n%s", s.LogPath, s.tail(20))
		}
	}
}

// Stop sends SIGINT (the server finishes in-flight requests and stops its
// managed PostgreSQL) and waits; after timeout it kills the process.
func (s *Server) Stop(timeout time.Duration) error {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	defer s.log.Close()
	if s.cgroup != nil {
		// Once the process has gone the cgroup can go too, after saying
		// what it saw: if the kernel killed the server for want of
		// memory, this is where that shows, since the run has failed.
		defer func() {
			if st, err := s.cgroup.Stats(); err == nil {
				logf("memory cgroup at the server's exit: peak usage %s of %s; limit reached %d times; %d OOM kills", fmtBytes(st.PeakBytes), fmtBytes(st.LimitBytes), st.LimitHits, st.OOMKills)
			}
			if err := s.cgroup.remove(); err != nil {
				logf("warning: removing the server's memory cgroup %s: %v", s.cgroup.dir, err)
			}
		}()
	}
	select {
	case <-s.exited:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
		var exit *exec.ExitError
		if s.err != nil && !errors.As(s.err, &exit) {
			return s.err
		}
		if exit != nil {
			return fmt.Errorf("semcat exited with %v; last lines of %s:\n%s", s.err, s.LogPath, s.tail(10))
		}
		return nil
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("semcat did not stop within %s of SIGINT; killed it (its PostgreSQL may still run)", timeout)
	}
}

// Alive reports whether the process still runs.
func (s *Server) Alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// tail returns the last n lines of the server's log.
func (s *Server) tail(n int) string {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Errors returns up to n of the last error and warning lines of the
// server's log (JSON lines), for the report of a run that saw failures.
func (s *Server) Errors(n int) []string {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"reason":"no index yet"`) {
			continue // every fresh data directory starts so
		}
		if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`) {
			out = append(out, line)
		}
	}
	return out[max(0, len(out)-n):]
}

// procStatus returns fields of /proc/<pid>/status in bytes (VmHWM, VmRSS,
// RssAnon), in the order asked, from one read of the file.
func (s *Server) procStatus(fields ...string) ([]int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, found := make([]int64, len(fields)), 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		i := slices.Index(fields, name)
		if !ok || i < 0 {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = kb * 1024
		found++
	}
	if found < len(fields) {
		return nil, fmt.Errorf("not all of %v in /proc/%d/status", fields, s.cmd.Process.Pid)
	}
	return out, sc.Err()
}

// PeakRSS is the server process's peak resident set size in bytes.
func (s *Server) PeakRSS() (int64, error) {
	v, err := s.procStatus("VmHWM")
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// ResetPeakRSS has the kernel start the server's VmHWM afresh from its
// current RSS (Linux's clear_refs, value 5).
func (s *Server) ResetPeakRSS() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.cmd.Process.Pid), []byte("5"), 0)
}

// ClusterDir is the managed PostgreSQL's directory: <data-dir>/pg, or
// where it links to when semcat runs as root (/var/tmp/semcat-pg-<hash>).
func (s *Server) ClusterDir() (string, error) {
	return filepath.EvalSymlinks(filepath.Join(s.DataDir, "pg"))
}

// removeOutsideCluster removes the cluster directory semcat keeps outside
// the data directory when it runs as root (/var/tmp/semcat-pg-<hash>), once
// semcat and its PostgreSQL are down. A cluster inside the data directory
// goes with it.
func (s *Server) removeOutsideCluster(dir string) error {
	if dir == "" || dir == filepath.Join(s.DataDir, "pg") || !strings.HasPrefix(filepath.Base(dir), "semcat-pg-") {
		return nil
	}
	if s.Alive() {
		return fmt.Errorf("left %s in place: semcat still runs", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("left %s in place: its PostgreSQL may still run", dir)
	}
	return os.RemoveAll(dir)
}

// PostgresURL reads the running cluster's postmaster.pid (line 4: port,
// line 5: socket directory) and returns a pgx connection string for dbname
// as semcat's superuser over the Unix socket.
func (s *Server) PostgresURL(dbname string) (string, error) {
	dir, err := s.ClusterDir()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return "", err
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 5 || strings.TrimSpace(lines[4]) == "" {
		return "", fmt.Errorf("%s/data/postmaster.pid has no socket directory", dir)
	}
	port, socket := strings.TrimSpace(lines[3]), strings.TrimSpace(lines[4])
	return fmt.Sprintf("host=%s port=%s user=semcat dbname=%s sslmode=disable", socket, port, dbname), nil
}

// Analyze runs ANALYZE in semcat's database, as autovacuum would within a
// minute or so of a bulk load: it changes planner statistics, never data.
func (s *Server) Analyze(ctx context.Context) error {
	url, err := s.PostgresURL("semcat")
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "ANALYZE")
	return err
}

// dirSize is the total size of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// rssSampler records the server's resident set size every interval, and
// the largest value seen in each phase of the run, so a reader can tell
// which scenario drove the peak.
type rssSampler struct {
	s         *Server
	mu        sync.Mutex
	serverCPU serverCPU // read at every sample too, so the last stands if the server dies
	phase     string
	peaks     map[string]int64 // phase → bytes
	anon      map[string]int64 // phase → bytes of anonymous memory (RssAnon)
	order     []string
	cpu       map[string]cpuTimes // phase → CPU seconds
	wall      map[string]float64  // phase → wall seconds
	at        time.Time           // when the current phase began
	cpuAt     cpuTimes            // the CPU seconds so far then
	stop      chan struct{}
	done      chan struct{}
	// onPhase, when set, is called with each new phase's name.
	onPhase func(string)
}

func (s *Server) sampleRSS(every time.Duration) *rssSampler {
	r := &rssSampler{s: s, serverCPU: serverCPU{s: s}, peaks: map[string]int64{}, anon: map[string]int64{}, cpu: map[string]cpuTimes{}, wall: map[string]float64{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
			v, err := s.procStatus("VmRSS", "RssAnon")
			if err != nil {
				continue
			}
			r.mu.Lock()
			r.serverCPU.read()
			if r.phase != "" {
				r.peaks[r.phase] = max(r.peaks[r.phase], v[0])
				r.anon[r.phase] = max(r.anon[r.phase], v[1])
			}
			r.mu.Unlock()
		}
	}()
	return r
}

// Phase starts attributing samples to name.
func (r *rssSampler) Phase(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endPhase()
	r.phase = name
	if _, ok := r.peaks[name]; !ok {
		r.peaks[name] = 0
		r.order = append(r.order, name)
	}
	if r.onPhase != nil {
		r.onPhase(name)
	}
}

// PeakSince is the highest RSS sampled from the start of the phase name
// until now (0 if there was no such phase).
func (r *rssSampler) PeakSince(name string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.order, name)
	if i < 0 {
		return 0
	}
	var peak int64
	for _, p := range r.order[i:] {
		peak = max(peak, r.peaks[p])
	}
	return peak
}

// Stop ends sampling and returns the peak of each phase, in phase order.
func (r *rssSampler) Stop() []PhaseRSS {
	close(r.stop)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endPhase()
	out := make([]PhaseRSS, 0, len(r.order))
	for _, p := range r.order {
		c := r.cpu[p]
		out = append(out, PhaseRSS{Phase: p, PeakBytes: r.peaks[p], PeakAnonBytes: r.anon[p],
			CPUSeconds: c.server, PostgresCPUSeconds: c.postgres, HarnessCPUSeconds: c.harness, WallSeconds: r.wall[p]})
	}
	return out
}

// endPhase adds the CPU and wall time since the current phase began to it.
func (r *rssSampler) endPhase() {
	now := time.Now()
	cpu := cpuTimes{server: r.serverCPU.read(), postgres: r.s.postgresCPUSeconds(), harness: harnessCPUSeconds()}
	if r.phase != "" {
		c := r.cpu[r.phase]
		c.server += cpu.server - r.cpuAt.server
		c.postgres += cpu.postgres - r.cpuAt.postgres
		c.harness += cpu.harness - r.cpuAt.harness
		r.cpu[r.phase] = c
		r.wall[r.phase] += now.Sub(r.at).Seconds()
	}
	r.at, r.cpuAt = now, cpu
}

// cpuTimes are the CPU seconds of the three parties sharing the machine.
type cpuTimes struct{ server, postgres, harness float64 }

// PhaseRSS is the largest sampled RSS during one phase, the largest part
// of it that was anonymous memory (the Go heap and stacks; the rest is
// mostly the index's memory-mapped segment files, which the kernel can
// drop), and the CPU time used in it by the server process, by the
// managed PostgreSQL's processes (which serve semcat and the comparison
// queries), and by this harness.
type PhaseRSS struct {
	Phase              string  `json:"phase"`
	PeakBytes          int64   `json:"peakBytes"`
	PeakAnonBytes      int64   `json:"peakAnonBytes"`
	CPUSeconds         float64 `json:"serverCpuSeconds"`
	PostgresCPUSeconds float64 `json:"postgresCpuSeconds"`
	HarnessCPUSeconds  float64 `json:"harnessCpuSeconds"`
	WallSeconds        float64 `json:"wallSeconds"`
}

// cpuSeconds is the user + system CPU time of the server process so far,
// from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 1/100 s).
func (s *Server) cpuSeconds() float64 {
	return statCPUSeconds(s.procStat(), false)
}

// serverCPU is a reading of the server's CPU time that outlives the
// server: once it has exited (its /proc entry gone, which reads as 0), the
// last reading stands, so that the phase it died in is not charged
// negative time.
type serverCPU struct {
	s    *Server
	last float64
}

func (c *serverCPU) read() float64 {
	if v := c.s.cpuSeconds(); v > 0 {
		c.last = v
	}
	return c.last
}

// postgresCPUSeconds is the CPU time of the managed PostgreSQL so far: its
// postmaster's, its live processes' (backends, walwriter, autovacuum…),
// and that of the processes it has reaped, which the kernel adds to the
// postmaster's children's times. 0 if the cluster cannot be read.
func (s *Server) postgresCPUSeconds() float64 {
	postmaster := s.postmasterPID()
	if postmaster == "" {
		return 0
	}
	total := statCPUSeconds(readStat(postmaster), true)
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if p.Name()[0] < '0' || p.Name()[0] > '9' {
			continue
		}
		if f := readStat(p.Name()); len(f) > 1 && f[1] == postmaster {
			total += statCPUSeconds(f, false)
		}
	}
	return total
}

// postmasterPID is the managed PostgreSQL's postmaster PID from its
// postmaster.pid, or "" if the cluster is not running.
func (s *Server) postmasterPID() string {
	dir, err := s.ClusterDir()
	if err != nil {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(first)
}

// stopOrphanedPostgres stops the managed PostgreSQL that a dead server
// left running (semcat stops it on a clean exit, but not when the kernel
// kills it for want of memory): a fast shutdown, SIGINT to the
// postmaster, waiting up to timeout. Its data directory may then go.
func (s *Server) stopOrphanedPostgres(timeout time.Duration) error {
	if s.Alive() {
		return nil
	}
	pid, err := strconv.Atoi(s.postmasterPID())
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return nil
	}
	logf("semcat died and left its PostgreSQL (pid %d) running: stopping it", pid)
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		return err
	}
	for deadline := time.Now().Add(timeout); syscall.Kill(pid, 0) == nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("PostgreSQL (pid %d) still runs %s after a fast shutdown", pid, timeout)
		}
	}
	return nil
}

// exitedWithin reports whether the server has exited, waiting up to d for
// it: a server killed for want of memory closes its sockets before the
// harness reaps it, so a failed request can come first.
func (s *Server) exitedWithin(d time.Duration) bool {
	select {
	case <-s.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// harnessCPUSeconds is this process's CPU time so far.
func harnessCPUSeconds() float64 {
	return statCPUSeconds(readStat("self"), false)
}

// statCPUSeconds is utime + stime of /proc/<pid>/stat fields (as procStat
// returns them), with children the reaped children's cutime + cstime too.
func statCPUSeconds(f []string, children bool) float64 {
	if len(f) < 15 {
		return 0
	}
	var ticks float64
	fields := []int{11, 12}
	if children {
		fields = append(fields, 13, 14)
	}
	for _, i := range fields {
		v, _ := strconv.ParseFloat(f[i], 64)
		ticks += v
	}
	return ticks / 100
}

// majorFaults is the number of page faults of the server process so far
// that had to read from disk (/proc/<pid>/stat field 12): a search that
// adds to it waited for index pages the kernel had dropped.
func (s *Server) majorFaults() int64 {
	f := s.procStat()
	if len(f) < 10 {
		return 0
	}
	n, _ := strconv.ParseInt(f[9], 10, 64)
	return n
}

// procStat returns the fields of /proc/<pid>/stat from field 3 on (f[0]
// is field 3), or nil if it cannot be read.
func (s *Server) procStat() []string {
	return readStat(strconv.Itoa(s.cmd.Process.Pid))
}

// readStat returns the fields of /proc/<pid>/stat from field 3 on, or nil.
func readStat(pid string) []string {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	return statFields(string(b))
}

// statFields splits a /proc/<pid>/stat line into its fields from field 3
// on. The command name (field 2) is parenthesised and may hold spaces.
func statFields(line string) []string {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(line[i+1:])
}

// profileCPU records the server's CPU profile for the given time into
// path, in the background; wait returns once the file is written.
func (s *Server) profileCPU(ctx context.Context, d time.Duration, path string) (wait func() error) {
	done := make(chan error, 1)
	go func() {
		done <- func() error {
			ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
			defer cancel()
			u := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", s.PprofURL, int(d.Seconds()))
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if err != nil {
				return err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("CPU profile: %s", resp.Status)
			}
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, resp.Body); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		}()
	}()
	return func() error { return <-done }
}
