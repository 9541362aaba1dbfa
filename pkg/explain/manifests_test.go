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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// allKinds is one object of every kind with a pod template, and a
// RuntimeClass, as helm template prints them.
const allKinds = `---
# Source: chart/templates/pod.yaml
apiVersion: v1
kind: Pod
metadata: {name: pod, namespace: ns}
spec:
  containers: [{name: c, image: nginx}]
---
# Source: chart/templates/empty.yaml
---
apiVersion: v1
kind: PodTemplate
metadata: {name: podtemplate}
template:
  spec:
    containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  template:
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc-without-template}
spec: {}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: deployment}
spec:
  template:
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: statefulset}
spec:
  template:
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: daemonset}
spec:
  template:
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: replicaset}
spec:
  template:
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  template:
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cronjob}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: c, image: nginx}]
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: windows-2019}
handler: runhcs-wcow-process
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: monitor}
`

func TestReadManifests(t *testing.T) {
	tests := []struct {
		name          string
		input         string
		wantTemplates []string // Kind/namespace/name
		wantRCs       []string
		wantSkipped   []string // Kind/name
		wantErr       string
	}{
		{
			name:  "every kind, helm template style",
			input: allKinds,
			wantTemplates: []string{"Pod/ns/pod", "PodTemplate//podtemplate", "ReplicationController//rc", "Deployment//deployment",
				"StatefulSet//statefulset", "DaemonSet//daemonset", "ReplicaSet//replicaset", "Job//job", "CronJob//cronjob"},
			wantRCs:     []string{"windows-2019"},
			wantSkipped: []string{"ServiceMonitor/monitor", "ReplicationController/rc-without-template"},
		},
		{
			name: "a JSON stream",
			input: `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": []}}
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}, "spec": {"containers": []}}`,
			wantTemplates: []string{"Pod//a", "Pod//b"},
		},
		{
			name: "a List, as kubectl get -o yaml prints it",
			input: `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: prod}
  spec:
    template:
      spec:
        containers: [{name: c, image: nginx}]
- apiVersion: v1
  kind: Service
  metadata: {name: web}
`,
			wantTemplates: []string{"Deployment/prod/web"},
			wantSkipped:   []string{"Service/web"},
		},
		{name: "only comments", input: "# nothing here\n---\n"},
		{name: "no kind", input: "apiVersion: v1\nmetadata: {name: x}\n", wantErr: "document 1"},
		{name: "not YAML", input: "a: b\n  c: : d\n", wantErr: "document 1"},
		{name: "a bad second document", input: "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nkind: [\n", wantErr: "document 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objects, skipped, err := ReadManifests(strings.NewReader(tt.input), "input.yaml")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one that says %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			templates, rcs, others := Inputs(objects)
			var gotTemplates, gotRCs, gotSkipped []string
			for _, tpl := range templates {
				gotTemplates = append(gotTemplates, tpl.Kind+"/"+tpl.Namespace+"/"+tpl.Name)
				if tpl.Source != "input.yaml" || tpl.Pod == nil || tpl.Admitted {
					t.Errorf("%s: source %q, pod %v, admitted %v", tpl.Name, tpl.Source, tpl.Pod != nil, tpl.Admitted)
				}
			}
			for name := range rcs {
				gotRCs = append(gotRCs, name)
			}
			for _, s := range append(skipped, others...) {
				gotSkipped = append(gotSkipped, s.Kind+"/"+s.Name)
			}
			if diff := cmp.Diff(tt.wantTemplates, gotTemplates); diff != "" {
				t.Errorf("templates (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRCs, gotRCs); diff != "" {
				t.Errorf("RuntimeClasses (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkipped, gotSkipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzReadManifests: any input is read or refused with an error, never a
// panic, and whatever is read sorts into inputs.
func FuzzReadManifests(f *testing.F) {
	f.Add(allKinds)
	f.Add("{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{}]}")
	f.Add("apiVersion: v1\nkind: Pod\n---\n---\n")
	f.Fuzz(func(t *testing.T, input string) {
		objects, _, err := ReadManifests(strings.NewReader(input), "fuzz")
		if err != nil {
			return
		}
		Inputs(objects)
	})
}
