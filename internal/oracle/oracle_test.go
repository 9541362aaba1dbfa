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

package oracle

import (
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/manifest"
)

// TestRuns holds the rule to the cases docs/windows-facts.md spells out.
func TestRuns(t *testing.T) {
	tests := []struct {
		name        string
		host, image string
		want        bool
	}{
		{name: "2019 host, 2019 image", host: Build2019, image: Build2019, want: true},
		{name: "2019 host, 2016 image", host: Build2019, image: Build2016, want: false},
		{name: "2019 host, 2022 image", host: Build2019, image: Build2022, want: false},
		{name: "20H2 host, 2004 image", host: Build20H2, image: Build2004, want: false},
		{name: "2022 host, 2022 image", host: Build2022, image: Build2022, want: true},
		{name: "2022 host, 2019 image", host: Build2022, image: Build2019, want: false},
		{name: "2022 host, 2025 image", host: Build2022, image: Build2025, want: false},
		{name: "23H2 host, 2022 image", host: Build23H2, image: Build2022, want: true},
		{name: "2025 host, 2022 image", host: Build2025, image: Build2022, want: true},
		{name: "2025 host, 2025 image", host: Build2025, image: Build2025, want: true},
		{name: "2025 host, 2019 image", host: Build2025, image: Build2019, want: false},
		{name: "later host, 2022 image", host: "10.0.30000", image: Build2022, want: false},
		{name: "later host, 2025 image", host: "10.0.30000", image: Build2025, want: true},
		{name: "revision ignored", host: "10.0.17763.4131", image: "10.0.17763.1", want: true},
		{name: "other minor", host: "10.1.20348", image: Build2022, want: false},
		{name: "malformed host", host: "banana", image: Build2019, want: false},
		{name: "two parts", host: "10.0", image: "10.0", want: false},
		{name: "empty", host: "", image: Build2019, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Runs(tc.host, tc.image); got != tc.want {
				t.Errorf("Runs(%q, %q) = %v, want %v", tc.host, tc.image, got, tc.want)
			}
		})
	}
}

func node(os, build, kernel string) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{v1.LabelOSStable: os}}}
	if build != "" {
		n.Labels[v1.LabelWindowsBuild] = build
	}
	n.Status.NodeInfo.KernelVersion = kernel
	return n
}

func withLabel(n *v1.Node, key, value string) *v1.Node {
	n.Labels[key] = value
	return n
}

func withoutLabel(n *v1.Node, key string) *v1.Node {
	delete(n.Labels, key)
	return n
}

func pod(images ...string) *v1.Pod {
	p := &v1.Pod{}
	for _, img := range images {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{Image: img})
	}
	return p
}

