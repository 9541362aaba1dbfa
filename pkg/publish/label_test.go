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
	"maps"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestPublishLabelsTheGate: a pod that leaves Publish carrying the gate
// carries its label, whatever the outcome, and even when it arrived with
// the gate: the gate remover's watch selects pods by the label. Nothing
// else changes in a pod that is skipped or in conflict.
func TestPublishLabelsTheGate(t *testing.T) {
	resolving := func(a *config.WindowsAwareArgs) {
		a.ImageResolution.Scope = config.ResolutionWindows
		a.ImageResolution.GateTimeout = metav1.Duration{Duration: 10 * time.Second}
		a.ImageResolution.Registries = []config.RegistryHost{{Host: "mcr.microsoft.com"}}
	}
	gated := func(p *v1.Pod) *v1.Pod {
		p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, v1.PodSchedulingGate{Name: wellknown.GatePlatform})
		return p
	}
	tests := []struct {
		name    string
		args    []func(*config.WindowsAwareArgs)
		pod     *v1.Pod
		outcome Outcome
		// wantLabel: the pod leaves with wellknown.LabelGated=true.
		wantLabel bool
	}{
		{name: "gated by the webhook", args: []func(*config.WindowsAwareArgs){resolving},
			pod: podOf("mcr.microsoft.com/windows/servercore:latest"), outcome: OutcomeGated, wantLabel: true},
		{name: "arrives gated, waits for its registry", args: []func(*config.WindowsAwareArgs){resolving},
			pod: gated(podOf("mcr.microsoft.com/windows/servercore:latest")), outcome: OutcomeStamped, wantLabel: true},
		{name: "arrives gated, its tag decides", pod: gated(podOf(img2019)), outcome: OutcomeStamped, wantLabel: true},
		{name: "arrives gated, nothing to add", outcome: OutcomeSkipped, wantLabel: true,
			pod: with(gated(podOf(imgLinux)), func(p *v1.Pod) {
				p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"}
				p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
			})},
		{name: "arrives gated, in conflict", outcome: OutcomeConflict, wantLabel: true,
			pod: with(gated(podOf(img2019)), func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"} })},
		{name: "arrives gated, another scheduler's", pod: gated(fixture.Pod("p", "default-scheduler", img2019)), outcome: OutcomeSkipped, wantLabel: true},
		{name: "arrives gated, opted out", outcome: OutcomeSkipped, wantLabel: true,
			pod: with(gated(podOf(img2019)), func(p *v1.Pod) { p.Labels = map[string]string{wellknown.LabelPublish: "false"} })},
		{name: "arrives gated with the label set to another value", outcome: OutcomeSkipped, wantLabel: true,
			pod: with(gated(fixture.Pod("p", "default-scheduler", img2019)), func(p *v1.Pod) { p.Labels = map[string]string{wellknown.LabelGated: "yes"} })},
		{name: "another gate only", outcome: OutcomeSkipped,
			pod: with(fixture.Pod("p", "default-scheduler", img2019), func(p *v1.Pod) {
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/other"}}
			})},
		{name: "not gated", pod: podOf(img2019), outcome: OutcomeStamped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPublisher(t, tt.args...)
			before := tt.pod.DeepCopy()
			pod := tt.pod.DeepCopy()
			_, outcome := p.Publish(pod)
			if outcome != tt.outcome {
				t.Errorf("outcome %q, want %q", outcome, tt.outcome)
			}
			if got := pod.Labels[wellknown.LabelGated] == "true"; got != tt.wantLabel {
				t.Errorf("labels %v: %s=true %v, want %v", pod.Labels, wellknown.LabelGated, got, tt.wantLabel)
			}
			if Gated(pod) && pod.Labels[wellknown.LabelGated] != "true" {
				t.Errorf("the pod leaves gated without the label: labels %v", pod.Labels)
			}
			if outcome == OutcomeStamped || outcome == OutcomeGated {
				return
			}
			want := before.DeepCopy()
			if tt.wantLabel {
				want.Labels = maps.Clone(want.Labels)
				if want.Labels == nil {
					want.Labels = map[string]string{}
				}
				want.Labels[wellknown.LabelGated] = "true"
			}
			if diff := cmp.Diff(want, pod); diff != "" {
				t.Errorf("a %s pod was changed beyond the label (-want +got):\n%s", outcome, diff)
			}
		})
	}
}
