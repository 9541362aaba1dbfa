package windowsaware

import (
	"os"
	"testing"

	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

func TestMain(m *testing.M) {
	// The framework records into the scheduler's metrics, which must exist.
	metrics.Register()
	os.Exit(m.Run())
}
