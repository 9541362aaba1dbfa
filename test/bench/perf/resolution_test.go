//go:build !k8s1_35 && !k8s1_36

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

// Runs in the scheduler_perf harness of perf_test.go: on the newest minor
// only, as that file is.

package perf

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"

	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/synthetic"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// The os.version of the images pushed for pod-resolution.yaml: what a
// build FROM each Windows Server base image carries.
const (
	osVersion2019 = "10.0.17763.6893"
	osVersion2022 = "10.0.20348.3207"
	osVersion2025 = "10.0.26100.3476"
)

// sameNeeds names, for each private image of pod-resolution.yaml, a public
// image the oracle knows that needs the same of a node.
var sameNeeds = map[string]string{
	"contoso/web:1":       "nginx:1.27",
	"contoso/iis:1":       "mcr.microsoft.com/windows/servercore:ltsc2019",
	"contoso/api:1":       "mcr.microsoft.com/windows/servercore:ltsc2022",
	"contoso/server:1":    "mcr.microsoft.com/windows/server:ltsc2025",
	"contoso/init:1":      "mcr.microsoft.com/windows/nanoserver:ltsc2022",
	"contoso/framework:1": "mcr.microsoft.com/windows/servercore:ltsc2025",
}

// oracleImages maps the references of the private images, on the
// registry of the running benchmark, to their sameNeeds.
var oracleImages map[string]string

// asOracleSees returns pod with its private images replaced by the public
// images that need the same: the oracle judges images it knows, and only
// the registry knows what the private ones need.
func asOracleSees(pod *v1.Pod) *v1.Pod {
	out := pod
	for _, cs := range []*[]v1.Container{&pod.Spec.InitContainers, &pod.Spec.Containers} {
		for i := range *cs {
			same, ok := oracleImages[(*cs)[i].Image]
			if !ok {
				continue
			}
			if out == pod {
				out = pod.DeepCopy()
			}
			if cs == &pod.Spec.InitContainers {
				out.Spec.InitContainers[i].Image = same
			} else {
				out.Spec.Containers[i].Image = same
			}
		}
	}
	return out
}

// BenchmarkPerfResolution is the whole scheduler with image resolution on
// and a warm cache, against the same cluster and pod mix placed by the tag
// rules alone, in one run: WindowsMixTags is WindowsMix's windows-aware
// workload (shipped configuration, tagged public images);
// WindowsMixResolved runs the shipped configuration plus imageResolution
// (scope Undeclared) over pods whose private images name no build and
// whose OS the pods do not declare, served by a registry in this process.
// The init pods resolve the six images (each held in PreEnqueue until its
// image is known); the measured pods find them all in the cache. The
// oracle checks every placement, as in BenchmarkPerfScheduling.
func BenchmarkPerfResolution(b *testing.B) {
	reg := registrytest.New(b)
	windowsImage := func(osVersion string) any { return registrytest.WindowsImage(b, osVersion) }
	oracleImages = map[string]string{}
	for repo, same := range sameNeeds {
		oracleImages[reg.Ref(repo)] = same
	}
	for repo, img := range map[string]any{
		"contoso/web:1":       registrytest.Image(b, registrytest.Docker, "linux", "amd64", ""),
		"contoso/iis:1":       windowsImage(osVersion2019),
		"contoso/api:1":       windowsImage(osVersion2022),
		"contoso/server:1":    windowsImage(osVersion2025),
		"contoso/init:1":      windowsImage(osVersion2022),
		"contoso/framework:1": windowsImage(osVersion2025),
	} {
		reg.Push(b, repo, img)
	}
	dir := b.TempDir()
	shippedConfig, err := filepath.Abs("../../../manifests/scheduler-config.yaml")
	if err != nil {
		b.Fatal(err)
	}
	shipped, err := os.ReadFile(shippedConfig)
	if err != nil {
		b.Fatal(err)
	}
	// The registry is plain HTTP on loopback: allowlisted for both.
	resolvingConfig := filepath.Join(dir, "scheduler-config-resolution.yaml")
	block := fmt.Sprintf(`          imageResolution:
            scope: Undeclared
            registries: [{host: %q, insecure: true, allowPrivate: true}]
            gateTimeout: 10s
`, reg.Host())
	if err := os.WriteFile(resolvingConfig, append(shipped, block...), 0o600); err != nil {
		b.Fatal(err)
	}
	templates, err := filepath.Abs("templates")
	if err != nil {
		b.Fatal(err)
	}
	perfConfig := filepath.Join(dir, "performance-config-resolution.yaml")
	if err := os.WriteFile(perfConfig, []byte(resolutionWorkloads(shippedConfig, resolvingConfig, templates, reg.Host())), 0o600); err != nil {
		b.Fatal(err)
	}

	var v verifier
	perf.RunBenchmarkPerfScheduling(b, perfConfig, topic, registry(),
		perf.WithPreRunFn(v.preRun),
		perf.WithPrepareFn(v.prepare),
	)
	if err := v.writeSummary(); err != nil {
		b.Errorf("writing the placement summary: %v", err)
	}
}

