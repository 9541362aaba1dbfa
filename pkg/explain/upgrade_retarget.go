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

package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/windows"
	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// templatePath is where a kind keeps its pod template (package
// workloadkind), field by field; nil for a bare pod, whose spec cannot
// change once created, or a kind of no row.
func templatePath(kind string) []string {
	k := workloadkind.Named(kind)
	if k == nil || k.TemplatePath == "" {
		return nil
	}
	return strings.Split(k.TemplatePath, ".")
}

// nest wraps a pod spec's fields in the kind's template path, for a merge
// patch.
func nest(path []string, spec map[string]any) map[string]any {
	obj := map[string]any{"spec": spec}
	for i := len(path) - 1; i >= 0; i-- {
		obj = map[string]any{path[i]: obj}
	}
	return obj
}

// retargetFixes are the commands that point a workload's stale pins at
// the nodes once they move, so that its pods run on the old build and the
// new while the nodes move: a merge patch that turns its nodeSelector's
// pins into a required affinity of both values (where the template has no
// required affinity that the patch, writing it whole, would lose; else
// the nodeSelector set to the new value), a JSON patch of each affinity
// expression (the new value added beside the old), and for a
// RuntimeClass's pins a RuntimeClass for the new build, named as the
// Kubernetes guide names them (windows-2019), and the patch that uses it.
// A pin the plan cannot rewrite is said in words.
func (e *Explainer) retargetFixes(ctx context.Context, kind, namespace, name string, template *v1.Pod, rc *nodev1.RuntimeClass, pins []Pin) []string {
	path := templatePath(kind)
	resource := strings.ToLower(kind)
	patch := func(patchType string, p any) string {
		b, _ := json.Marshal(p) // maps, strings and lists always marshal
		if path == nil {
			return fmt.Sprintf("a bare pod's spec cannot change: recreate %s/%s with the %s patch %s applied to it", namespace, name, patchType, b)
		}
		return fmt.Sprintf("kubectl -n %s patch %s %s --type %s -p '%s'", namespace, resource, name, patchType, b)
	}
	var fixes []string
	var selector []Pin
	var ops []map[string]any
	rcSelector := map[string]string{}
	for _, p := range pins {
		switch {
		case p.To == "":
			fixes = append(fixes, fmt.Sprintf("change %s to select the nodes once they move", p))
		case p.From == "nodeSelector":
			selector = append(selector, p)
		case p.From == "affinity" && p.Operator == string(v1.NodeSelectorOpIn):
			ops = append(ops, map[string]any{"op": "replace",
				"path":  fmt.Sprintf("/%s/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/%d/matchExpressions/%d/values", strings.Join(path, "/"), p.Term, p.Expression),
				"value": append(slices.Clone(p.Values), p.To)})
		case p.From == "affinity":
			fixes = append(fixes, fmt.Sprintf("change %s to admit %s=%s", p, p.Key, p.To))
		default:
			rcSelector[p.Key] = p.To
		}
	}
	if len(selector) > 0 {
		fixes = append(fixes, patch("merge", nest(path, selectorFix(selector, affinityFree(template)))))
	}
	if len(ops) > 0 {
		fixes = append(fixes, patch("json", ops))
	}
	if len(rcSelector) > 0 && rc != nil {
		next := e.retargetedRuntimeClass(rc, rcSelector)
		switch have := e.existingRuntimeClass(ctx, next.Name); {
		case have == nil:
			b, _ := json.Marshal(next) // a RuntimeClass always marshals
			fixes = append(fixes, fmt.Sprintf("echo '%s' | kubectl create -f -", b))
		case !selectsAs(have, next):
			// The guide's name is taken by a RuntimeClass of another
			// handler or nodes: creating it would fail, patching it would
			// change it for its other users.
			fixes = append(fixes, fmt.Sprintf("RuntimeClass %s exists, with another handler or nodeSelector than %s's moved (handler %s, %s): create one of another name that has them, and use it",
				next.Name, rc.Name, next.Handler, rcSelectorWords(rcSelector)))
			return fixes
		}
		fixes = append(fixes, patch("merge", nest(path, map[string]any{"runtimeClassName": next.Name})))
	}
	return fixes
}

