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
