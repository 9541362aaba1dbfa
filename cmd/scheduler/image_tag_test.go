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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// The image every shipped manifest runs is the one make image builds:
// tagged <VERSION>-k8s<minor>, of the newest minor unless told otherwise.

const schedulerImage = "localhost/windows-aware-scheduler"

// k8sMinors asks hack/k8s.sh, the one place that knows which Kubernetes
// minors the tree builds, for COMMAND's answer (minors or newest), one per
// line. K8S is cleared: the answers must not depend on the minor under test.
func k8sMinors(t *testing.T, command string) []string {
	t.Helper()
	cmd := exec.Command("sh", "../../hack/k8s.sh", command)
	cmd.Env = append(os.Environ(), "K8S=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/k8s.sh %s: %v", command, err)
	}
	return strings.Fields(string(out))
}

// imageOf returns the tag that make image gives the build of minor.
func imageOf(t *testing.T, minor string) string {
	t.Helper()
	version, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	return schedulerImage + ":" + strings.TrimSpace(string(version)) + "-k8s" + minor
}

// TestManifestImagesAreTheNewestBuild: the static pod and the Deployments of
// manifests/beside and manifests/publish run the newest minor's image of
// this version.
func TestManifestImagesAreTheNewestBuild(t *testing.T) {
	want := imageOf(t, k8sMinors(t, "newest")[0])
	for _, file := range []string{"../../manifests/static-pod/kube-scheduler.yaml", "../../manifests/beside/deployment.yaml", "../../manifests/publish/deployment.yaml"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			objs := objects(t, file)
			if len(objs) != 1 {
				t.Fatalf("want one object, got %d", len(objs))
			}
			spec := podSpec(objs[0])
			if spec == nil || len(spec.Containers) != 1 {
				t.Fatalf("want a pod spec with one container in %T", objs[0])
			}
			if got := spec.Containers[0].Image; got != want {
				t.Errorf("image %s, want %s", got, want)
			}
		})
	}
}

// TestChartKubernetesMinors: image.kubernetesMinor defaults to the newest
// minor and the schema allows exactly the minors the tree builds.
func TestChartKubernetesMinors(t *testing.T) {
	data, err := os.ReadFile(chartDir + "/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Image struct {
			KubernetesMinor string `json:"kubernetesMinor"`
		} `json:"image"`
	}
	if err := utilyaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	if newest := k8sMinors(t, "newest")[0]; values.Image.KubernetesMinor != newest {
		t.Errorf("values.yaml image.kubernetesMinor %q, want the newest minor %q", values.Image.KubernetesMinor, newest)
	}
	image := loadValuesSchema(t).Properties["image"]
	if image == nil || image.Properties["kubernetesMinor"] == nil {
		t.Fatal("values.schema.json has no image.kubernetesMinor")
	}
	var allowed []string
	for _, v := range image.Properties["kubernetesMinor"].Enum {
		s, ok := v.(string)
		if !ok {
			t.Errorf("schema enum value %v (%T) is not a string", v, v)
		}
		allowed = append(allowed, s)
	}
	if diff := cmp.Diff(k8sMinors(t, "minors"), allowed); diff != "" {
		t.Errorf("image.kubernetesMinor enum (-built +schema):\n%s", diff)
	}
}

// TestChartImage: the image the chart's Deployment runs, for each way of
// choosing it.
func TestChartImage(t *testing.T) {
	newest := k8sMinors(t, "newest")[0]
	for _, tc := range []struct {
		name    string
		values  string
		want    string
		wantErr string
	}{
		{name: "defaults: the newest minor's build", want: imageOf(t, newest)},
		{name: "an older minor's build", values: `image: {kubernetesMinor: "1.35"}`, want: imageOf(t, "1.35")},
		{name: "a tag wins over the minor", values: `image: {kubernetesMinor: "1.35", tag: custom}`, want: schedulerImage + ":custom"},
		{name: "a minor the tree does not build", values: `image: {kubernetesMinor: "1.34"}`, wantErr: "kubernetesMinor"},
		{name: "a minor written as a number", values: `image: {kubernetesMinor: 1.36}`, wantErr: "kubernetesMinor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var values []string
			if tc.values != "" {
				values = append(values, tc.values)
			}
			if tc.wantErr != "" {
				_, err := helmTemplate(t, besideNamespace, values...)
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("helm template: %v, want an error naming %s", err, tc.wantErr)
				}
				return
			}
			m := renderChart(t, besideNamespace, values...)
			d := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, besideRelease)
			if got := d.Spec.Template.Spec.Containers[0].Image; got != tc.want {
				t.Errorf("image %s, want %s", got, tc.want)
			}
		})
	}
}