// existingRuntimeClass is the cluster's RuntimeClass of that name, nil
// when there is none or it cannot be read.
func (e *Explainer) existingRuntimeClass(ctx context.Context, name string) *nodev1.RuntimeClass {
	if e.RuntimeClass == nil {
		return nil
	}
	rc, err := e.RuntimeClass(ctx, name)
	if err != nil {
		return nil
	}
	return rc
}

// selectsAs reports whether an existing RuntimeClass has the handler and
// the scheduling nodeSelector of the one the fix would create.
func selectsAs(have, want *nodev1.RuntimeClass) bool {
	if have.Handler != want.Handler || have.Scheduling == nil {
		return false
	}
	return maps.Equal(have.Scheduling.NodeSelector, want.Scheduling.NodeSelector)
}

// rcSelectorWords says the nodeSelector entries a retargeted RuntimeClass
// needs.
func rcSelectorWords(sel map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		parts = append(parts, k+"="+sel[k])
	}
	return strings.Join(parts, ", ")
}

// selectorFix is the pod spec fields of a merge patch that retargets
// nodeSelector pins: with both, each key leaves the nodeSelector (null
// deletes it) for a required affinity term that admits the old value and
// the new; else each key takes the new value.
func selectorFix(pins []Pin, both bool) map[string]any {
	selector := map[string]any{}
	var term v1.NodeSelectorTerm
	for _, p := range pins {
		if !both {
			selector[p.Key] = p.To
			continue
		}
		selector[p.Key] = nil
		term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{Key: p.Key, Operator: v1.NodeSelectorOpIn, Values: []string{p.Values[0], p.To}})
	}
	spec := map[string]any{"nodeSelector": selector}
	if both {
		spec["affinity"] = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{term}}}}
	}
	return spec
}

// retargetedRuntimeClass is a copy of rc whose nodeSelector selects the
// moved nodes, named for the new build: the release of the old build's
// value in its name replaced by the new one's (windows-2022 becomes
// windows-2025), or the new value appended.
func (e *Explainer) retargetedRuntimeClass(rc *nodev1.RuntimeClass, to map[string]string) *nodev1.RuntimeClass {
	next := &nodev1.RuntimeClass{TypeMeta: metav1.TypeMeta{APIVersion: "node.k8s.io/v1", Kind: "RuntimeClass"},
		Handler: rc.Handler, Overhead: rc.Overhead, Scheduling: rc.Scheduling.DeepCopy()}
	next.Name = rc.Name
	for k, v := range to {
		old := rc.Scheduling.NodeSelector[k]
		next.Scheduling.NodeSelector[k] = v
		if oldYear, newYear := e.yearOf(old), e.yearOf(v); oldYear != "" && newYear != "" && strings.Contains(next.Name, oldYear) {
			next.Name = strings.ReplaceAll(next.Name, oldYear, newYear)
		}
	}
	if next.Name == rc.Name {
		for _, v := range to {
			if y := e.yearOf(v); y != "" {
				next.Name = rc.Name + "-" + y
				break
			}
		}
	}
	if next.Name == rc.Name {
		next.Name = rc.Name + "-next"
	}
	return next
}

// yearOf is the release year a build or AKS OS SKU value names, by the
// profile's release names: 10.0.20348 (ltsc2022) and Windows2022 give
// 2022; a build no LTSC release names gives its release's token in lower
// case (10.0.25398, 23h2), and another value "".
func (e *Explainer) yearOf(value string) string {
	if y, ok := strings.CutPrefix(value, "Windows"); ok && y != "" {
		return strings.ToLower(y)
	}
	name := e.Decider.Catalog().ReleaseName(value)
	if y, ok := windows.LTSCYear(name); ok {
		return y
	}
	return strings.ToLower(name)
}
