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

package publish

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// The invariant of publish mode: what a published pod's own constraints
// admit (its node selector and required node affinity, by upstream's
// nodeaffinity, and its tolerations, with no implicit one) is never less
// than what the scheduler admits for it (WindowsAware's verdict, the OS
// taints it tolerates implicitly, and the pod's own selectors), and never
// takes in a node the scheduler rejects for its OS or build. So an
// autoscaler that reads the published pod never thinks a node useless that
// the scheduler would use, nor useful when the scheduler would refuse it
// for what the pod runs.
//
// The nodes are as kubelets register them (kubernetes.io/os in lower case,
// the build label set); the OS taints are spelt as the clusters this
// project documents spell them. A node that reports its build only by its
// kernel version, a beta.kubernetes.io/os-only node, or an OS taint spelt
// "WINDOWS" is admitted by the scheduler and not by the published pod:
// kubelets since 1.17 set both labels, and no platform taints so.

// invariantNodes are nodes of every OS and every build a host may carry
// (the release table's, 23H2's, an Insider build), bare and under each
// kind of taint, plus
// Windows nodes with no build label or a malformed one.
func invariantNodes() []*v1.Node {
	taintSets := map[string][]v1.Taint{
		"bare":       nil,
		"os":         {{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}},
		"os-title":   {{Key: "os", Value: "Windows", Effect: v1.TaintEffectNoSchedule}},
		"k8s-os":     {{Key: "node.kubernetes.io/os", Value: "windows", Effect: v1.TaintEffectNoSchedule}},
		"noexecute":  {{Key: "os", Value: "windows", Effect: v1.TaintEffectNoExecute}},
		"unrelated":  {{Key: "example.com/gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}},
		"os-and-gpu": {{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}, {Key: "example.com/gpu", Value: "true", Effect: v1.TaintEffectNoSchedule}},
	}
	var nodes []*v1.Node
	builds := windows.DefaultCatalog().Hosts()
	builds = append(builds, windows.Build{Major: 10, Minor: 0, Number: 20344})
	for taintName, taints := range taintSets {
		for _, b := range builds {
			nodes = append(nodes, fixture.Node(fmt.Sprintf("win-%s-%s", b, taintName), fixture.NodeOptions{OS: "windows", Build: b.String(), Taints: taints}))
		}
		linuxTaints := make([]v1.Taint, len(taints))
		for i, t := range taints {
			t.Value = strings.NewReplacer("windows", "linux", "Windows", "Linux").Replace(t.Value)
			linuxTaints[i] = t
		}
		nodes = append(nodes, fixture.Node("linux-"+taintName, fixture.NodeOptions{OS: "linux", Taints: linuxTaints}))
		noBuild := fixture.Node("win-nobuild-"+taintName, fixture.NodeOptions{OS: "windows", Taints: taints})
		noBuild.Status.NodeInfo.KernelVersion = ""
		malformed := fixture.Node("win-malformed-"+taintName, fixture.NodeOptions{OS: "windows", Taints: taints})
		malformed.Labels[v1.LabelWindowsBuild] = "banana"
		nodes = append(nodes, noBuild, malformed)
	}
	return nodes
}

// invariantImages are references of every release token in the shapes
// tags take, Linux images that look like Windows ones, and references the
// tag rules reject or find contradictory.
func invariantImages() []string {
	images := []string{
		imgLinux, "redis:2004", "ghcr.io/acme/windows-exporter:v1", "ghcr.io/acme/ltsc2019-tools:v1", "busybox:10.0.1.2",
		"golang:1.22-nanoserver", "acme/agent:1.4-windows-amd64", "ghcr.io/acme/app:1.0-windows-2022-amd64",
		"mcr.microsoft.com/windows/servercore/insider:10.0.20344.1", "mcr.microsoft.com/windows/servercore:10.0.17763.437",
		"mcr.microsoft.com/windows/servercore:1809-ltsc2022", "mcr.microsoft.com/dotnet/framework/aspnet:4.8",
		"gitlab/gitlab-runner-helper:x86_64-v16-servercore21H2", "mcr.microsoft.com/windows/nanoserver:24H2",
		"mcr.microsoft.com/windows/servercore:2022", ":::",
	}
	for _, r := range windows.KnownReleases {
		images = append(images,
			"mcr.microsoft.com/windows/servercore:"+r.Token,
			"acme.io/app:2.1-nanoserver-"+r.Token,
			"acme.io/app:"+r.Token)
	}
	return images
}

// podShapes turn images into pods the ways users write them.
var podShapes = map[string]func(images ...string) *v1.Pod{
	"bare": podOf,
	"spec linux": func(images ...string) *v1.Pod {
		return with(podOf(images...), func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Linux} })
	},
	"spec windows": func(images ...string) *v1.Pod {
		return with(podOf(images...), func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Windows} })
	},
	"hostProcess": func(images ...string) *v1.Pod { return fixture.HostProcess(podOf(images...)) },
	"os selector": func(images ...string) *v1.Pod {
		return with(podOf(images...), func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows"} })
	},
	"2019 build selector": func(images ...string) *v1.Pod {
		return with(podOf(images...), func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelWindowsBuild: build19} })
	},
	"zone terms": func(images ...string) *v1.Pod {
		return with(podOf(images...), func(p *v1.Pod) {
			p.Spec.Affinity = requiredTerms([]v1.NodeSelectorRequirement{zoneIs("a")}, []v1.NodeSelectorRequirement{
				{Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpDoesNotExist}})
		})
	},
	"wide build term": func(images ...string) *v1.Pod {
		return with(podOf(images...), func(p *v1.Pod) {
			p.Spec.Affinity = requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19, build22, build25)})
		})
	},
	"tolerates os": func(images ...string) *v1.Pod {
		return with(podOf(images...), func(p *v1.Pod) {
			p.Spec.Tolerations = []v1.Toleration{{Key: "os", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
		})
	},
}

// verdicts are the scheduler's and the published pod's view of one node.
type verdicts struct {
	scheduler, published bool
	// osOrBuild is set when WindowsAware rejects the node for the pod's
	// OS or the build its images need.
	osOrBuild bool
	reason    string
}

func judge(t *testing.T, d *podneeds.Decision, original, published *v1.Pod, node *v1.Node) verdicts {
	t.Helper()
	var v verdicts
	fits, reason := d.RunsOn(node)
	repels, taintReason := d.TaintsRepel(original, node, false)
	own, err := nodeaffinity.GetRequiredNodeAffinity(original).Match(node)
	if err != nil {
		t.Fatalf("the pod's own affinity: %v", err)
	}
	v.scheduler, v.osOrBuild, v.reason = fits && !repels && own, !fits, reason+taintReason
	stamped, err := nodeaffinity.GetRequiredNodeAffinity(published).Match(node)
	if err != nil {
		t.Fatalf("the published affinity %+v: %v", published.Spec.Affinity, err)
	}
	_, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, published.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, false)
	v.published = stamped && !untolerated
	return v
}

