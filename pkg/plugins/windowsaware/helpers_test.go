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
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/plugins/ostainttoleration"
)

// The images of the tests, one per release the facts table names.
const (
	imgLinux    = "nginx:1.27"
	img2016     = "mcr.microsoft.com/windows/servercore:ltsc2016"
	img2019     = "mcr.microsoft.com/windows/servercore:ltsc2019"
	img2019Rev  = "mcr.microsoft.com/windows/servercore:10.0.17763.437"
	img1809     = "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809"
	img2022     = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	img2025     = "mcr.microsoft.com/windows/server:ltsc2025"
	imgWinNoTag = "mcr.microsoft.com/dotnet/framework/aspnet:4.8" // a manifest list: no build
	imgNano     = "golang:1.22-nanoserver"                        // Windows, no build
)

// testNodes is a small mixed cluster.
func testNodes() []*v1.Node {
	// A node of a kubelet from before kubernetes.io/os, which labelled its
	// node beta.kubernetes.io/os alone: built by hand, no kubelet of today
	// registers it.
	beta := st.MakeNode().Name("linux-beta").Label("beta.kubernetes.io/os", "linux").Obj()
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

func pod(images ...string) *st.PodWrapper {
	p := st.MakePod().Name("p").Namespace("default").UID("p")
	for _, img := range images {
		p = p.Container(img)
	}
	return p
}

func withOS(p *st.PodWrapper, os v1.OSName) *v1.Pod {
	obj := p.Obj()
	obj.Spec.OS = &v1.PodOS{Name: os}
	return obj
}

func withInit(p *st.PodWrapper, images ...string) *v1.Pod {
	obj := p.Obj()
	for _, img := range images {
		obj.Spec.InitContainers = append(obj.Spec.InitContainers, v1.Container{Name: "init", Image: img})
	}
	return obj
}

func hostProcess(p *st.PodWrapper) *v1.Pod {
	obj := p.Obj()
	obj.Spec.SecurityContext = &v1.PodSecurityContext{WindowsOptions: &v1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}}
	return obj
}

func defaultArgs(mutate ...func(*config.WindowsAwareArgs)) *config.WindowsAwareArgs {
	a := scheme.DefaultArgs()
	for _, m := range mutate {
		m(a)
	}
	return a
}

// newFramework builds a real scheduler framework over nodes with the
// windows-aware plugins at the extension points the shipped profile uses.
func newFramework(t testing.TB, args *config.WindowsAwareArgs, nodes []*v1.Node) framework.Framework {
	t.Helper()
	withArgs := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return New(ctx, args, h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(Name, withArgs, "PreFilter", "Filter", "PreScore", "Score"),
		tf.RegisterPluginAsExtensions(ostainttoleration.Name, ostainttoleration.New, "Filter"),
	}, "windows-aware", frameworkruntime.WithSnapshotSharedLister(cache.NewSnapshot(nil, nodes)))
	if err != nil {
		t.Fatalf("building the framework: %v", err)
	}
	return f
}

func nodeInfo(n *v1.Node) fwk.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(n)
	return ni
}

// feasible runs PreFilter and then Filter on every node, and returns the
// PreFilter status and, per node, nil or the reasons it was rejected.
func feasible(t *testing.T, f framework.Framework, pod *v1.Pod, nodes []*v1.Node) (*fwk.Status, map[string][]string) {
	t.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	_, status, _ := f.RunPreFilterPlugins(ctx, state, pod)
	if !status.IsSuccess() {
		return status, nil
	}
	verdicts := map[string][]string{}
	for _, n := range nodes {
		s := f.RunFilterPlugins(ctx, state, pod, nodeInfo(n))
		if s.IsSuccess() {
			verdicts[n.Name] = nil
			continue
		}
		if s.Code() != fwk.UnschedulableAndUnresolvable {
			t.Errorf("node %s: code %v, want UnschedulableAndUnresolvable", n.Name, s.Code())
		}
		verdicts[n.Name] = s.Reasons()
	}
	return status, verdicts
}
