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

package schedcpu

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The progress file as the harness writes it: seconds since its first
// sample, pods scheduled, attempts, measured pods bound, rate, then queue
// sizes.
func TestSpan(t *testing.T) {
	tests := []struct {
		name         string
		dat          string
		pods         int
		seconds, win float64
	}{
		{name: "three samples", dat: "1.0s 150 150 120 120.0 0 0 0 0\n2.0s 260 260 230 110.0 0 0 0 0\n3.1s 400 400 370 127.3 0 0 0 0\n",
			pods: 250, seconds: 2.1, win: 3.1},
		{name: "one sample: no span", dat: "1.0s 150 150 120 120.0 0 0 0 0\n", win: 1},
		{name: "empty", dat: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.dat")
			if err := os.WriteFile(path, []byte(tc.dat), 0o644); err != nil {
				t.Fatal(err)
			}
			pods, seconds, win, err := span(path)
			if err != nil {
				t.Fatal(err)
			}
			if pods != tc.pods || !near(seconds, tc.seconds) || !near(win, tc.win) {
				t.Errorf("got %d pods over %.2f s, window %.2f; want %d over %.2f, %.2f", pods, seconds, win, tc.pods, tc.seconds, tc.win)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "bad.dat")
	if err := os.WriteFile(path, []byte("1.0s 1 1 x 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := span(path); err == nil {
		t.Error("a malformed line was read")
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestProgressFile: the newest file of the workload, not of a workload
// whose name it is a prefix of.
func TestProgressFile(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "SchedulingBasic_500Nodes_windows-aware_2026-01-01T00:00:00Z.dat")
	newer := filepath.Join(dir, "SchedulingBasic_500Nodes_windows-aware_2026-01-02T00:00:00Z.dat")
	other := filepath.Join(dir, "SchedulingBasic_500Nodes_Async_windows-aware_2026-01-03T00:00:00Z.dat")
	for i, p := range []string{old, newer, other} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	if got := progressFile(dir, "BenchmarkUpstream/misc/plugins=stock/SchedulingBasic/500Nodes", "windows-aware"); got != newer {
		t.Errorf("got %q, want %q", got, newer)
	}
	if got := progressFile("", "BenchmarkUpstream/misc/plugins=stock/SchedulingBasic/500Nodes", "windows-aware"); got != "" {
		t.Errorf("no directory: got %q", got)
	}
}
