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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitFor polls cond for up to 10s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestStopEndsTheWholeProcessGroup(t *testing.T) {
	dir := t.TempDir()
	childPIDFile := filepath.Join(dir, "child")
	p, err := Start(Spec{
		Name:    "shell",
		Path:    "/bin/sh",
		Args:    []string{"-c", "sleep 600 & echo $! >" + childPIDFile + "; wait"},
		LogFile: filepath.Join(dir, "logs", "shell.log"),
		PIDFile: filepath.Join(dir, "pids", "01-shell.pid"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var child int
	waitFor(t, "the shell to fork", func() bool {
		data, err := os.ReadFile(childPIDFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && child > 0
	})
	rec, err := os.ReadFile(p.PIDFile)
	if want := strconv.Itoa(p.Pid()) + "\n/bin/sh\n"; err != nil || string(rec) != want {
		t.Errorf("pid file = %q (%v), want %q", rec, err, want)
	}

	p.Stop(time.Second)

	if !p.Exited() {
		t.Error("the process runs after Stop")
	}
	waitFor(t, "the forked child to end", func() bool { return !alive(child) })
	if _, err := os.Stat(p.PIDFile); !os.IsNotExist(err) {
		t.Errorf("pid file after Stop: %v, want it removed", err)
	}
	if log := p.Tail(4096); !strings.HasPrefix(log, "### /bin/sh -c") {
		t.Errorf("log starts %q, want the command line first", log)
	}
}

func TestStopRecorded(t *testing.T) {
	tests := []struct {
		name string
		// record is the second line of the pid file: the binary the pid
		// was started as.
		record      string
		wantStopped bool
	}{
		{name: "a recorded process is stopped", record: "/bin/sleep", wantStopped: true},
		{name: "a pid now running another binary is left alone", record: "/usr/bin/some-other-binary", wantStopped: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidDir := filepath.Join(dir, "pids")
			p, err := Start(Spec{Name: "sleep", Path: "/bin/sleep", Args: []string{"600"}, LogFile: filepath.Join(dir, "sleep.log")})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Kill()
			if err := os.MkdirAll(pidDir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(pidDir, "01-sleep.pid")
			if err := os.WriteFile(file, []byte(strconv.Itoa(p.Pid())+"\n"+tc.record+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			malformed := filepath.Join(pidDir, "02-broken.pid")
			if err := os.WriteFile(malformed, []byte("not a pid\n"), 0o644); err != nil {
				t.Fatal(err)
			}

			stopped, err := StopRecorded(pidDir, time.Second, t.Logf)
			if err != nil {
				t.Fatal(err)
			}

			if got := len(stopped) == 1 && stopped[0] == "01-sleep"; got != tc.wantStopped {
				t.Errorf("stopped %v, want the sleep stopped: %v", stopped, tc.wantStopped)
			}
			if tc.wantStopped {
				waitFor(t, "the recorded process to end", p.Exited)
			} else if p.Exited() {
				t.Error("a process that runs another binary than the recorded one was stopped")
			}
			for _, f := range []string{file, malformed} {
				if _, err := os.Stat(f); !os.IsNotExist(err) {
					t.Errorf("%s after StopRecorded: %v, want it removed", filepath.Base(f), err)
				}
			}
		})
	}
}
