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
	"bytes"
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestSignPod(t *testing.T) {
	f := newFramework(t, defaultArgs(), testNodes())
	sign := func(p *v1.Pod) []byte {
		s := signPod(t.Context(), f, p)
		if s == nil {
			t.Fatalf("pod %v was not signed: batching would be off", p.Spec.Containers)
		}
		return s
	}
	base := sign(pod(img2019, imgLinux).Obj())
	if !bytes.Equal(base, sign(pod(imgLinux, img2019).Obj())) {
		t.Error("container order changed the signature")
	}
	for name, p := range map[string]*v1.Pod{
		"image":        pod(img2022, imgLinux).Obj(),
		"init image":   withInit(pod(img2019, imgLinux), img2016),
		"os":           withOS(pod(img2019, imgLinux), v1.Windows),
		"hostprocess":  hostProcess(pod(img2019, imgLinux)),
		"nodeSelector": pod(img2019, imgLinux).NodeSelector(map[string]string{v1.LabelWindowsBuild: "10.0.17763"}).Obj(),
		"toleration":   pod(img2019, imgLinux).Toleration("gpu").Obj(),
	} {
		if bytes.Equal(base, sign(p)) {
			t.Errorf("a different %s left the signature alike", name)
		}
	}
}
