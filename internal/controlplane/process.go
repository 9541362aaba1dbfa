/*
Copyright The windows-aware Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controlplane

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/windows-aware/windows-aware/internal/localproc"
)

// Process is one binary the cluster started, in a process group of its own
// so that stopping it stops anything it forked, with its output in LogFile.
type Process struct {
	Name    string
	Path    string
	Args    []string
	LogFile string

	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	pidName string
	pidFile string
}

// startProcess starts path with args, its stdout and stderr appended to
// logDir/name.log. Unless detach is set, the process is killed when the
// process that started it dies (so that a crashed test leaves nothing
// behind). When pidDir is set, the pid and path are recorded in
// pidDir/pidName.pid for StopRecorded.
func startProcess(name, pidName, path string, args []string, logDir, pidDir string, detach bool) (*Process, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	logFile := filepath.Join(logDir, name+".log")
	out, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child keeps its own descriptor
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()

	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, out, out
	cmd.Env = processEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !detach {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	fmt.Fprintf(out, "### %s %s\n", path, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, Path: path, Args: args, LogFile: logFile, cmd: cmd, done: make(chan struct{}), pidName: pidName}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	if pidDir != "" {
		if err := os.MkdirAll(pidDir, 0o755); err != nil {
			p.Kill()
			return nil, err
		}
		p.pidFile = filepath.Join(pidDir, pidName+".pid")
		rec := fmt.Sprintf("%d\n%s\n", cmd.Process.Pid, path)
		if err := os.WriteFile(p.pidFile, []byte(rec), 0o644); err != nil {
			p.Kill()
			return nil, err
		}
	}
	return p, nil
}

// processEnv is the environment of the started processes: ours, without a
// KUBECONFIG that could point them at another cluster.
func processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}
	return env
}

// Pid is the process id, which is also its process group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Signal sends sig to the process group.
func (p *Process) Signal(sig syscall.Signal) error {
	if p.Exited() {
		return nil
	}
	err := syscall.Kill(-p.Pid(), sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Kill sends SIGKILL to the process group and waits for the process to end.
func (p *Process) Kill() {
	_ = p.Signal(syscall.SIGKILL)
	<-p.done
	p.removePIDFile()
}

// Stop asks the process group to end (SIGTERM), and kills it after grace.
func (p *Process) Stop(grace time.Duration) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.Signal(syscall.SIGKILL)
		<-p.done
	}
	// Whatever the leader forked is in its group: make sure none survives.
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	p.removePIDFile()
}

func (p *Process) removePIDFile() {
	if p.pidFile != "" {
		_ = os.Remove(p.pidFile)
	}
}

// Tail returns up to n bytes of the end of the process's log.
func (p *Process) Tail(n int64) string {
	return localproc.TailFile(p.LogFile, n)
}

// StopRecorded stops the processes whose pid files startProcess wrote into
// pidDir (a previous run, possibly of another program): each process
// group gets SIGTERM, then SIGKILL after grace. A pid is signalled only
// while it still runs the binary that was recorded, so a pid reused by an
// unrelated process is left alone. It returns the names it stopped.
func StopRecorded(pidDir string, grace time.Duration, logf func(string, ...any)) ([]string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	entries, err := os.ReadDir(pidDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type rec struct {
		name string
		pid  int
		file string
	}
	var live []rec
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".pid") {
			continue
		}
		file := filepath.Join(pidDir, e.Name())
		name := strings.TrimSuffix(e.Name(), ".pid")
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		pid, err := strconv.Atoi(strings.TrimSpace(lines[0]))
		if err != nil || pid <= 1 {
			logf("%s: ignoring malformed pid file %s", name, file)
			_ = os.Remove(file)
			continue
		}
		path := ""
		if len(lines) > 1 {
			path = strings.TrimSpace(lines[1])
		}
		if !runs(pid, path) {
			logf("%s (pid %d): not running", name, pid)
			_ = os.Remove(file)
			continue
		}
		live = append(live, rec{name, pid, file})
	}
	// Stop in the reverse order of start: the pid files' names begin with
	// their start order.
	for i := len(live) - 1; i >= 0; i-- {
		r := live[i]
		logf("stopping %s (pid %d)", r.name, r.pid)
		_ = syscall.Kill(-r.pid, syscall.SIGTERM)
		deadline := time.Now().Add(grace)
		for alive(r.pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(r.pid) {
			logf("%s (pid %d) did not stop in %s: killing it", r.name, r.pid, grace)
		}
		_ = syscall.Kill(-r.pid, syscall.SIGKILL)
		for i := 0; alive(r.pid) && i < 100; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		_ = os.Remove(r.file)
	}
	names := make([]string, len(live))
	for i, r := range live {
		names[i] = r.name
	}
	return names, nil
}

// runs reports whether pid is a live process running the binary at path.
func runs(pid int, path string) bool {
	if !alive(pid) {
		return false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return false
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	return path == "" || exe == path || filepath.Base(exe) == filepath.Base(path)
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
