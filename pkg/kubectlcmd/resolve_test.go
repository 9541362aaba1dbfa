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

package kubectlcmd

import (
	"fmt"
	"io"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
)

// TestResolveDeadline: --resolve against a registry that never answers
// ends by --resolve-deadline, whatever the number of workloads and
// --resolve-timeout, with every pod reported unresolved; and the pods of
// a workload are asked about in its own namespace, whatever its template's
// metadata.namespace says.
func TestResolveDeadline(t *testing.T) {
	// A registry that never answers, within a request timeout longer
	// than the test.
	host, caFile := registrytest.Hanging(t)
	profile, err := schedprofile.Load("", "")
	if err != nil {
		t.Fatal(err)
	}
	profile.Args.ImageResolution.Scope = config.ResolutionWindows
	profile.Args.ImageResolution.RequestTimeout = metav1.Duration{Duration: time.Hour}
	profile.Args.ImageResolution.Registries = []config.RegistryHost{{Host: host, AllowPrivate: true, CAFile: caFile}}
	e, err := explain.NewExplainer(t.Context(), profile)
	if err != nil {
		t.Fatal(err)
	}
	o := &SchedulerOptions{Resolve: true, ResolveTimeout: time.Hour, ResolveDeadline: 2 * time.Second}
	stop, err := o.startResolution(t.Context(), e, profile, fromFile, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	var objects []explain.Object
	for i := range 20 {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: fmt.Sprintf("web-%d", i)}}
		d.Spec.Template.Namespace = "kube-system" // unvalidated; the pods go to team-a
		d.Spec.Template.Spec.OS = &v1.PodOS{Name: v1.Windows}
		d.Spec.Template.Spec.Containers = []v1.Container{{Name: "c", Image: fmt.Sprintf("%s/web-%d:1", host, i)}}
		objects = append(objects, explain.Object{Source: "web.yaml", Object: d})
	}
	templates, _, _ := explain.Inputs(objects)
	for _, tmpl := range templates {
		if tmpl.Pod.Namespace != "team-a" {
			t.Fatalf("the pod of %s is in namespace %q, not its owner's", tmpl.Name, tmpl.Pod.Namespace)
		}
	}
	start := time.Now()
	r, err := e.Explain(t.Context(), templates)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("explain --resolve took %s against a deadline of %s", took.Round(time.Millisecond), o.ResolveDeadline)
	}
	for _, tr := range r.Templates {
		if tr.Unresolved == "" {
			t.Errorf("%s: resolved by a registry that never answers", tr.Name)
		}
	}
}
