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
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestExplainShowsPublished: a live pod shows what publish mode wrote into
// it, or that its record does not read; a manifest that carries the
// annotation (copied from a live pod) shows nothing, since no webhook
// wrote it.
func TestExplainShowsPublished(t *testing.T) {
	profile, err := schedprofile.Load(shippedConfig, "")
	if err != nil {
		t.Fatal(err)
	}
	publisher, err := publish.New(profile.Name, profile.Args)
	if err != nil {
		t.Fatal(err)
	}
	stamped := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "nano", Namespace: "default"},
		Spec:       v1.PodSpec{SchedulerName: profile.Name, Containers: []v1.Container{{Name: "c", Image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"}}},
	}
	rec, outcome := publisher.Publish(stamped)
	if outcome != publish.OutcomeStamped {
		t.Fatalf("publishing the test pod: %s", outcome)
	}
	garbled := stamped.DeepCopy()
	garbled.Name = "garbled"
	garbled.Annotations = map[string]string{wellknown.AnnotationPublished: "os=windows"}

	c := cluster(stamped, garbled)
	objects, err := c.Objects(t.Context(), []string{"pod/nano", "pod/garbled"}, false)
	if err != nil {
		t.Fatal(err)
	}
	copied := Object{Object: stamped.DeepCopy(), Source: "nano.yaml"}
	objects = append(objects, copied)
	e, err := NewExplainer(t.Context(), profile)
	if err != nil {
		t.Fatal(err)
	}
	templates, _, _ := Inputs(objects)
	report, err := e.Explain(t.Context(), templates)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*PublishedReport{}
	for _, tr := range report.Templates {
		got[tr.Source+" "+tr.Name] = tr.Published
	}
	want := map[string]*PublishedReport{
		"cluster nano":    {Record: &rec},
		"cluster garbled": {Error: "annotation windows-aware.x-k8s.io/published: invalid character 'o' looking for beginning of value"},
		"nano.yaml nano":  nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("published reports (-want +got):\n%s", diff)
	}

	var out bytes.Buffer
	if err := WriteText(&out, report, e.Decider.Catalog()); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"published  at creation, from the OS's source tag: nodeSelector kubernetes.io/os=windows; required node.kubernetes.io/windows-build in [10.0.20348, 10.0.25398, 10.0.26100]; preferred 10.0.20348; tolerations os=windows:NoSchedule",
		"published  unreadable: annotation windows-aware.x-k8s.io/published",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("the text output lacks %q:\n%s", line, out.String())
		}
	}
}
