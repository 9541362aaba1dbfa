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

package chart

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/windows-aware/windows-aware/internal/manifest"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// objects decodes every document of a manifest file with the client-go
// scheme, failing on any document it does not know.
func objects(t *testing.T, path string) []runtime.Object {
	t.Helper()
	objs, err := manifest.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// podSpec returns the pod spec of a Pod or a workload.
func podSpec(obj runtime.Object) *v1.PodSpec {
	switch o := obj.(type) {
	case *v1.Pod:
		return &o.Spec
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec
	}
	return nil
}

// TestSchedulerManifestsAreHardened: the static pod and the Deployment run
// the scheduler as the kubeadm one runs and beyond.
func TestSchedulerManifestsAreHardened(t *testing.T) {
	for _, tc := range []struct {
		file, port string
		// bindAddress: 127.0.0.1 on the host network, where only the
		// node itself may reach the port; any address on the pod network.
		bindAddress string
	}{
		{file: "../../manifests/static-pod/kube-scheduler.yaml", port: "10259", bindAddress: "127.0.0.1"},
		{file: "../../manifests/beside/deployment.yaml", port: "10269", bindAddress: "0.0.0.0"},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			objs := objects(t, tc.file)
			if len(objs) != 1 {
				t.Fatalf("want one object, got %d", len(objs))
			}
			spec := podSpec(objs[0])
			if spec == nil || len(spec.Containers) != 1 {
				t.Fatalf("want a pod spec with one container in %T", objs[0])
			}
			psc, c := spec.SecurityContext, spec.Containers[0]
			if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
				t.Error("not non-root")
			}
			if psc.SeccompProfile == nil || psc.SeccompProfile.Type != v1.SeccompProfileTypeRuntimeDefault {
				t.Error("seccomp is not RuntimeDefault")
			}
			sc := c.SecurityContext
			if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
				t.Error("root filesystem is writable")
			}
			if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Error("privilege escalation is allowed")
			}
			if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
				t.Error("capabilities are not dropped")
			}
			args := strings.Join(c.Command, " ")
			for _, want := range []string{"--config=", "--bind-address=" + tc.bindAddress, "--secure-port=" + tc.port} {
				if !strings.Contains(args, want) {
					t.Errorf("command %q lacks %s", args, want)
				}
			}
			if spec.HostNetwork != (tc.bindAddress == "127.0.0.1") {
				t.Errorf("hostNetwork %v with --bind-address=%s", spec.HostNetwork, tc.bindAddress)
			}
			wantHost := ""
			if spec.HostNetwork {
				wantHost = "127.0.0.1"
			}
			if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Host != wantHost {
				t.Errorf("the liveness probe does not reach the port bound to %s", tc.bindAddress)
			}
		})
	}
}

// TestSchedulerManifestsPodsOptOut: the pods of manifests/beside,
// manifests/publish and manifests/publish-gate are labelled
// windows-aware.x-k8s.io/opt-in: "false", as the chart's are
// (TestChartPodsOptOut): in kube-system opted in, the opt-in webhook would
// otherwise make them the profile's, and nothing would schedule them. (The
// static pod's mirror pod is bound, which the opt-in webhook leaves alone.)
func TestSchedulerManifestsPodsOptOut(t *testing.T) {
	for _, dir := range []string{besideDir, publishDir, publishDir + "-gate"} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var k kustomization
			if err := unmarshalStrict(data, &k); err != nil {
				t.Fatal(err)
			}
			pods := 0
			for _, r := range k.Resources {
				if !strings.HasSuffix(r, ".yaml") {
					continue // another kustomization: checked on its own
				}
				for _, obj := range objects(t, filepath.Join(dir, r)) {
					meta := podTemplateOf(obj)
					if meta == nil {
						continue
					}
					pods++
					if got, ok := meta.Labels[wellknown.LabelOptIn]; !ok || got != "false" {
						t.Errorf("%s: the pod template's labels %v lack %s: \"false\"", r, meta.Labels, wellknown.LabelOptIn)
					}
				}
			}
			if pods != 1 {
				t.Errorf("%d pod templates, want 1", pods)
			}
		})
	}
}

// TestExamplesNeedNothingElse: the example workloads use windows-aware and
// carry no selector or toleration, which is the point of the scheduler.
func TestExamplesNeedNothingElse(t *testing.T) {
	files, _ := filepath.Glob("../../manifests/examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	workloads := 0
	for _, f := range files {
		for _, obj := range objects(t, f) {
			spec := podSpec(obj)
			if spec == nil {
				continue
			}
			workloads++
			if spec.SchedulerName != "windows-aware" {
				t.Errorf("%s: schedulerName %q", f, spec.SchedulerName)
			}
			if len(spec.NodeSelector) > 0 || len(spec.Tolerations) > 0 || spec.Affinity != nil || spec.RuntimeClassName != nil {
				t.Errorf("%s: carries selectors, tolerations or a RuntimeClass", f)
			}
		}
	}
	if workloads < 4 {
		t.Errorf("only %d example workloads", workloads)
	}
}
