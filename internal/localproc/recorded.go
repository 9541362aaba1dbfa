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
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StopRecorded stops the processes whose pid files Start wrote into
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
