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

package controlplane

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Windows Server releases as their nodes report them.
const (
	Build2016 = "10.0.14393"
	Build2019 = "10.0.17763"
	Build2022 = "10.0.20348"
	Build2025 = "10.0.26100"
)

// OSTaint is the taint the Kubernetes guide puts on Windows nodes
// (--register-with-taints='os=windows:NoSchedule').
var OSTaint = v1.Taint{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}

// NodeOptions describe a simulated node.
type NodeOptions struct {
	// OS is "linux" or "windows".
	OS string
	// Build is the node.kubernetes.io/windows-build label of a Windows
	// node (Major.Minor.Build); empty leaves the label out.
	Build string
	// KernelVersion is status.nodeInfo.kernelVersion. Empty: Build with
	// revision 1 for Windows ("10.0.17763.1"), a Linux kernel for Linux.
	KernelVersion string
	Labels        map[string]string
	Taints        []v1.Taint
	// Kwok annotates the node for kwok to manage.
	Kwok bool
	// CPU, Memory and Pods are the allocatable resources; zero: 32 cores,
	// 128Gi, 110 pods.
	CPU, Memory string
	Pods        int
}

// NewNode returns a Ready node as a kubelet of the given OS and build
// registers it: the kubernetes.io/os, kubernetes.io/arch,
// kubernetes.io/hostname and node.kubernetes.io/windows-build labels, the
// node info, allocatable resources and a Ready condition. The API server
// keeps the status of a node on create.
func NewNode(name string, o NodeOptions) *v1.Node {
	if o.OS == "" {
		o.OS = "linux"
	}
	cpu, mem, pods := o.CPU, o.Memory, o.Pods
	if cpu == "" {
		cpu = "32"
	}
	if mem == "" {
		mem = "128Gi"
	}
	if pods == 0 {
		pods = 110
	}
	labels := map[string]string{
		v1.LabelOSStable:   o.OS,
		v1.LabelArchStable: "amd64",
		v1.LabelHostname:   name,
	}
	if o.Build != "" {
		labels[v1.LabelWindowsBuild] = o.Build
	}
	for k, v := range o.Labels {
		labels[k] = v
	}
	kernel, image, runtime := o.KernelVersion, "Debian GNU/Linux 13 (trixie)", "containerd://2.1.4"
	if o.OS == "windows" {
		if kernel == "" && o.Build != "" {
			kernel = o.Build + ".1"
		}
		image = "Windows Server " + releaseName(o.Build) + " Datacenter"
	} else if kernel == "" {
		kernel = "6.12.48+deb13-amd64"
	}
	alloc := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse(mem),
		v1.ResourcePods:   *resource.NewQuantity(int64(pods), resource.DecimalSI),
	}
	now := metav1.NewTime(time.Now())
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       v1.NodeSpec{Taints: o.Taints},
		Status: v1.NodeStatus{
			Capacity:    alloc,
			Allocatable: alloc,
			Phase:       v1.NodeRunning,
			Conditions: []v1.NodeCondition{{
				Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now,
			}},
			NodeInfo: v1.NodeSystemInfo{
				OperatingSystem:         o.OS,
				Architecture:            "amd64",
				KernelVersion:           kernel,
				OSImage:                 image,
				KubeletVersion:          "v1.37.1",
				ContainerRuntimeVersion: runtime,
			},
		},
	}
	if o.Kwok {
		node.Annotations = map[string]string{KwokAnnotation: "fake"}
	}
	return node
}

func releaseName(build string) string {
	switch build {
	case Build2016:
		return "2016"
	case Build2019:
		return "2019"
	case Build2022:
		return "2022"
	case Build2025:
		return "2025"
	}
	return build
}

// CreateNamespace creates a namespace and its default service account
// (which the ServiceAccount admission plugin requires of every pod, and
// which only kube-controller-manager would otherwise create).
func CreateNamespace(ctx context.Context, client kubernetes.Interface, name string) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	_, err = client.CoreV1().ServiceAccounts(name).Create(ctx, &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating service account %s/default: %w", name, err)
	}
	return nil
}