// checkInvariant publishes pod and holds its constraints to the
// scheduler's verdict on every node.
func checkInvariant(t *testing.T, p *Publisher, nodes []*v1.Node, pod *v1.Pod) {
	t.Helper()
	published := pod.DeepCopy()
	_, outcome := p.Publish(published)
	d := p.decide(pod)
	if outcome == OutcomeConflict {
		return // untouched; no node fits
	}
	for _, node := range nodes {
		v := judge(t, d, pod, published, node)
		if v.scheduler && !v.published {
			t.Errorf("pod %v (%s): the scheduler admits node %s, the published pod does not; spec %s",
				podImagesOf(pod), outcome, node.Name, describe(published))
		}
		if v.published && v.osOrBuild {
			t.Errorf("pod %v (%s): the published pod admits node %s, which the scheduler rejects (%s); spec %s",
				podImagesOf(pod), outcome, node.Name, v.reason, describe(published))
		}
	}
}

func podImagesOf(pod *v1.Pod) []string {
	var out []string
	for _, c := range append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		out = append(out, c.Image)
	}
	return out
}

func describe(pod *v1.Pod) string {
	return fmt.Sprintf("nodeSelector=%v affinity=%+v tolerations=%v", pod.Spec.NodeSelector, pod.Spec.Affinity, tolerationStrings(pod.Spec.Tolerations))
}

// TestPublishedPodAdmitsWhatTheSchedulerAdmits runs the invariant over
// every image alone and next to each release's image, in every pod shape,
// under both compatibility modes.
func TestPublishedPodAdmitsWhatTheSchedulerAdmits(t *testing.T) {
	nodes := invariantNodes()
	images := invariantImages()
	for _, mode := range []string{"containerd", "exact"} {
		p := newPublisher(t, func(a *config.WindowsAwareArgs) { a.CompatibilityMode = mode })
		pods := 0
		for shapeName, shape := range podShapes {
			for _, img := range images {
				checkInvariant(t, p, nodes, shape(img))
				pods++
				for _, r := range []string{img2019, img2022, img2025} {
					checkInvariant(t, p, nodes, shape(img, r))
					pods++
				}
			}
			if t.Failed() {
				t.Fatalf("mode %s, shape %s: the invariant does not hold", mode, shapeName)
			}
		}
		t.Logf("%s: %d pods × %d nodes", mode, pods, len(nodes))
	}
}

// FuzzPublish is the invariant over generated pods: images, .spec.os,
// HostProcess, the user's OS and build selectors and an OS toleration.
func FuzzPublish(f *testing.F) {
	f.Add(img2019, "", "", uint8(0), false, "", "", false)
	f.Add(img2022, imgLinux, "", uint8(2), false, "windows", "", true)
	f.Add("golang:1.22-nanoserver", "", img2025, uint8(0), false, "", "10.0.26100", false)
	f.Add(imgLinux, "", "", uint8(1), false, "linux", "", false)
	f.Add("ghcr.io/acme/app:1.0-windows", "servercore1809", "x:ltsc2019-1809", uint8(3), true, "Windows", "banana", false)
	f.Add("mcr.microsoft.com/windows/servercore:10.0.20344.1", "", "", uint8(0), false, "", "10.0.20344", false)
	nodes := invariantNodes()
	p := newPublisher(f)
	f.Fuzz(func(t *testing.T, img1, img2, initImg string, osChoice uint8, hostProc bool, selOS, selBuild string, tolerateOS bool) {
		pod := fixture.FuzzedPod(profile, img1, img2, initImg, osChoice, hostProc, selOS, selBuild)
		if tolerateOS {
			pod.Spec.Tolerations = []v1.Toleration{{Key: "os", Operator: v1.TolerationOpExists}}
		}
		checkInvariant(t, p, nodes, pod)
	})
}
