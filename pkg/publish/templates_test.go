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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// imgAgent is a third-party agent whose tag says nothing of its OS.
const imgAgent = "docker.io/fluent/fluent-bit:3.1"

// tolerateAll is what many third-party DaemonSets carry: every taint, the
// os=windows:NoSchedule of Windows nodes too.
var tolerateAll = []v1.Toleration{{Operator: v1.TolerationOpExists}}

func template(images ...string) v1.PodTemplateSpec {
	t := v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}}}
	for i, img := range images {
		t.Spec.Containers = append(t.Spec.Containers, v1.Container{Name: "c" + string(rune('a'+i)), Image: img})
	}
	return t
}

func daemonSet(tmpl v1.PodTemplateSpec) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "monitoring"},
		Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}, Template: tmpl},
	}
}

func agentTemplate() v1.PodTemplateSpec {
	t := template(imgAgent)
	t.Spec.Tolerations = tolerateAll
	return t
}

func withTemplate(t v1.PodTemplateSpec, change func(*v1.PodTemplateSpec)) v1.PodTemplateSpec {
	change(&t)
	return t
}

// stamped is tmpl with selector os and the affinity a, as written.
func stamped(tmpl v1.PodTemplateSpec, os string, a *v1.Affinity) v1.PodTemplateSpec {
	tmpl = *tmpl.DeepCopy()
	if tmpl.Spec.NodeSelector == nil {
		tmpl.Spec.NodeSelector = map[string]string{}
	}
	tmpl.Spec.NodeSelector[v1.LabelOSStable] = os
	tmpl.Spec.Affinity = a
	return tmpl
}

