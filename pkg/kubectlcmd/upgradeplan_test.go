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
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/explain"
)

// TestUpgradePlan runs upgrade-plan against a cluster of a 2019 and a 2022
// pool: the exit status says whether everything is ready; a kind RBAC
// forbids makes its workloads unknown with the reason; pods that cannot be
// listed, a pool that selects no node and a target the tag table does not
// know are errors that name what is missing.
func TestUpgradePlan(t *testing.T) {
	node := func(name, pool, build string) *v1.Node {
		n := fixture.Node(name, fixture.NodeOptions{OS: "windows", Build: build, Taints: []v1.Taint{fixture.WindowsTaint}})
		n.Labels["agentpool"] = pool
		return n
	}
	deployment := func(name, image, node string) []runtime.Object {
		tmpl := v1.PodTemplateSpec{Spec: fixture.Pod("", "windows-aware", image).Spec}
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "web"}, Spec: appsv1.DeploymentSpec{Template: tmpl}}
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-7d9c", Namespace: "web",
			OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: name, Controller: ptr.To(true)}}}, Spec: appsv1.ReplicaSetSpec{Template: tmpl}}
		p := fixture.Pod(name+"-7d9c-x", "windows-aware", image)
		p.Namespace, p.Spec.NodeName = "web", node
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs.Name, Controller: ptr.To(true)}}
		return []runtime.Object{d, rs, p}
	}
	objects := []runtime.Object{node("w19", "win19", "10.0.17763"), node("w22", "win22", "10.0.20348")}
	objects = append(objects, deployment("iis19", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", "w19")...)
	objects = append(objects, deployment("iis22", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", "w22")...)

	forbid := func(resource string) func(*fake.Clientset) {
		return func(c *fake.Clientset) {
			c.PrependReactor("list", resource, func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", nil)
			})
		}
	}
	tests := []struct {
		name    string
		to      string
		pool    string
		setup   func(*fake.Clientset)
		wantRC  int
		wantOut []string
		wantErr string
	}{
		{name: "the 2022 pool to 2025: ready", to: "2025", pool: "agentpool=win22", wantRC: 0,
			wantOut: []string{`"verdict": "ready"`, `"name": "iis22"`}},
		{name: "every pool to 2022: the ltsc2019 Deployment needs a rebuild", to: "2022", wantRC: ExitFinding,
			wantOut: []string{`"verdict": "rebuild"`, `"siblingTag": "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"`, `"name": "iis19-7d9c-x"`}},
		{name: "ReplicaSets forbidden: unknown, with the reason", to: "2025", pool: "agentpool=win22", setup: forbid("replicasets"), wantRC: ExitFinding,
			wantOut: []string{`"kind": "ReplicaSet"`, `"reason": "its ReplicaSet cannot be read: you may not list replicasets.apps in namespace web (RBAC)"`}},
		{name: "pods forbidden: an error", to: "2025", setup: forbid("pods"), wantRC: ExitError,
			wantErr: "listing the pods of namespace web"},
		{name: "a pool of no node", to: "2025", pool: "agentpool=win23", wantRC: ExitError,
			wantErr: "--pool agentpool=win23: no node has the label agentpool=win23 (the cluster's pools: agentpool=win19 (10.0.17763), agentpool=win22 (10.0.20348))"},
		{name: "a target the tag table does not know", to: "2031", wantRC: ExitError,
			wantErr: `--to "2031": no Windows release of that name or build in the tag table`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(objects...)
			if tt.setup != nil {
				tt.setup(client)
			}
			o := &UpgradePlanOptions{To: tt.to, Pool: tt.pool}
			o.Output = OutputJSON
			var stdout, stderr bytes.Buffer
			rc := o.run(t.Context(), client, "web", &stdout, &stderr)
			if rc != tt.wantRC {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", rc, tt.wantRC, stdout.String(), stderr.String())
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("output lacks %s:\n%s", want, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, stderr.String())
			}
			if rc != ExitError {
				var plan explain.UpgradePlan
				if err := json.Unmarshal(stdout.Bytes(), &plan); err != nil {
					t.Errorf("not JSON: %v", err)
				}
			}
		})
	}
}
