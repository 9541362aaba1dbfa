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
package localproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Spec says how to start a process: the binary and its arguments, where
// its output goes and where its pid is recorded.
type Spec struct {
	// Name names the process in errors.
	Name string
	Path string
	Args []string
	// LogFile receives stdout and stderr, appended, after a first line
	// with the command line.
	LogFile string
	// Env is the environment; nil means ours.
	Env []string
	// PIDFile, when set, receives "<pid>\n<path>\n" while the process
	// runs, for StopRecorded.
	PIDFile string
	// Detach lets the process outlive the one that started it. Without
	// it, the kernel kills the process when its starter dies, so that a
	// crashed test leaves nothing behind.
	Detach bool
}

// Process is a started binary, in a process group of its own so that a
// signal to the group reaches anything it forked.
type Process struct {
	Spec

	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// Start starts the process spec describes.
func Start(spec Spec) (*Process, error) {
	if err := os.MkdirAll(filepath.Dir(spec.LogFile), 0o755); err != nil {
		return nil, err
	}
	out, err := os.OpenFile(spec.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child keeps its own descriptor

	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = spec.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !spec.Detach {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	fmt.Fprintf(out, "### %s %s\n", spec.Path, strings.Join(spec.Args, " "))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	p := &Process{Spec: spec, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	if spec.PIDFile != "" {
		err := os.MkdirAll(filepath.Dir(spec.PIDFile), 0o755)
		if err == nil {
			err = os.WriteFile(spec.PIDFile, fmt.Appendf(nil, "%d\n%s\n", cmd.Process.Pid, spec.Path), 0o644)
		}
		if err != nil {
			p.Kill()
			return nil, err
		}
	}
	return p, nil
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

// ExitErr is how the process ended (nil for a zero exit status); read it
// once Done is closed.
func (p *Process) ExitErr() error { return p.waitErr }

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

// Stop asks the process group to end (SIGTERM), kills it after grace, and
// waits for the process to end.
func (p *Process) Stop(grace time.Duration) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	// Whatever the process forked is in its group: make sure none survives.
	if err := syscall.Kill(-p.Pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = p.cmd.Process.Kill()
	}
	<-p.done
	p.removePIDFile()
}

func (p *Process) removePIDFile() {
	if p.PIDFile != "" {
		_ = os.Remove(p.PIDFile)
	}
}

// Tail returns up to n bytes of the end of the process's log.
func (p *Process) Tail(n int64) string {
	return TailFile(p.LogFile, n)
}
