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

package plugins

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used so far, user and system,
// every thread (the garbage collector's included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter reports cpu-ns/op: the process's CPU time per op. Unlike ns/op
// (wall time) it does not grow when other processes hold the machine's
// cores, so on a shared machine it is the steadier measure; it includes the
// garbage collection the op's allocations cause.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{start: cpuTime()} }

func (m cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64((cpuTime()-m.start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
