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

package windowsaware

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// newRegisteredPlugin builds the plugin as the scheduler does, which
// registers the metrics.
func newRegisteredPlugin(t *testing.T) *WindowsAware {
	t.Helper()
	pl, err := New(t.Context(), defaultArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*WindowsAware)
}

func decisions(t *testing.T, os, source string) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(PodDecisions.WithLabelValues(os, source))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func conflicts(t *testing.T, kind podneeds.ConflictKind) float64 {
	t.Helper()
	v, err := testutil.GetCounterMetricValue(PodConflicts.WithLabelValues(string(kind)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPreFilterCountsDecisions(t *testing.T) {
	pl := newRegisteredPlugin(t)
	withSelector := func(p *v1.Pod, key, value string) *v1.Pod {
		p.Spec.NodeSelector = map[string]string{key: value}
		return p
	}
	tests := []struct {
		name       string
		pod        *v1.Pod
		wantOS     string
		wantSource podneeds.Source
		wantKind   podneeds.ConflictKind // set for a conflict, which counts no decision
	}{
		{name: "linux image, default", pod: pod(imgLinux).Obj(), wantOS: "linux", wantSource: podneeds.SourceDefault},
		{name: "windows tag", pod: pod(img2019).Obj(), wantOS: "windows", wantSource: podneeds.SourceTag},
		{name: ".spec.os.name", pod: withOS(pod(imgLinux), v1.Windows), wantOS: "windows", wantSource: podneeds.SourceSpec},
		{name: "hostProcess", pod: hostProcess(pod("busybox:1.36")), wantOS: "windows", wantSource: podneeds.SourceHostProcess},
		{name: "selector", pod: withSelector(pod(imgLinux).Obj(), v1.LabelOSStable, "windows"), wantOS: "windows", wantSource: podneeds.SourceSelector},
		{name: "selector to an OS of its own", pod: withSelector(pod(imgLinux).Obj(), v1.LabelOSStable, "plan9"), wantOS: "other", wantSource: podneeds.SourceSelector},
		{name: "conflict", pod: withOS(pod(img2019), v1.Linux), wantKind: podneeds.ConflictOSVsImage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantKind != "" {
				before := conflicts(t, tt.wantKind)
				if _, s := pl.PreFilter(t.Context(), newState(), tt.pod, nil); s.Code() != fwk.UnschedulableAndUnresolvable {
					t.Fatalf("PreFilter = %v, want a conflict", s)
				}
				if got := conflicts(t, tt.wantKind) - before; got != 1 {
					t.Errorf("%s conflicts counted %v times, want 1", tt.wantKind, got)
				}
				return
			}
			before := decisions(t, tt.wantOS, string(tt.wantSource))
			if _, s := pl.PreFilter(t.Context(), newState(), tt.pod, nil); !s.IsSuccess() {
				t.Fatalf("PreFilter = %v", s)
			}
			if got := decisions(t, tt.wantOS, string(tt.wantSource)) - before; got != 1 {
				t.Errorf("decisions{os=%s,source=%s} rose by %v, want 1", tt.wantOS, tt.wantSource, got)
			}
		})
	}
}

func TestPreFilterObservesNodesNamed(t *testing.T) {
	pl := newRegisteredPlugin(t)
	var infos []fwk.NodeInfo
	for _, n := range mixedCluster() {
		infos = append(infos, nodeInfo(n))
	}
	count := func() (uint64, float64) {
		vec, err := testutil.GetHistogramVecFromGatherer(legacyregistry.DefaultGatherer, "windows_aware_prefilter_nodes_named", nil)
		if err != nil {
			t.Fatal(err)
		}
		return vec.GetAggregatedSampleCount(), vec.GetAggregatedSampleSum()
	}
	tests := []struct {
		name      string
		pod       *v1.Pod
		wantNamed int // 0: not narrowed, nothing observed
	}{
		{"ltsc2019: two nodes named", pod(img2019).Obj(), 2},
		{"ltsc2022: 2022 and 2025 nodes named", pod(img2022).Obj(), 2},
		{"linux: not narrowed", pod(imgLinux).Obj(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n0, sum0 := count()
			if _, s := pl.PreFilter(t.Context(), newState(), tt.pod, infos); !s.IsSuccess() {
				t.Fatal(s)
			}
			n1, sum1 := count()
			wantCount := uint64(0)
			if tt.wantNamed > 0 {
				wantCount = 1
			}
			if n1-n0 != wantCount || sum1-sum0 != float64(tt.wantNamed) {
				t.Errorf("observed %d lists of %v nodes, want %d of %d", n1-n0, sum1-sum0, wantCount, tt.wantNamed)
			}
		})
	}
}

// TestRecordingAllocatesNothing: PreFilter's counting costs a map lookup,
// not an allocation.
func TestRecordingAllocatesNothing(t *testing.T) {
	newRegisteredPlugin(t)
	pl, _ := newWindowsAware(defaultArgs())
	for _, p := range []*v1.Pod{pod(img2019).Obj(), pod(imgLinux).Obj(), withOS(pod(img2019), v1.Linux)} {
		r, err := pl.requirementsOf(p)
		if allocs := testing.AllocsPerRun(100, func() { recordDecision(r, err); recordNarrowing(3) }); allocs != 0 {
			t.Errorf("%s: recording allocates %v times, want 0", p.Spec.Containers[0].Image, allocs)
		}
	}
}

// TestMetricsExposition: the metrics are in the text /metrics serves,
// named and documented as Prometheus's linter wants. The text comes from
// the registry's handler, as the scheduler serves it (and from no text
// encoder of a test library, which not every Kubernetes minor has).
func TestMetricsExposition(t *testing.T) {
	newRegisteredPlugin(t)
	rec := httptest.NewRecorder()
	legacyregistry.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: status %d", rec.Code)
	}
	// Only our families are linted: the registry also holds other
	// components' metrics, which are not this project's to fix.
	var text bytes.Buffer
	found := map[string]bool{}
	for line := range strings.Lines(rec.Body.String()) {
		// "# HELP name ...", "# TYPE name kind" or "name{labels} value".
		name, isType := line, false
		if meta, ok := strings.CutPrefix(line, "# "); ok {
			var kind string
			kind, name, _ = strings.Cut(meta, " ")
			isType = kind == "TYPE"
		}
		if !strings.HasPrefix(name, MetricsSubsystem+"_") {
			continue
		}
		text.WriteString(line)
		if isType {
			found[strings.Fields(name)[0]] = true
		}
	}
	for _, name := range []string{"windows_aware_pod_decisions_total", "windows_aware_pod_conflicts_total", "windows_aware_prefilter_nodes_named", "windows_aware_autoscaler_blind_pods_total"} {
		if !found[name] {
			t.Errorf("%s is not served", name)
		}
	}
	problems, err := testutil.NewPromLinter(&text).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
