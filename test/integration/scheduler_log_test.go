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

package integration

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/windows-aware/windows-aware/internal/localproc"
)

// schedulerLogProblems returns the lines of a scheduler's log that speak of
// a panic, of a lost leader election, or (for a scheduler built with
// -race) of a data race.
func schedulerLogProblems(p *localproc.Process) []string {
	data, err := os.ReadFile(p.LogFile)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "panic") || strings.Contains(l, "leaderelection lost") || strings.Contains(line, "DATA RACE") {
			out = append(out, line)
		}
	}
	return out
}

// attemptLine is kube-scheduler's -v=3 line at the start of each
// scheduling cycle, just before it snapshots the cluster it decides on:
// I1123 12:33:01.123456   30856 schedule_one.go:117] "Attempting to schedule pod" pod="ns/name"
var attemptLine = regexp.MustCompile(`^[IWEF]\d{4} (\d{2}:\d{2}:\d{2}\.\d{6}) .*"Attempting to schedule pod" pod="([^"/]+)/([^"]+)"`)

// schedulingAttempts reads a scheduler's log (run at -v=3 or more) and
// returns, per pod of ns, when each scheduling cycle for it began. The
// log's times carry no date: they are taken to be within a day before
// now.
func schedulingAttempts(p *localproc.Process, ns string) (map[string][]time.Time, error) {
	f, err := os.Open(p.LogFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	now := time.Now()
	out := map[string][]time.Time{}
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		m := attemptLine.FindStringSubmatch(s.Text())
		if m == nil || m[2] != ns {
			continue
		}
		clock, err := time.ParseInLocation("15:04:05.000000", m[1], time.Local)
		if err != nil {
			continue
		}
		at := time.Date(now.Year(), now.Month(), now.Day(), clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), time.Local)
		if at.After(now.Add(time.Hour)) {
			at = at.AddDate(0, 0, -1)
		}
		out[m[3]] = append(out[m[3]], at)
	}
	return out, s.Err()
}
