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

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/windows-aware/windows-aware/internal/manifest"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// retiring is an expression on the retiring label of publish mode's
// preferred term, with op.
func retiring(op v1.NodeSelectorOperator) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: "windows-aware.x-k8s.io/retiring", Operator: op, Values: []string{"true"}}
}

// prefer adds a preferred term of the expressions to p.
func prefer(p *v1.Pod, exprs ...v1.NodeSelectorRequirement) {
	na := p.Spec.Affinity.NodeAffinity
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
		v1.PreferredSchedulingTerm{Weight: 100, Preference: v1.NodeSelectorTerm{MatchExpressions: exprs}})
}

// TestGatePolicyExpressions evaluates the validations of the shipped
// ValidatingAdmissionPolicy (manifests/publish-gate/policy.yaml) with the
// API server's own CEL library, on a gated pod and each change of it: what
// the gate remover writes passes, and every other change fails exactly one
// validation, whose message names it. The integration test
// TestUngatePolicy holds the same policy to the real API server.
func TestGatePolicyExpressions(t *testing.T) {
	objs, err := manifest.ReadFile(filepath.Join("..", "..", "manifests", "publish-gate", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	policy := objs[0].(*admissionregistrationv1.ValidatingAdmissionPolicy)
	const build = v1.LabelWindowsBuild
	buildIn := func(values ...string) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: build, Operator: v1.NodeSelectorOpIn, Values: values}
	}
	gated := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a",
			Labels:      map[string]string{"app": "web", wellknown.LabelGated: "true"},
			Annotations: map[string]string{wellknown.AnnotationPublished: `{"source":"spec","gatedOn":"web:1"}`}},
		Spec: v1.PodSpec{
			Containers:      []v1.Container{{Name: "web", Image: "registry.example.com/web:1"}},
			SchedulingGates: []v1.PodSchedulingGate{{Name: wellknown.GatePlatform}, {Name: "example.com/other"}},
			Tolerations:     []v1.Toleration{{Key: "existing", Operator: v1.TolerationOpExists}},
		},
	}
	// ungated is what the gate remover sends: gate and label gone, the
	// published constraints added.
	ungated := func(p *v1.Pod) *v1.Pod {
		p = p.DeepCopy()
		publish.RemoveGate(p)
		p.Annotations[wellknown.AnnotationPublished] = `{"source":"registry","os":"windows","builds":["10.0.17763"]}`
		p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "windows"}
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: "os", Operator: v1.TolerationOpEqual, Value: "Windows", Effect: v1.TaintEffectNoSchedule})
		na := &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 100, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{buildIn("10.0.17763")}}}}}
		if p.Spec.Affinity == nil {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{buildIn("10.0.17763")}}}}
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: na}
		} else {
			terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			for i := range terms {
				terms[i].MatchExpressions = append(terms[i].MatchExpressions, buildIn("10.0.17763"))
			}
			p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = na.PreferredDuringSchedulingIgnoredDuringExecution
		}
		return p
	}
	withPool := gated.DeepCopy()
	withPool.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}},
	}}}

	tests := []struct {
		name string
		old  *v1.Pod
		// change makes the new pod from what the gate remover sends.
		change func(p *v1.Pod)
		// wantRefused is a part of the one failed validation's message;
		// "" when the change passes.
		wantRefused string
	}{
		{name: "ungate with the published constraints", old: gated},
		{name: "ungate with an expression added to an existing term", old: withPool},
		{name: "the gate alone", old: gated, change: func(p *v1.Pod) {
			*p = *gated.DeepCopy()
			publish.RemoveGate(p)
		}},
		{name: "change an image", old: gated, change: func(p *v1.Pod) { p.Spec.Containers[0].Image = "evil.example.com/miner:1" }, wantRefused: "containers"},
		{name: "add a label", old: gated, change: func(p *v1.Pod) { p.Labels["team"] = "b" }, wantRefused: "label"},
		{name: "add an annotation", old: gated, change: func(p *v1.Pod) { p.Annotations["note"] = "x" }, wantRefused: "annotation"},
		{name: "remove another gate", old: gated, change: func(p *v1.Pod) { p.Spec.SchedulingGates = nil }, wantRefused: "no other gate"},
		{name: "add another node selector", old: gated, change: func(p *v1.Pod) { p.Spec.NodeSelector["pool"] = "a" }, wantRefused: "node selector"},
		{name: "tolerate everything", old: gated, change: func(p *v1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Operator: v1.TolerationOpExists})
		}, wantRefused: "tolerations"},
		{name: "tolerate NoExecute", old: gated, change: func(p *v1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: "os", Value: "windows", Effect: v1.TaintEffectNoExecute})
		}, wantRefused: "tolerations"},
		{name: "add an unrelated required term", old: gated, change: func(p *v1.Pod) {
			na := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
			na.NodeSelectorTerms = append(na.NodeSelectorTerms, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "pool", Operator: v1.NodeSelectorOpExists}}})
		}, wantRefused: "required node affinity"},
		{name: "add an unrelated expression to an existing term", old: withPool, change: func(p *v1.Pod) {
			term := &p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0]
			term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{Key: "zone", Operator: v1.NodeSelectorOpExists})
		}, wantRefused: "required node affinity"},
		{name: "add an unrelated preferred term", old: gated, change: func(p *v1.Pod) {
			p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Preference.MatchExpressions[0].Key = "pool"
		}, wantRefused: "preferred"},
		{name: "prefer the nodes that are not retiring", old: gated, change: func(p *v1.Pod) { prefer(p, retiring(v1.NodeSelectorOpNotIn)) }},
		{name: "prefer the retiring nodes", old: gated, change: func(p *v1.Pod) { prefer(p, retiring(v1.NodeSelectorOpIn)) }, wantRefused: "preferred"},
		{name: "two terms on the retiring label", old: gated, change: func(p *v1.Pod) {
			prefer(p, retiring(v1.NodeSelectorOpNotIn))
			prefer(p, retiring(v1.NodeSelectorOpNotIn))
		}, wantRefused: "preferred"},
		{name: "the retiring label beside another key in one term", old: gated, change: func(p *v1.Pod) {
			prefer(p, retiring(v1.NodeSelectorOpNotIn), v1.NodeSelectorRequirement{Key: "pool", Operator: v1.NodeSelectorOpExists})
		}, wantRefused: "preferred"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			updated := ungated(tt.old)
			if tt.change != nil {
				tt.change(updated)
			}
			failed := evaluatePolicy(t, policy, tt.old, updated)
			switch {
			case tt.wantRefused == "" && len(failed) > 0:
				t.Errorf("refused: %q", failed)
			case tt.wantRefused != "" && (len(failed) != 1 || !strings.Contains(failed[0], tt.wantRefused)):
				t.Errorf("failed validations %q, want one naming %q", failed, tt.wantRefused)
			}
		})
	}
}