func TestCheck(t *testing.T) {
	hostProcess := pod("mcr.microsoft.com/windows/nanoserver:ltsc2019")
	hostProcess.Spec.SecurityContext = &v1.PodSecurityContext{WindowsOptions: &v1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}}
	withInit := pod("mcr.microsoft.com/windows/nanoserver:ltsc2025")
	withInit.Spec.InitContainers = []v1.Container{{Image: "mcr.microsoft.com/windows/servercore:ltsc2022"}}
	linuxByField := pod("registry.k8s.io/pause:3.10")
	linuxByField.Spec.OS = &v1.PodOS{Name: v1.Linux}
	windowsByField := pod("registry.k8s.io/pause:3.10")
	windowsByField.Spec.OS = &v1.PodOS{Name: v1.Windows}

	tests := []struct {
		name    string
		pod     *v1.Pod
		node    *v1.Node
		want    Verdict
		wantErr bool
	}{
		{name: "linux pod on linux", pod: pod("nginx:1.27"), node: node(Linux, "", ""), want: OK},
		{name: "linux pod on windows", pod: pod("nginx:1.27"), node: node(Windows, Build2019, ""), want: WrongOS},
		{name: "bare number on linux image", pod: pod("redis:2004"), node: node(Linux, "", ""), want: OK},
		{name: "multi-OS image is linux by default", pod: pod("registry.k8s.io/pause:3.10"), node: node(Windows, Build2022, ""), want: WrongOS},
		{name: "os field windows", pod: windowsByField, node: node(Windows, Build2022, ""), want: OK},
		{name: "os field linux", pod: linuxByField, node: node(Linux, "", ""), want: OK},
		{name: "windows pod on linux", pod: pod("mcr.microsoft.com/windows/servercore:ltsc2019"), node: node(Linux, "", ""), want: WrongOS},
		{name: "2019 on 2019", pod: pod("mcr.microsoft.com/windows/servercore:ltsc2019"), node: node(Windows, Build2019, ""), want: OK},
		{name: "2019 on 2022", pod: pod("mcr.microsoft.com/windows/servercore:ltsc2019"), node: node(Windows, Build2022, ""), want: WrongBuild},
		{name: "2022 on 2025", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"), node: node(Windows, Build2025, ""), want: OK},
		{name: "build from kernel version", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"), node: node(Windows, "", "10.0.20348.3207"), want: OK},
		{name: "no build at all", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"), node: node(Windows, "", ""), want: WrongBuild},
		{name: "init container counts", pod: withInit, node: node(Windows, Build2022, ""), want: WrongBuild},
		{name: "init and main on 2025", pod: withInit, node: node(Windows, Build2025, ""), want: OK},
		{name: "hostprocess on any build", pod: hostProcess, node: node(Windows, Build2025, ""), want: OK},
		{name: "hostprocess not on linux", pod: hostProcess, node: node(Linux, "", ""), want: WrongOS},
		{name: "any-build windows image", pod: pod("mcr.microsoft.com/dotnet/framework/aspnet:4.8"), node: node(Windows, Build2016, ""), want: OK},
		{name: "release table image", pod: pod("microsoft/aspnet:4.7.1-windowsservercore-1709"), node: node(Windows, Build1709, ""), want: OK},
		{name: "release in the whole tag", pod: pod("cirrusci/windowsservercore:2019"), node: node(Windows, Build2022, ""), want: WrongBuild},
		{name: "release in the path", pod: pod("ghcr.io/sirredbeard/nim-windows-container/nimstable-ltsc2022:latest"), node: node(Windows, Build2025, ""), want: OK},
		{name: "windows glued to the release", pod: pod("portainer/agent:windows1803-amd64"), node: node(Windows, Build2019, ""), want: WrongBuild},
		{name: "hostprocess image, any build", pod: pod("sigwindowstools/kube-proxy:v1.27.1-calico-hostprocess"), node: node(Windows, Build2016, ""), want: OK},
		{name: "hostprocess image not on linux", pod: pod("sigwindowstools/kube-proxy:v1.27.1-calico-hostprocess"), node: node(Linux, "", ""), want: WrongOS},
		{name: "SQL Server 2019 is linux", pod: pod("mcr.microsoft.com/mssql/server:2019-latest"), node: node(Windows, Build2019, ""), want: WrongOS},
		{name: "unknown image", pod: pod("example.com/unknown:1"), node: node(Linux, "", ""), wantErr: true},
		// The build label is Major.Minor.Build with no revision: a
		// four-part label is none the kubelet writes, and so is not
		// trusted, nor is the kernel version beside it.
		{name: "four-part build label", pod: pod("mcr.microsoft.com/windows/servercore:ltsc2019"), node: node(Windows, Build2019+".4131", ""), want: WrongBuild},
		{name: "four-part label, kernel version of the build", pod: pod("mcr.microsoft.com/windows/servercore:ltsc2019"),
			node: node(Windows, Build2019+".4131", Build2019+".4131"), want: WrongBuild},
		{name: "empty build label", pod: pod("mcr.microsoft.com/windows/servercore:ltsc2019"), node: withLabel(node(Windows, "", Build2019+".4131"), v1.LabelWindowsBuild, ""), want: WrongBuild},
		// The kernel version counts only when it is a Windows one: three
		// or four decimal numbers.
		{name: "kernel version with a suffix", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"), node: node(Windows, "", "10.0.20348-rc1.3207"), want: WrongBuild},
		{name: "kernel version of two parts", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"), node: node(Windows, "", "10.0"), want: WrongBuild},
		// The beta OS label only for a node without kubernetes.io/os, which
		// decides even when empty; a node with no OS label is Linux's.
		{name: "beta OS label alone", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"),
			node: withoutLabel(withLabel(node(Windows, Build2022, ""), "beta.kubernetes.io/os", Windows), v1.LabelOSStable), want: OK},
		{name: "empty OS label, beta says windows", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"),
			node: withLabel(node("", Build2022, ""), "beta.kubernetes.io/os", Windows), want: WrongOS},
		{name: "no OS label runs linux pods", pod: pod("nginx:1.27"), node: withoutLabel(node(Linux, "", ""), v1.LabelOSStable), want: OK},
		{name: "no OS label runs no windows pod", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"),
			node: withoutLabel(node(Windows, Build2022, ""), v1.LabelOSStable), want: WrongOS},
		{name: "OS label in capitals", pod: pod("mcr.microsoft.com/windows/nanoserver:ltsc2022"), node: node("Windows", Build2022, ""), want: OK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(tc.pod, tc.node)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Check = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestKnowsEveryShippedImage: the demo judges the examples and its own
// workloads with the oracle, so it must know every image in them.
func TestKnowsEveryShippedImage(t *testing.T) {
	files, _ := filepath.Glob("../../manifests/examples/*.yaml")
	more, _ := filepath.Glob("../../hack/demo/workloads/*.yaml")
	files = append(files, more...)
	if len(files) < 4 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		objs, err := manifest.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			var spec *v1.PodSpec
			switch o := o.(type) {
			case *appsv1.Deployment:
				spec = &o.Spec.Template.Spec
			case *appsv1.DaemonSet:
				spec = &o.Spec.Template.Spec
			case *v1.Pod:
				spec = &o.Spec
			}
			if spec == nil {
				continue
			}
			if _, err := PodOS(spec); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}
