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

package podneeds_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// The images of the tests, one per release the facts table names.
const (
	imgLinux    = "nginx:1.27"
	img2016     = "mcr.microsoft.com/windows/servercore:ltsc2016"
	img2019     = "mcr.microsoft.com/windows/servercore:ltsc2019"
	img1809     = "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809"
	img2022     = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	img2025     = "mcr.microsoft.com/windows/server:ltsc2025"
	imgIIS2019  = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"
	imgWinNoTag = "mcr.microsoft.com/dotnet/framework/aspnet:4.8" // a manifest list: no build
	imgNano     = "golang:1.22-nanoserver"                        // Windows, no build
)

// decider is the Decider of a profile whose args are the defaults, changed
// by mutate: what the scheduler's plugin, publish mode and explain each
// build from the profile.
func decider(t testing.TB, mutate ...func(*config.WindowsAwareArgs)) *podneeds.Decider {
	t.Helper()
	args := scheme.DefaultArgs()
	for _, m := range mutate {
		m(args)
	}
	dr, err := podneeds.New(args)
	if err != nil {
		t.Fatalf("podneeds.New: %v", err)
	}
	return dr
}

// testNodes is a small mixed cluster: a node of each release, one that
// reports its build by kernel version alone, one whose build label does
// not parse, one that reports no build, and a Linux node of each OS label.
func testNodes() []*v1.Node {
	// A node of a kubelet from before kubernetes.io/os, which labelled its
	// node beta.kubernetes.io/os alone: built by hand, no kubelet of today
	// registers it.
	beta := &v1.Node{}
	beta.Name, beta.Labels = "linux-beta", map[string]string{"beta.kubernetes.io/os": "linux"}
	return []*v1.Node{
		fixture.LinuxNode("linux"),
		beta,
		fixture.WindowsNode("win2016", "10.0.14393", fixture.WithKernel("10.0.14393.6897")),
		fixture.WindowsNode("win2019", "10.0.17763", fixture.WithKernel("10.0.17763.4131")),
		fixture.WindowsNode("win2022", "10.0.20348", fixture.WithKernel("10.0.20348.2227")),
		fixture.WindowsNode("win2025", "10.0.26100", fixture.WithKernel("10.0.26100.1742")),
		fixture.WindowsNode("win2019-kernel-only", "", fixture.WithKernel("10.0.17763.437")),
		fixture.WindowsNode("win-banana", "banana", fixture.WithKernel("10.0.17763.437")),
		fixture.WindowsNode("win-unknown", ""),
	}
}

// pod is a pod with one container per image and nothing else.
func pod(images ...string) *v1.Pod { return fixture.Pod("p", "", images...) }

func withOS(p *v1.Pod, os v1.OSName) *v1.Pod {
	p.Spec.OS = &v1.PodOS{Name: os}
	return p
}

func withInit(p *v1.Pod, images ...string) *v1.Pod {
	for _, img := range images {
		p.Spec.InitContainers = append(p.Spec.InitContainers, v1.Container{Name: "init", Image: img})
	}
	return p
}

func withNodeSelector(p *v1.Pod, kv ...string) *v1.Pod {
	p.Spec.NodeSelector = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Spec.NodeSelector[kv[i]] = kv[i+1]
	}
	return p
}

func withTolerations(p *v1.Pod, tolerations ...v1.Toleration) *v1.Pod {
	p.Spec.Tolerations = tolerations
	return p
}

// withRequiredAffinity gives the pod required node affinity of one term:
// key In values.
func withRequiredAffinity(p *v1.Pod, key string, values ...string) *v1.Pod {
	p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
		}}},
	}}
	return p
}