// evaluatePolicy evaluates the policy's variables and validations on the
// update from oldPod to newPod, and returns the messages of those that
// fail (or err).
func evaluatePolicy(t *testing.T, policy *admissionregistrationv1.ValidatingAdmissionPolicy, oldPod, newPod *v1.Pod) []string {
	t.Helper()
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	var variables []plugincel.NamedExpressionAccessor
	for _, v := range policy.Spec.Variables {
		variables = append(variables, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	compiler.CompileAndStoreVariables(variables, plugincel.OptionalVariableDeclarations{}, environment.StoredExpressions)
	var conditions []plugincel.ExpressionAccessor
	for _, v := range policy.Spec.Validations {
		conditions = append(conditions, &validating.ValidationCondition{Expression: v.Expression, Message: v.Message})
	}
	evaluator := compiler.CompileCondition(conditions, plugincel.OptionalVariableDeclarations{}, environment.StoredExpressions)
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	attrs := admission.NewAttributesRecord(newPod, oldPod, v1.SchemeGroupVersion.WithKind("Pod"), newPod.Namespace, newPod.Name,
		v1.SchemeGroupVersion.WithResource("pods"), "", admission.Update, &metav1.UpdateOptions{}, false, &user.DefaultInfo{Name: "gate-remover"})
	versioned, err := admission.NewVersionedAttributes(attrs, attrs.GetKind(), admission.NewObjectInterfacesFromScheme(scheme))
	if err != nil {
		t.Fatal(err)
	}
	request := plugincel.CreateAdmissionRequest(attrs, metav1.GroupVersionResource(attrs.GetResource()), metav1.GroupVersionKind(versioned.VersionedKind))
	results, _, err := evaluator.ForInput(context.Background(), versioned, request, plugincel.OptionalVariableBindings{}, nil, celconfig.RuntimeCELCostBudget)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for i, r := range results {
		switch {
		case r.Error != nil:
			failed = append(failed, "error: "+r.Error.Error())
		case r.EvalResult.Value() != true:
			failed = append(failed, policy.Spec.Validations[i].Message)
		}
	}
	return failed
}