// resolutionWorkloads is the scheduler_perf configuration of
// BenchmarkPerfResolution, at the sizes and labels of
// performance-config.yaml.
func resolutionWorkloads(shippedConfig, resolvingConfig, templates, registryHost string) string {
	testCase := func(name, schedulerConfig, podTemplate string) string {
		return fmt.Sprintf(`- name: %s
  schedulerConfigPath: %q
  metricsCollectorConfig:
    metrics:
      scheduler_scheduling_attempt_duration_seconds:
      - label: result
        values: [scheduled, unschedulable, error]
      scheduler_pod_scheduling_duration_seconds:
  workloadTemplate:
  - opcode: createNodes
    countParam: $initNodes
    nodeTemplatePath: %q
  - opcode: createPods
    countParam: $initPods
    podTemplatePath: %q
    templateParams: {variant: windows-aware, registry: %q}
  - opcode: createPods
    countParam: $measurePods
    podTemplatePath: %q
    templateParams: {variant: windows-aware, registry: %q}
    collectMetrics: true
  workloads:
  - name: 5000Nodes_10000Pods
    labels: [performance]
    params: {initNodes: 5000, initPods: 1000, measurePods: 10000}
  - name: 5000Nodes_2000Pods
    labels: [ci]
    params: {initNodes: 5000, initPods: 200, measurePods: 2000}
  - name: 500Nodes_1000Pods
    labels: [smoke]
    params: {initNodes: 500, initPods: 100, measurePods: 1000}
`, name, schedulerConfig, filepath.Join(templates, "node-mixed.yaml"),
			podTemplate, registryHost, podTemplate, registryHost)
	}
	return "# Generated by BenchmarkPerfResolution.\n" +
		testCase("WindowsMixTags", shippedConfig, filepath.Join(templates, "pod-mixed.yaml")) +
		testCase("WindowsMixResolved", resolvingConfig, filepath.Join(templates, "pod-resolution.yaml"))
}

// TestResolutionTemplateMatchesMix: each pod of pod-resolution.yaml, its
// private images read as the registry lists them, may run on exactly the
// nodes its pod of pod-mixed.yaml may run on.
func TestResolutionTemplateMatchesMix(t *testing.T) {
	const registryHost = "127.0.0.1:5000"
	saved := oracleImages
	t.Cleanup(func() { oracleImages = saved })
	oracleImages = map[string]string{}
	for repo, same := range sameNeeds {
		oracleImages[registryHost+"/"+repo] = same
	}
	for i := range 20 {
		var private, public v1.Pod
		render(t, "templates/pod-resolution.yaml", map[string]any{"Index": i, "Count": 20, "registry": registryHost}, &private)
		render(t, "templates/pod-mixed.yaml", map[string]any{"Index": i, "Count": 20, "variant": "windows-aware"}, &public)
		if private.Labels[synthetic.LabelKind] != public.Labels[synthetic.LabelKind] {
			t.Fatalf("pod %d: kind %q, want %q", i, private.Labels[synthetic.LabelKind], public.Labels[synthetic.LabelKind])
		}
		for n := range 10 {
			node := synthetic.Node(n)
			got, err1 := oracle.Check(asOracleSees(&private), node)
			want, err2 := oracle.Check(&public, node)
			if err1 != nil || err2 != nil || got != want {
				t.Errorf("pod %d (%s) on node %d: %v %v, want %v %v", i, public.Labels[synthetic.LabelKind], n, got, err1, want, err2)
			}
		}
	}
}
