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

package ostainttoleration

import (
	v1 "k8s.io/api/core/v1"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

const (
	imgLinux = "nginx:1.27"
	img2019  = "mcr.microsoft.com/windows/servercore:ltsc2019"
)

// osTaint is the taint the Kubernetes documentation recommends for
// Windows nodes.
var osTaint = v1.Taint{Key: "os", Value: "windows", Effect: v1.TaintEffectNoSchedule}

func pod(images ...string) *st.PodWrapper {
	w := st.MakePod().Namespace("default").Name("p").UID("p")
	for _, img := range images {
		w = w.Container(img)
	}
	return w
}

// windowsNode is a Windows node as the kubelet registers it, tainted with
// osTaint unless other taints are given.
func windowsNode(name, build string, taints ...v1.Taint) *v1.Node {
	if taints == nil {
		taints = []v1.Taint{osTaint}
	}
	return st.MakeNode().Name(name).Label(v1.LabelOSStable, "windows").Label(v1.LabelWindowsBuild, build).Taints(taints).Obj()
}