// TestPublishTemplate holds each rule of template publishing: what is
// written into a template that constrains no OS, what is never touched,
// and what an UPDATE may and may not change.
func TestPublishTemplate(t *testing.T) {
	linuxRecord := wellknown.Record{Source: "default", OS: "linux"}
	registry := func(a *config.WindowsAwareArgs) {
		a.ImageResolution.Scope = config.ResolutionUndeclared
		a.ImageResolution.GateTimeout = metav1.Duration{Duration: 0} // a template is never gated, whatever the timeout
		a.ImageResolution.Registries = []config.RegistryHost{{Host: "*.azurecr.io"}}
	}
	tests := []struct {
		name     string
		args     []func(*config.WindowsAwareArgs)
		workload workload
		old      *v1.PodTemplateSpec // nil: a CREATE
		outcome  Outcome
		// want is the template after publishing; nil: unchanged.
		want        *v1.PodTemplateSpec
		wantRecord  *wellknown.Record // the workload's annotation; nil: none
		wantWarning string            // a part of the warning; "": none
	}{
		{
			name: "a tolerate-everything Linux DaemonSet gets kubernetes.io/os: linux", workload: daemonSet(agentTemplate()), outcome: OutcomeStamped,
			want: ptr.To(stamped(agentTemplate(), "linux", nil)), wantRecord: &linuxRecord,
		},
		{
			name: "a Windows Deployment gets the OS and the builds, as a pod does", outcome: OutcomeStamped,
			workload:   &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "iis", Namespace: "shop"}, Spec: appsv1.DeploymentSpec{Template: template(img2022)}},
			want:       ptr.To(stamped(template(img2022), "windows", preferring(requiredTerms([]v1.NodeSelectorRequirement{buildIs(build22, build23, build25)}), build22))),
			wantRecord: &wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build22, build23, build25}, Preferred: build22},
		},
		{
			name: "a StatefulSet", outcome: OutcomeStamped,
			workload:   &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop"}, Spec: appsv1.StatefulSetSpec{Template: template(img2019)}},
			want:       ptr.To(stamped(template(img2019), "windows", requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)}))),
			wantRecord: &wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}},
		},
		{
			name: "a Job", outcome: OutcomeStamped,
			workload:   &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "migrate", Namespace: "shop"}, Spec: batchv1.JobSpec{Template: template(imgLinux)}},
			want:       ptr.To(stamped(template(imgLinux), "linux", nil)),
			wantRecord: &linuxRecord,
		},
		{
			name: "a CronJob: its job template's pod template", outcome: OutcomeStamped,
			workload: &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "shop"}, Spec: batchv1.CronJobSpec{
				JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template(imgLinux)}},
			}},
			want:       ptr.To(stamped(template(imgLinux), "linux", nil)),
			wantRecord: &linuxRecord,
		},
		{
			name: "a ReplicaSet of its own", outcome: OutcomeStamped,
			workload:   &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "shop"}, Spec: appsv1.ReplicaSetSpec{Template: template(imgLinux)}},
			want:       ptr.To(stamped(template(imgLinux), "linux", nil)),
			wantRecord: &linuxRecord,
		},
		{
			name: "a Deployment's ReplicaSet: its controller's template is the one to write", outcome: OutcomeSkipped,
			workload: &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "shop", OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "u", Controller: ptr.To(true)},
			}}, Spec: appsv1.ReplicaSetSpec{Template: template(imgLinux)}},
		},
		{
			name: "the OS in .spec.os: untouched", outcome: OutcomeSkipped,
			workload: daemonSet(withTemplate(agentTemplate(), func(t *v1.PodTemplateSpec) { t.Spec.OS = &v1.PodOS{Name: v1.Windows} })),
		},
		{
			name: "a kubernetes.io/os selector of its own, even the other OS: untouched", outcome: OutcomeSkipped,
			workload: daemonSet(withTemplate(template(img2019), func(t *v1.PodTemplateSpec) {
				t.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"}
			})),
		},
		{
			name: "the beta OS label: untouched", outcome: OutcomeSkipped,
			workload: daemonSet(withTemplate(agentTemplate(), func(t *v1.PodTemplateSpec) {
				t.Spec.NodeSelector = map[string]string{labelBetaOS: "linux"}
			})),
		},
		{
			name: "an OS affinity term: untouched", outcome: OutcomeSkipped,
			workload: daemonSet(withTemplate(agentTemplate(), func(t *v1.PodTemplateSpec) {
				t.Spec.Affinity = requiredTerms([]v1.NodeSelectorRequirement{{Key: v1.LabelOSStable, Operator: v1.NodeSelectorOpNotIn, Values: []string{"windows"}}})
			})),
		},
		{
			name: "another selector is kept beside the OS", outcome: OutcomeStamped,
			workload: daemonSet(withTemplate(agentTemplate(), func(t *v1.PodTemplateSpec) {
				t.Spec.NodeSelector = map[string]string{"pool": "infra"}
			})),
			want: ptr.To(stamped(withTemplate(agentTemplate(), func(t *v1.PodTemplateSpec) {
				t.Spec.NodeSelector = map[string]string{"pool": "infra"}
			}), "linux", nil)),
			wantRecord: &linuxRecord,
		},
		{
			name: "the workload opts out (opt-in=false)", outcome: OutcomeSkipped,
			workload: func() workload {
				d := daemonSet(agentTemplate())
				d.Labels = map[string]string{wellknown.LabelOptIn: "false"}
				return d
			}(),
		},
		{
			name: "its pods opt out (publish=false)", outcome: OutcomeSkipped,
			workload: daemonSet(withTemplate(agentTemplate(), func(t *v1.PodTemplateSpec) { t.Labels[wellknown.LabelPublish] = "false" })),
		},
		{
			name: "a template that names its node", outcome: OutcomeSkipped,
			workload: daemonSet(withTemplate(agentTemplate(), func(t *v1.PodTemplateSpec) { t.Spec.NodeName = "n1" })),
		},
		{
			name: "defaultOS any: nothing to write", outcome: OutcomeSkipped, workload: daemonSet(agentTemplate()),
			args: []func(*config.WindowsAwareArgs){func(a *config.WindowsAwareArgs) { a.DefaultOS = config.OSAny }},
		},
		{
			name: "images no host runs together: unchanged, with a warning", outcome: OutcomeConflict,
			workload: daemonSet(template(img2019, img2022)), wantWarning: "contradicts itself",
		},
		{
			name: "an image only its registry can tell: unchanged, with a warning", outcome: OutcomeUnknown,
			args:     []func(*config.WindowsAwareArgs){registry},
			workload: daemonSet(template("contoso.azurecr.io/web:1.4.2")), wantWarning: `only its registry knows the OS of image "contoso.azurecr.io/web:1.4.2"`,
		},
		{
			name: "an image whose tag tells, beside resolution: written", outcome: OutcomeStamped,
			args:       []func(*config.WindowsAwareArgs){registry},
			workload:   daemonSet(template("contoso.azurecr.io/web:1.4.2-ltsc2019")),
			want:       ptr.To(stamped(template("contoso.azurecr.io/web:1.4.2-ltsc2019"), "windows", requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)}))),
			wantRecord: &wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}},
		},
		{
			name: "UPDATE, template unchanged (made before the webhook): untouched, no rollout", outcome: OutcomeSkipped,
			workload: daemonSet(agentTemplate()), old: ptr.To(agentTemplate()),
		},
		{
			name: "UPDATE re-applying the original manifest: the same write, so the old template", outcome: OutcomeStamped,
			workload: daemonSet(agentTemplate()), old: ptr.To(stamped(agentTemplate(), "linux", nil)),
			want: ptr.To(stamped(agentTemplate(), "linux", nil)), wantRecord: &linuxRecord,
		},
		{
			name: "UPDATE to a Windows image, our linux selector kept by the merge: the new OS", outcome: OutcomeStamped,
			workload: func() workload {
				d := daemonSet(stamped(template(img2019), "linux", nil))
				d.Annotations = map[string]string{wellknown.AnnotationTemplate: linuxRecord.String()}
				return d
			}(),
			old:        ptr.To(stamped(agentTemplate(), "linux", nil)),
			want:       ptr.To(stamped(template(img2019), "windows", requiredTerms([]v1.NodeSelectorRequirement{buildIs(build19)}))),
			wantRecord: &wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}},
		},
		{
			name: "UPDATE from Windows to Linux: our build terms go, the author's stay", outcome: OutcomeStamped,
			workload: func() workload {
				d := daemonSet(stamped(template(imgLinux), "windows", requiredTerms([]v1.NodeSelectorRequirement{zoneIs("a"), buildIs(build19)})))
				d.Annotations = map[string]string{wellknown.AnnotationTemplate: (&wellknown.Record{Source: "tag", OS: "windows", Builds: []string{build19}}).String()}
				return d
			}(),
			old:        ptr.To(stamped(template(img2019), "windows", requiredTerms([]v1.NodeSelectorRequirement{zoneIs("a"), buildIs(build19)}))),
			want:       ptr.To(stamped(template(imgLinux), "linux", requiredTerms([]v1.NodeSelectorRequirement{zoneIs("a")}))),
			wantRecord: &linuxRecord,
		},
		{
			name: "UPDATE where the author now sets the OS: ours goes with the record", outcome: OutcomeSkipped,
			workload: func() workload {
				d := daemonSet(withTemplate(stamped(agentTemplate(), "linux", nil), func(t *v1.PodTemplateSpec) { t.Spec.OS = &v1.PodOS{Name: v1.Linux} }))
				d.Annotations = map[string]string{wellknown.AnnotationTemplate: linuxRecord.String(), "keep": "me"}
				return d
			}(),
			old:  ptr.To(stamped(agentTemplate(), "linux", nil)),
			want: ptr.To(withTemplate(agentTemplate(), func(t *v1.PodTemplateSpec) { t.Spec.OS = &v1.PodOS{Name: v1.Linux} })),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPublisher(t, tt.args...)
			before := templateOf(tt.workload).DeepCopy()
			var old workload
			if tt.old != nil { // the old workload: the new one's record, the old template
				old = tt.workload.DeepCopyObject().(workload)
				*templateOf(old) = *tt.old
			}
			rec, outcome, warning := p.PublishTemplate(tt.workload, old)
			if outcome != tt.outcome {
				t.Errorf("outcome %q, want %q", outcome, tt.outcome)
			}
			want := before
			if tt.want != nil {
				want = tt.want
			}
			if diff := cmp.Diff(want, templateOf(tt.workload)); diff != "" {
				t.Errorf("template (-want +got):\n%s", diff)
			}
			got, err := wellknown.ParseRecord(tt.workload.GetAnnotations()[wellknown.AnnotationTemplate])
			switch {
			case tt.wantRecord == nil && err == nil:
				t.Errorf("annotation %s %+v, want none", wellknown.AnnotationTemplate, got)
			case tt.wantRecord != nil && err != nil:
				t.Errorf("no annotation %s: %v", wellknown.AnnotationTemplate, err)
			case tt.wantRecord != nil:
				if diff := cmp.Diff(*tt.wantRecord, got); diff != "" {
					t.Errorf("record (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(*tt.wantRecord, rec); diff != "" {
					t.Errorf("returned record (-want +got):\n%s", diff)
				}
			}
			if tt.wantWarning == "" && warning != "" || !strings.Contains(warning, tt.wantWarning) {
				t.Errorf("warning %q, want one with %q", warning, tt.wantWarning)
			}
			if tt.workload.GetAnnotations()["keep"] == "" && strings.Contains(tt.name, "author now sets") {
				t.Error("an annotation of the author's was removed")
			}
		})
	}
}

