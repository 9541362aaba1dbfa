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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// TestChartKubernetesMinors: image.kubernetesMinor defaults to the
// cluster's (empty), the schema allows exactly the minors the tree builds,
// and Chart.yaml's kubeVersion is the clusters those builds serve: each its
// own minor's and the next one's.
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
	if values.Image.KubernetesMinor != "" {
		t.Errorf("values.yaml image.kubernetesMinor %q, want empty: the cluster's minor", values.Image.KubernetesMinor)
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
	minors := k8sMinors(t, "minors")
	if diff := cmp.Diff(append([]string{""}, minors...), allowed); diff != "" {
		t.Errorf("image.kubernetesMinor enum (-built +schema):\n%s", diff)
	}

	var chart struct {
		KubeVersion string `json:"kubeVersion"`
	}
	data, err = os.ReadFile(chartDir + "/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := utilyaml.Unmarshal(data, &chart); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(">=%s.0-0 <%s.0-0", minors[0], nextMinor(t, nextMinor(t, minors[len(minors)-1])))
	if chart.KubeVersion != want {
		t.Errorf("Chart.yaml kubeVersion %q, want %q: the builds %v and the minor after the newest", chart.KubeVersion, want, minors)
	}
}

// nextMinor returns the Kubernetes minor after minor ("1.37" -> "1.38").
func nextMinor(t *testing.T, minor string) string {
	t.Helper()
	major, m, ok := strings.Cut(minor, ".")
	n, err := strconv.Atoi(m)
	if !ok || err != nil {
		t.Fatalf("minor %q is not <major>.<minor>", minor)
	}
	return fmt.Sprintf("%s.%d", major, n+1)
}

// TestChartImage: the image the chart's Deployments run, for each way of
// choosing it and each cluster version (helm template --kube-version, as
// helm install reads it from the cluster).
func TestChartImage(t *testing.T) {
	minors := k8sMinors(t, "minors")
	oldest, newest := minors[0], minors[len(minors)-1]
	type tc struct {
		name    string
		kube    string // --kube-version; empty: helm's own default
		values  string
		want    string
		wantErr string
	}
	cases := []tc{
		{name: "a pinned minor whatever the cluster", kube: "v" + newest + ".0", values: `image: {kubernetesMinor: "` + oldest + `"}`, want: imageOf(t, oldest)},
		{name: "a tag wins over the minor", values: `image: {kubernetesMinor: "1.35", tag: custom}`, want: schedulerImage + ":custom"},
		{name: "a tag wins over the cluster", kube: "v" + oldest + ".2", values: `image: {tag: custom}`, want: schedulerImage + ":custom"},
		{name: "a provider's version string", kube: "v" + oldest + ".4-gke.1000", want: imageOf(t, oldest)},
		{name: "one minor past the newest build runs the newest", kube: "v" + nextMinor(t, newest) + ".1", want: imageOf(t, newest)},
		{name: "a minor the tree does not build", values: `image: {kubernetesMinor: "1.34"}`, wantErr: "kubernetesMinor"},
		{name: "a minor written as a number", values: `image: {kubernetesMinor: 1.36}`, wantErr: "kubernetesMinor"},
		{name: "a cluster too old for any build", kube: "v1.34.3", wantErr: "kubeVersion"},
		{name: "a cluster too new for any build", kube: "v" + nextMinor(t, nextMinor(t, newest)) + ".0", wantErr: "kubeVersion"},
	}
	// Each build on its own minor's cluster: the template's list of
	// builds is hack/k8s.sh's.
	for _, m := range minors {
		cases = append(cases, tc{name: "a " + m + " cluster", kube: "v" + m + ".3", want: imageOf(t, m)})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"template", besideRelease, chartDir, "--namespace", besideNamespace,
				"--set", "publish.enabled=true", "--set", "pluginArgs.imageResolution.scope=Windows",
				"--set", "pluginArgs.imageResolution.registries[0].host=mcr.microsoft.com"}
			if tc.kube != "" {
				args = append(args, "--kube-version", tc.kube)
			}
			var values []string
			if tc.values != "" {
				values = append(values, tc.values)
			}
			out, err := helmRun(t, args, values...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("helm template: %v, want an error naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := decodeManifests(t, "helm template", out, "")
			// The scheduler, the webhook and the gate remover run one image.
			for _, name := range []string{besideRelease, "windows-aware-publish", "windows-aware-publish-ungate"} {
				d := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, name)
				if got := d.Spec.Template.Spec.Containers[0].Image; got != tc.want {
					t.Errorf("%s: image %s, want %s", name, got, tc.want)
				}
			}
		})
	}
}

// TestChartRefusesClustersNoBuildServes: rendered by a tool that does not
// hold the chart to its kubeVersion (the chart's copy here has none), the
// templates still refuse a cluster no build may serve, naming the builds.
func TestChartRefusesClustersNoBuildServes(t *testing.T) {
	minors := k8sMinors(t, "minors")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	chartFile := filepath.Join(dir, "Chart.yaml")
	data, err := os.ReadFile(chartFile)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "kubeVersion:") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(chartFile, []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kube    string
		wantErr bool
	}{
		{kube: "v1.34.3", wantErr: true},
		{kube: "v" + minors[0] + ".0"},
		{kube: "v" + nextMinor(t, minors[len(minors)-1]) + ".0"},
		{kube: "v" + nextMinor(t, nextMinor(t, minors[len(minors)-1])) + ".0", wantErr: true},
		{kube: "v2." + strings.TrimPrefix(minors[0], "1.") + ".0", wantErr: true},
	} {
		t.Run(tc.kube, func(t *testing.T) {
			_, err := helmRun(t, []string{"template", besideRelease, dir, "--namespace", besideNamespace, "--kube-version", tc.kube})
			switch {
			case tc.wantErr && err == nil:
				t.Fatal("helm rendered it")
			case tc.wantErr && !strings.Contains(err.Error(), "built for "+strings.Join(minors, ", ")):
				t.Errorf("error does not name the builds %v: %v", minors, err)
			case !tc.wantErr && err != nil:
				t.Errorf("helm template: %v", err)
			}
		})
	}
}
