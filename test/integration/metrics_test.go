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
	"fmt"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/metrics/testutil"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/localproc"
)

// scraper reads a scheduler process's /metrics on its secure port as the
// cluster admin, whom the scheduler's delegated authorization lets through
// (system:masters).
type scraper struct {
	t      *testing.T
	client *http.Client
}

func newScraper(t *testing.T, c *controlplane.Cluster) *scraper {
	t.Helper()
	cfg := rest.CopyConfig(c.Config)
	// The scheduler serves a self-signed certificate of its own.
	cfg.TLSClientConfig.Insecure, cfg.TLSClientConfig.CAData, cfg.TLSClientConfig.CAFile = true, nil, ""
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &scraper{t: t, client: client}
}

// scrape returns the metric families of one scheduler or webhook process.
func (s *scraper) scrape(p *localproc.Process) map[string]*dto.MetricFamily {
	s.t.Helper()
	families, err := s.tryScrape(p)
	if err != nil {
		s.t.Fatal(err)
	}
	return families
}

// tryScrape is scrape for a caller that polls: a process just started
// answers 403 until its delegated authentication has loaded the client CA.
func (s *scraper) tryScrape(p *localproc.Process) (map[string]*dto.MetricFamily, error) {
	port := ""
	for _, a := range p.Args {
		// A scheduler's secure port, or the admission webhook's.
		if v, ok := strings.CutPrefix(a, "--secure-port="); ok {
			port = v
		} else if v, ok := strings.CutPrefix(a, "--port="); ok {
			port = v
		}
	}
	resp, err := s.client.Get(fmt.Sprintf("https://127.0.0.1:%s/metrics", port))
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", p.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scraping %s: %s", p.Name, resp.Status)
	}
	families, err := testutil.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing the metrics of %s: %w", p.Name, err)
	}
	return families, nil
}

// counter is the value of a counter's series, 0 when it has none yet.
func counter(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	for _, m := range families[name].GetMetric() {
		if testutil.LabelsMatch(m, labels) {
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// histogramCount is how many observations a histogram holds.
func histogramCount(families map[string]*dto.MetricFamily, name string) uint64 {
	var n uint64
	for _, m := range families[name].GetMetric() {
		n += m.GetHistogram().GetSampleCount()
	}
	return n
}

// TestMetricsOnTheSchedulersEndpoint places a Windows and a Linux pod, and
// leaves a conflicting one Pending, and reads the plugin's counters off the
// leading scheduler's /metrics.
func TestMetricsOnTheSchedulersEndpoint(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	// One Windows node among four: the Windows pod's node list is narrowed.
	e.createNodes(linuxNode("metrics-l1"), linuxNode("metrics-l2"), linuxNode("metrics-l3"),
		windowsNode("metrics-w2019", "10.0.17763", v1.Taint{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}))

	leader := waitLeaderProcess(t, e.c)
	s := newScraper(t, e.c)
	before := s.scrape(leader)

	e.createPod(ns, newPod("win", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019"))
	e.createPod(ns, newPod("linux", windowsAware, "nginx:1.27"))
	conflicting := newPod("conflicting", windowsAware, "mcr.microsoft.com/windows/servercore:ltsc2019")
	conflicting.Spec.OS = &v1.PodOS{Name: v1.Linux}
	e.createPod(ns, conflicting)
	e.waitAllScheduled(ns, []string{"win", "linux"}, scheduleTimeout)
	e.failedScheduling(ns, "conflicting", scheduleTimeout)

	if now := waitLeaderProcess(t, e.c); now != leader {
		t.Fatalf("the lead moved from %s to %s during the test", leader.Name, now.Name)
	}
	// The scheduler counts in PreFilter, before it binds a pod or reports
	// it unschedulable: the counters hold the three pods by now.
	after := s.scrape(leader)
	for _, tc := range []struct {
		metric string
		labels map[string]string
	}{
		{"windows_aware_pod_decisions_total", map[string]string{"os": "windows", "source": "tag"}},
		{"windows_aware_pod_decisions_total", map[string]string{"os": "linux", "source": "default"}},
		{"windows_aware_pod_conflicts_total", map[string]string{"kind": "os_vs_image"}},
	} {
		if rise := counter(after, tc.metric, tc.labels) - counter(before, tc.metric, tc.labels); rise < 1 {
			t.Errorf("%s%v rose by %v, want at least 1", tc.metric, tc.labels, rise)
		}
	}
	if rise := histogramCount(after, "windows_aware_prefilter_nodes_named") - histogramCount(before, "windows_aware_prefilter_nodes_named"); rise < 1 {
		t.Errorf("windows_aware_prefilter_nodes_named observed %d more lists, want at least 1 (the Windows pod's)", rise)
	}
}

// gauge is the value of a gauge's series, 0 when it has none yet.
func gauge(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	for _, m := range families[name].GetMetric() {
		if testutil.LabelsMatch(m, labels) {
			return m.GetGauge().GetValue()
		}
	}
	return 0
}
