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
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Verdict is what the oracle says of a pod on a node.
type Verdict string

// Verdicts.
const (
	OK Verdict = "ok"
	// WrongOS: the kubelet would reject the pod (PodOSNotSupported).
	WrongOS Verdict = "WRONG OS"
	// WrongBuild: the container would fail to start (HCS 0xc0370101).
	WrongBuild Verdict = "WRONG BUILD"
)

// PodOS is the OS a pod runs: .spec.os.name when set, else windows when an
// image of the pod (init containers included) is a Windows image, else
// linux (the scheduler's defaultOS).
func PodOS(spec *v1.PodSpec) (string, error) {
	needs, err := podNeeds(spec)
	if err != nil {
		return "", err
	}
	if spec.OS != nil && spec.OS.Name != "" {
		return string(spec.OS.Name), nil
	}
	for _, n := range needs {
		if n.OS == Windows {
			return Windows, nil
		}
	}
	return Linux, nil
}

// Check says whether node may run pod.
func Check(pod *v1.Pod, node *v1.Node) (Verdict, error) {
	podOS, err := PodOS(&pod.Spec)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(podOS, nodeOS(node)) {
		return WrongOS, nil
	}
	if podOS != Windows || isHostProcess(pod) {
		return OK, nil
	}
	needs, _ := podNeeds(&pod.Spec)
	host := nodeBuild(node)
	for _, n := range needs {
		if n.Build != "" && !Runs(host, n.Build) {
			return WrongBuild, nil
		}
	}
	return OK, nil
}

func podNeeds(spec *v1.PodSpec) ([]Need, error) {
	var needs []Need
	for _, cs := range [][]v1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			n, err := ImageNeed(c.Image)
			if err != nil {
				return nil, err
			}
			needs = append(needs, n)
		}
	}
	return needs, nil
}

// nodeOS is the node's kubernetes.io/os label when it has one, even
// empty; else beta.kubernetes.io/os, which only kubelets from before the
// stable label set alone; a node with neither runs Linux pods (every
// kubelet labels its node, a Windows one always).
func nodeOS(node *v1.Node) string {
	os, ok := node.Labels[v1.LabelOSStable]
	if !ok {
		os, ok = node.Labels["beta.kubernetes.io/os"]
	}
	if !ok || os == "" {
		return Linux
	}
	return os
}

// nodeBuild is the build label, which must read Major.Minor.Build (a label
// of any other form is none the kubelet writes: no build, and no fallback
// either); without the label, the first three parts of a Windows kernel
// version, three or four decimal numbers. "" when the node has no build.
func nodeBuild(node *v1.Node) string {
	if b, ok := node.Labels[v1.LabelWindowsBuild]; ok {
		if !decimals(b, 3, 3) {
			return ""
		}
		return b
	}
	kernel := node.Status.NodeInfo.KernelVersion
	if !decimals(kernel, 3, 4) {
		return ""
	}
	return strings.Join(strings.Split(kernel, ".")[:3], ".")
}

// decimals reports whether s is between min and max dot-separated decimal
// numbers.
func decimals(s string, min, max int) bool {
	parts := strings.Split(s, ".")
	if len(parts) < min || len(parts) > max {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

func isHostProcess(pod *v1.Pod) bool {
	sc := pod.Spec.SecurityContext
	return sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.HostProcess != nil && *sc.WindowsOptions.HostProcess
}
