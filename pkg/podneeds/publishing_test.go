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

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

// The answers that publish mode writes into pods: the host builds, the OS
// tolerations and whether the pod waits for a registry.

func TestHostBuildsOfDecision(t *testing.T) {
	dr := decider(t)
	tests := []struct {
		name      string
		pod       *v1.Pod
		want      []string
		wantEvery bool
	}{
		{name: "ltsc2019", pod: pod(img2019), want: []string{"10.0.17763"}},
		{name: "ltsc2022", pod: pod(img2022), want: []string{"10.0.20348", "10.0.25398", "10.0.26100"}}, // 23H2 hosts run ltsc2022 images
		{name: "HostProcess: any build", pod: fixture.HostProcess(pod(img2019)), wantEvery: true},
		{name: "Windows without a build: any build", pod: pod(imgNano), wantEvery: true},
		{name: "conflict: none", pod: pod(img2019, img2022)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dr.Decide(tt.pod, nil)
			builds, every := d.HostBuilds()
			var got []string
			if !every {
				for _, b := range builds {
					got = append(got, b.String())
				}
			}
			if !cmp.Equal(got, tt.want) || every != tt.wantEvery {
				t.Errorf("HostBuilds = %v every=%v, want %v every=%v", got, every, tt.want, tt.wantEvery)
			}
		})
	}
}

func TestOSTolerations(t *testing.T) {
	tests := []struct {
		name string
		args func(*config.WindowsAwareArgs)
		pod  *v1.Pod
		want []v1.Toleration
	}{
		{name: "windows pod, default keys", pod: pod(img2019), want: []v1.Toleration{
			{Key: "os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule},
			{Key: "os", Operator: v1.TolerationOpEqual, Value: "Windows", Effect: v1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/os", Operator: v1.TolerationOpEqual, Value: "Windows", Effect: v1.TaintEffectNoSchedule},
		}},
		{name: "linux pod", args: func(a *config.WindowsAwareArgs) { a.OSTaints.Keys = []string{"os"} }, pod: pod(imgLinux), want: []v1.Toleration{
			{Key: "os", Operator: v1.TolerationOpEqual, Value: "linux", Effect: v1.TaintEffectNoSchedule},
			{Key: "os", Operator: v1.TolerationOpEqual, Value: "Linux", Effect: v1.TaintEffectNoSchedule},
		}},
		{name: "tolerate off", args: func(a *config.WindowsAwareArgs) { a.OSTaints.Tolerate = false }, pod: pod(img2019)},
		{name: "defaultOS any: no OS, no toleration", args: func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }, pod: pod(imgLinux)},
		{name: "conflict: none", pod: pod(img2019, img2022)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mutate []func(*config.WindowsAwareArgs)
			if tt.args != nil {
				mutate = append(mutate, tt.args)
			}
			d := decider(t, mutate...).Decide(tt.pod, nil)
			got := d.OSTolerations()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("OSTolerations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOSTolerationsNoWiderThanImplicit: every taint the written
// tolerations tolerate, the implicit toleration tolerates too, on a node
// of the pod's OS; so writing them never lets a pod past a taint the
// scheduler would hold it off with.
func TestOSTolerationsNoWiderThanImplicit(t *testing.T) {
	d := decider(t).Decide(pod(img2019), nil)
	written := d.OSTolerations()
	for _, key := range []string{"os", "node.kubernetes.io/os", "sku", "example.com/gpu"} {
		for _, value := range []string{"windows", "Windows", "WINDOWS", "linux", "true"} {
			for _, effect := range []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectNoExecute} {
				taint := v1.Taint{Key: key, Value: value, Effect: effect}
				node := fixture.WindowsNode("n", "10.0.17763", fixture.WithTaints(taint))
				repels, _ := d.TaintsRepel(&v1.Pod{}, node, false)
				if v1helper.TolerationsTolerateTaint(klog.Background(), written, &taint, false) && repels {
					t.Errorf("the written tolerations tolerate %v, which the scheduler holds the pod off", taint)
				}
			}
		}
	}
}
