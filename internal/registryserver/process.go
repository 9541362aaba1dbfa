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

package registryserver

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

// process is the running registry binary, in a process group of its own so
// that a signal to the group reaches anything it forked.
type process struct {
	cmd     *exec.Cmd
	done    chan struct{}
	pidFile string
}

// startProcess starts path with args, stdout and stderr appended to
// logFile. Unless detach is set, the kernel kills it when the process that
// started it dies, so a crashed test leaves nothing behind. With pidFile
// set, it writes "<pid>\n<path>\n" there: the format of the control plane's
// pid files, so that the tool that stops a detached make demo stops the
// registry too.
func startProcess(path string, args []string, logFile, pidFile string, detach bool) (*process, error) {
	out, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child keeps its own descriptor
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = registryEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !detach {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	fmt.Fprintf(out, "### %s %s\n", path, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	if pidFile != "" {
		err := os.MkdirAll(filepath.Dir(pidFile), 0o755)
		if err == nil {
			err = os.WriteFile(pidFile, fmt.Appendf(nil, "%d\n%s\n", cmd.Process.Pid, path), 0o644)
		}
		if err != nil {
			p.stop(0)
			return nil, err
		}
		p.pidFile = pidFile
	}
	return p, nil
}

// registryEnv is our environment without the variables the registry reads
// as configuration: REGISTRY_* overrides the configuration file, and
// OTEL_* would point its tracing somewhere. Tracing is off: by default it
// would export spans to an OTLP collector on localhost.
func registryEnv() []string {
	env := []string{"OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REGISTRY_") && !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	return env
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after grace, and
// waits for the process to end.
func (p *process) stop(grace time.Duration) {
	if !p.exited() {
		_ = syscall.Kill(-p.pid(), syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
		}
	}
	// Whatever the registry forked is in its group: make sure none survives.
	if err := syscall.Kill(-p.pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = p.cmd.Process.Kill()
	}
	<-p.done
	if p.pidFile != "" {
		_ = os.Remove(p.pidFile)
	}
}