// TestPublishTemplateIsIdempotent: publishing what was published, as
// re-applying a manifest does with and without what was written, gives
// the same template every time, so the template hash never changes.
func TestPublishTemplateIsIdempotent(t *testing.T) {
	p := newPublisher(t)
	for _, tmpl := range []v1.PodTemplateSpec{agentTemplate(), template(img2022), template(img2019), template(imgLinux, "busybox:1.36")} {
		first := daemonSet(tmpl)
		p.PublishTemplate(first, nil)
		for _, again := range []*appsv1.DaemonSet{daemonSet(tmpl), first.DeepCopy()} {
			p.PublishTemplate(again, first)
			if diff := cmp.Diff(first.Spec.Template, again.Spec.Template); diff != "" {
				t.Errorf("%v: the second write differs (-first +second):\n%s", tmpl.Spec.Containers[0].Image, diff)
			}
			if again.Annotations[wellknown.AnnotationTemplate] != first.Annotations[wellknown.AnnotationTemplate] && again.Annotations[wellknown.AnnotationTemplate] != "" {
				t.Errorf("record %q, first %q", again.Annotations[wellknown.AnnotationTemplate], first.Annotations[wellknown.AnnotationTemplate])
			}
		}
	}
}

// TestPublishTemplateKeepsTheUsersSelector: an OS selector the user wrote
// stays, even where a record (copied, or added by the user) says we wrote
// one equal to it: at a CREATE nothing is unwritten, and at an UPDATE only
// what the old workload's record names and its template held. With an
// image only its registry can tell, a tolerate-everything DaemonSet would
// otherwise lose its OS selector.
func TestPublishTemplateKeepsTheUsersSelector(t *testing.T) {
	registry := func(a *config.WindowsAwareArgs) {
		a.ImageResolution.Scope = config.ResolutionUndeclared
		a.ImageResolution.Registries = []config.RegistryHost{{Host: "*.azurecr.io"}}
	}
	usersTemplate := func() v1.PodTemplateSpec {
		tmpl := template("contoso.azurecr.io/agent:1.4")
		tmpl.Spec.Tolerations = tolerateAll
		tmpl.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"}
		return tmpl
	}
	record := (&wellknown.Record{Source: "default", OS: "linux"}).String()
	withRecord := func(d *appsv1.DaemonSet) *appsv1.DaemonSet {
		d.Annotations = map[string]string{wellknown.AnnotationTemplate: record}
		return d
	}
	tests := []struct {
		name string
		new  *appsv1.DaemonSet
		old  *appsv1.DaemonSet // nil: a CREATE
	}{
		{name: "CREATE with a copied record", new: withRecord(daemonSet(usersTemplate()))},
		{
			name: "UPDATE adding a record the old workload lacked",
			new:  withRecord(daemonSet(withTemplate(usersTemplate(), func(t *v1.PodTemplateSpec) { t.Labels["v"] = "2" }))),
			old:  daemonSet(usersTemplate()),
		},
		{
			name: "UPDATE whose old record names a selector the old template lacked",
			new:  withRecord(daemonSet(withTemplate(usersTemplate(), func(t *v1.PodTemplateSpec) { t.Labels["v"] = "2" }))),
			old:  withRecord(daemonSet(withTemplate(usersTemplate(), func(t *v1.PodTemplateSpec) { t.Spec.NodeSelector = nil }))),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPublisher(t, registry)
			var old workload
			if tt.old != nil {
				old = tt.old
			}
			p.PublishTemplate(tt.new, old)
			if got := tt.new.Spec.Template.Spec.NodeSelector[v1.LabelOSStable]; got != "linux" {
				t.Errorf("the user's OS selector became %q: %v", got, tt.new.Spec.Template.Spec.NodeSelector)
			}
		})
	}
}
