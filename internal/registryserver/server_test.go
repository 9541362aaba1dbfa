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
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// requireBinary skips the test when bin/tools/registry is missing, except
// in CI.
func requireBinary(t *testing.T) {
	t.Helper()
	if _, err := FindBinary(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// TestServerLifecycle starts a registry with a pid file, restarts it
// (filesystem storage keeps what was pushed), and stops it.
func TestServerLifecycle(t *testing.T) {
	requireBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids", "registry.pid")
	s, err := Start(ctx, Options{Dir: filepath.Join(dir, "registry"), LogDir: filepath.Join(dir, "logs"), PIDFile: pidFile})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	binary, _ := FindBinary()
	rec, err := os.ReadFile(pidFile)
	if want := fmt.Sprintf("%d\n%s\n", s.Pid(), binary); err != nil || string(rec) != want {
		t.Errorf("pid file %q (%v), want %q", rec, err, want)
	}
	if !strings.HasPrefix(s.LogFile, filepath.Join(dir, "logs")) {
		t.Errorf("log file %s is not in LogDir", s.LogFile)
	}

	a, err := Spec{Flavour: OCI, Entries: []Entry{{Platform: Platform{OS: "windows", Architecture: "amd64", OSVersion: OSVersion2025}}}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := s.Push(ctx, "lifecycle/app:1", a)
	if err != nil {
		t.Fatal(err)
	}
	first, host := s.Pid(), s.Host
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Host != host || s.Pid() == first || !gone(first) {
		t.Errorf("after Restart: host %s (was %s), pid %d (was %d, gone: %v)", s.Host, host, s.Pid(), first, gone(first))
	}
	if _, err := remote.Head(pushed, s.RemoteOptions(ctx)...); err != nil {
		t.Errorf("%s after Restart: %v", pushed, err)
	}

	pid := s.Pid()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) {
		t.Errorf("pid %d still exists after Stop", pid)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("pid file still exists after Stop (%v)", err)
	}
	if _, err := os.Stat(s.Dir); err != nil {
		t.Errorf("Stop removed Dir %s, which the caller gave: %v", s.Dir, err)
	}
}

func TestStartFailsWithTheLog(t *testing.T) {
	dir := t.TempDir()
	// A "registry" that exits at once.
	fake := filepath.Join(dir, "registry")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'configuration error: nope' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Binary: fake, Dir: filepath.Join(dir, "r")})
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "configuration error: nope") {
		t.Errorf("Start with a failing binary: %v; want an error saying it exited, with its log", err)
	}
}
