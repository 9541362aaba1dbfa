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
	"time"

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

// BenchmarkPerfResolution is the whole scheduler with image resolution on,
// against the same cluster and pod mix placed by the tag rules alone, in
// one run:
//
//   - WindowsMixTags is WindowsMix's windows-aware workload (shipped
//     configuration, tagged public images);
//   - WindowsMixResolved runs the shipped configuration plus
//     imageResolution (scope Undeclared) over pods whose private images
//     name no build and whose OS the pods do not declare, served by a
//     registry in this process. The init pods resolve the six images (each
//     held in PreEnqueue until its image is known); the measured pods find
//     them all in the cache;
//   - WindowsMixSlowRegistry is WindowsMixResolved against a registry that
//     answers every request in 200 ms, with a tenth of all pods using an
//     image no pod used before (pod-new-image.yaml, one image each). Those
//     are created just before the measured pods, in a namespace of their
//     own, and resolve while the measured pods (known images) are
//     scheduled. A barrier then waits for the new-image pods, whose
//     placements are checked with the rest;
//   - WindowsMixNewImages is WindowsMixSlowRegistry against the fast
//     registry: the same pods, the new-image pods' scheduling cycles
//     included, so that WindowsMixSlowRegistry's throughput over its own
//     shows what the registry's slowness alone costs pods with known
//     images (whether they wait for it), not the cycles the scheduler
//     spends on the new-image pods in the same window, which any registry
//     costs. The throughput counts the measured pods only, in both.
//
// The oracle checks every placement, as in BenchmarkPerfScheduling.
func BenchmarkPerfResolution(b *testing.B) {
	fast, slow := registrytest.New(b), registrytest.New(b)
	slow.AddFault(registrytest.Fault{Times: -1, Delay: slowRegistryDelay})
	windowsImage := func(osVersion string) any { return registrytest.WindowsImage(b, osVersion) }
	oracleImages = map[string]string{}
	images := map[string]any{
		"contoso/web:1":       registrytest.Image(b, registrytest.Docker, "linux", "amd64", ""),
		"contoso/iis:1":       windowsImage(osVersion2019),
		"contoso/api:1":       windowsImage(osVersion2022),
		"contoso/server:1":    windowsImage(osVersion2025),
		"contoso/init:1":      windowsImage(osVersion2022),
		"contoso/framework:1": windowsImage(osVersion2025),
	}
	for _, reg := range []*registrytest.Server{fast, slow} {
		for repo, img := range images {
			reg.Push(b, repo, img)
			oracleImages[reg.Ref(repo)] = sameNeeds[repo]
		}
	}
	// One image per new-image pod of the largest workload, all built on
	// 2022, on both registries; pushing bypasses the delay.
	newImage := windowsImage(osVersion2022)
	for _, reg := range []*registrytest.Server{fast, slow} {
		for i := range maxNewImagePods {
			repo := fmt.Sprintf("contoso/new-%d:1", i)
			reg.Push(b, repo, newImage)
			oracleImages[reg.Ref(repo)] = newImageNeeds
		}
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
	// The registries are plain HTTP on loopback: allowlisted for both.
	// Against the slow one, more images resolve at once (an admin whose
	// registry is far away raises the limits) and pods wait longer for
	// theirs. Against the fast one, pods wait up to a minute: the largest
	// workload's 1,111 new images, created at once, take 8 to 13 s to
	// resolve on two busy cores, and a pod whose gate timed out is placed
	// by its tags (onFailure), which for these untagged images is the
	// wrong OS: a misplacement of the harness's making, not a measure.
	resolvingConfig := filepath.Join(dir, "scheduler-config-resolution.yaml")
	block := fmt.Sprintf(`          imageResolution:
            scope: Undeclared
            registries: [{host: %q, insecure: true, allowPrivate: true}]
            gateTimeout: 1m
`, fast.Host())
	if err := os.WriteFile(resolvingConfig, append(shipped, block...), 0o600); err != nil {
		b.Fatal(err)
	}
	slowConfig := filepath.Join(dir, "scheduler-config-slow-registry.yaml")
	block = fmt.Sprintf(`          imageResolution:
            scope: Undeclared
            registries: [{host: %q, insecure: true, allowPrivate: true}]
            gateTimeout: 5m
            concurrency: {workers: 16, perRegistry: 16}
`, slow.Host())
	if err := os.WriteFile(slowConfig, append(shipped, block...), 0o600); err != nil {
		b.Fatal(err)
	}
	templates, err := filepath.Abs("templates")
	if err != nil {
		b.Fatal(err)
	}
	perfConfig := filepath.Join(dir, "performance-config-resolution.yaml")
	workloads := resolutionWorkloads(shippedConfig, resolvingConfig, slowConfig, templates, fast.Host(), slow.Host())
	if err := os.WriteFile(perfConfig, []byte(workloads), 0o600); err != nil {
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

const (
	// slowRegistryDelay is how long the slow registry takes to answer.
	slowRegistryDelay = 200 * time.Millisecond
	// maxNewImagePods is newPods of the largest workload: a tenth of its
	// 1,000 + 10,000 + 1,111 pods.
	maxNewImagePods = 1111
	// newImageNeeds is a public image that needs what every new image
	// needs: a 2022 build.
	newImageNeeds = "mcr.microsoft.com/windows/servercore:ltsc2022"
)

// resolutionWorkloads is the scheduler_perf configuration of
// BenchmarkPerfResolution, at the sizes and labels of
// performance-config.yaml.
func resolutionWorkloads(shippedConfig, resolvingConfig, slowConfig, templates, fastHost, slowHost string) string {
	nodes, mix, newImage := filepath.Join(templates, "node-mixed.yaml"), filepath.Join(templates, "pod-resolution.yaml"), filepath.Join(templates, "pod-new-image.yaml")
	header := func(name, schedulerConfig string) string {
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
`, name, schedulerConfig, nodes)
	}
	createPods := func(count, template, registry, extra string) string {
		return fmt.Sprintf(`  - opcode: createPods
    countParam: %s
    podTemplatePath: %q
    templateParams: {variant: windows-aware, registry: %q}
%s`, count, template, registry, extra)
	}
	// sizes are the workloads of every case; newPods only where used
	// (scheduler_perf refuses a parameter a workload does not use).
	// speed marks a workload that is there for a speed ratio alone: CI's
	// placement-only run leaves it out (labels ci and speed).
	sizes := func(withNew, speed bool) string {
		ciLabels := "[ci]"
		if speed {
			ciLabels = "[ci, speed]"
		}
		newPods := func(n int) string {
			if !withNew {
				return ""
			}
			return fmt.Sprintf(", newPods: %d", n)
		}
		return fmt.Sprintf(`  workloads:
  - name: 5000Nodes_10000Pods
    labels: [performance]
    params: {initNodes: 5000, initPods: 1000, measurePods: 10000%s}
  - name: 5000Nodes_2000Pods
    labels: %s
    params: {initNodes: 5000, initPods: 200, measurePods: 2000%s}
  - name: 500Nodes_1000Pods
    labels: [smoke]
    params: {initNodes: 500, initPods: 100, measurePods: 1000%s}
`, newPods(maxNewImagePods), ciLabels, newPods(222), newPods(111))
	}
	const measured = "    collectMetrics: true\n"
	withNewImages := func(name, schedulerConfig, registry string, speed bool) string {
		return header(name, schedulerConfig) +
			createPods("$initPods", mix, registry, "") +
			createPods("$newPods", newImage, registry, "    skipWaitToCompletion: true\n") +
			createPods("$measurePods", mix, registry, measured) +
			"  - opcode: barrier\n" + sizes(true, speed)
	}
	return "# Generated by BenchmarkPerfResolution.\n" +
		header("WindowsMixTags", shippedConfig) +
		createPods("$initPods", filepath.Join(templates, "pod-mixed.yaml"), fastHost, "") +
		createPods("$measurePods", filepath.Join(templates, "pod-mixed.yaml"), fastHost, measured) + sizes(false, true) +
		header("WindowsMixResolved", resolvingConfig) +
		createPods("$initPods", mix, fastHost, "") +
		createPods("$measurePods", mix, fastHost, measured) + sizes(false, false) +
		withNewImages("WindowsMixSlowRegistry", slowConfig, slowHost, false) +
		withNewImages("WindowsMixNewImages", resolvingConfig, fastHost, true)
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

// TestNewImageTemplate: each pod of pod-new-image.yaml has an image of its
// own, which the registry lists as built on 2022, so it may run on exactly
// the nodes a Windows 2022 pod of the mix may run on.
func TestNewImageTemplate(t *testing.T) {
	const registryHost = "127.0.0.1:5000"
	saved := oracleImages
	t.Cleanup(func() { oracleImages = saved })
	oracleImages = map[string]string{}
	seen := map[string]bool{}
	for i := range 20 {
		var pod v1.Pod
		render(t, "templates/pod-new-image.yaml", map[string]any{"Index": i, "Count": 20, "registry": registryHost}, &pod)
		image := pod.Spec.Containers[0].Image
		if seen[image] {
			t.Fatalf("pod %d: image %s used by an earlier pod", i, image)
		}
		seen[image] = true
		oracleImages[image] = newImageNeeds
		var public v1.Pod
		render(t, "templates/pod-mixed.yaml", map[string]any{"Index": 3, "Count": 20, "variant": "windows-aware"}, &public)
		if kind := public.Labels[synthetic.LabelKind]; kind != "win2022" || pod.Labels[synthetic.LabelKind] != kind {
			t.Fatalf("pod %d: kind %q, the mix's win2022 pod has %q", i, pod.Labels[synthetic.LabelKind], kind)
		}
		for n := range 10 {
			node := synthetic.Node(n)
			got, err1 := oracle.Check(asOracleSees(&pod), node)
			want, err2 := oracle.Check(&public, node)
			if err1 != nil || err2 != nil || got != want {
				t.Errorf("pod %d on node %d: %v %v, want %v %v", i, n, got, err1, want, err2)
			}
		}
	}
}
