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
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// templatePath is where a kind keeps its pod template; nil for a bare pod,
// whose spec cannot change once created.
func templatePath(kind string) []string {
	switch kind {
	case "Pod":
		return nil
	case "CronJob":
		return []string{"spec", "jobTemplate", "spec", "template"}
	}
	return []string{"spec", "template"}
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
// the nodes once they move: a merge patch of its nodeSelector, a JSON
// patch of each affinity expression (the target's value added beside the
// old, so that its pods run on both while the nodes move), and for a
// RuntimeClass's pins a RuntimeClass for the new build, named as the
// Kubernetes guide names them (windows-2019), and the patch that uses it.
// A pin the plan cannot rewrite is said in words.
func (e *Explainer) retargetFixes(kind, namespace, name string, rc *nodev1.RuntimeClass, pins []Pin) []string {
	path := templatePath(kind)
	resource := strings.ToLower(kind)
	patch := func(kind string, p any) string {
		b, _ := json.Marshal(p) // maps, strings and lists always marshal
		if path == nil {
			return fmt.Sprintf("a bare pod's spec cannot change: recreate %s/%s with the %s patch %s applied to it", namespace, name, kind, b)
		}
		return fmt.Sprintf("kubectl -n %s patch %s %s --type %s -p '%s'", namespace, resource, name, kind, b)
	}
	var fixes []string
	selector := map[string]any{}
	var ops []map[string]any
	rcSelector := map[string]string{}
	for _, p := range pins {
		switch {
		case p.To == "":
			fixes = append(fixes, fmt.Sprintf("change %s to select the nodes once they move", p))
		case p.From == "nodeSelector":
			selector[p.Key] = p.To
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
		fixes = append(fixes, patch("merge", nest(path, map[string]any{"nodeSelector": selector})))
	}
	if len(ops) > 0 {
		fixes = append(fixes, patch("json", ops))
	}
	if len(rcSelector) > 0 && rc != nil {
		next := e.retargetedRuntimeClass(rc, rcSelector)
		b, _ := json.Marshal(next) // a RuntimeClass always marshals
		fixes = append(fixes, fmt.Sprintf("echo '%s' | kubectl create -f -", b),
			patch("merge", nest(path, map[string]any{"runtimeClassName": next.Name})))
	}
	return fixes
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
