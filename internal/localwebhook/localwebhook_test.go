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

package localwebhook

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/helmtest"
	"github.com/windows-aware/windows-aware/internal/manifest"
)

const base = "https://127.0.0.1:9443"

var ca = []byte("-----BEGIN CERTIFICATE-----\n")

func root(t *testing.T) string {
	t.Helper()
	r, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReadMutating: every webhook of the shipped cluster-wide
// configuration calls its own path on loopback, trusting the CA given,
// and keeps the rest as shipped.
func TestReadMutating(t *testing.T) {
	file := filepath.Join(root(t), "manifests", "publish", "cluster-wide", "mutatingwebhookconfiguration.yaml")
	shipped, err := manifest.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := shipped[0].(*admissionregistrationv1.MutatingWebhookConfiguration)
	got, err := ReadMutating(file, base, ca, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Webhooks) != len(want.Webhooks) || len(got.Webhooks) == 0 {
		t.Fatalf("%d webhooks, want the %d shipped", len(got.Webhooks), len(want.Webhooks))
	}
	for i, w := range got.Webhooks {
		shippedHook := want.Webhooks[i]
		if u := w.ClientConfig.URL; u == nil || *u != base+*shippedHook.ClientConfig.Service.Path || w.ClientConfig.Service != nil || !bytes.Equal(w.ClientConfig.CABundle, ca) {
			t.Errorf("webhook %s calls %+v, want %s%s with the CA", w.Name, w.ClientConfig, base, *shippedHook.ClientConfig.Service.Path)
		}
		w.ClientConfig, shippedHook.ClientConfig = admissionregistrationv1.WebhookClientConfig{}, admissionregistrationv1.WebhookClientConfig{}
		if !equality.Semantic.DeepEqual(w, shippedHook) {
			t.Errorf("webhook %s differs from the shipped one beyond its clientConfig", w.Name)
		}
	}
}

func TestPointRefusesAWebhookOfNoPath(t *testing.T) {
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "x"}}}
	if err := PointValidating(cfg, base, ca); err == nil {
		t.Error("pointed a webhook that names no Service path")
	}
}

// TestWarningsAsTheChartRendersThem holds what make demo registers to
// what `helm template` renders with publish.enabled,
// publish.clusterWideOptIn, publish.templates.enabled and
// warnings.enabled: ReadMutating of manifests/publish/cluster-wide with
// warnings, and Warnings, give the chart's webhooks, in its order, field
// for field, but for clientConfig: a URL on loopback here, the publish
// Service there, at the same path. Without helm it is skipped, as the
// chart's own tests are (make verify-chart builds it).
func TestWarningsAsTheChartRendersThem(t *testing.T) {
	helm := helmtest.Binary(t, "to hold the warnings webhooks to the chart")
	out, err := exec.Command(helm, "template", "windows-aware-scheduler", filepath.Join(root(t), "charts", "windows-aware-scheduler"),
		"--namespace", "kube-system", "--set", "publish.enabled=true", "--set", "publish.clusterWideOptIn=true",
		"--set", "publish.templates.enabled=true", "--set", "warnings.enabled=true").Output()
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	objs, err := manifest.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	var chartMutating *admissionregistrationv1.MutatingWebhookConfiguration
	var chartValidating *admissionregistrationv1.ValidatingWebhookConfiguration
	for _, o := range objs {
		switch v := o.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			chartMutating = v
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			chartValidating = v
		}
	}
	if chartMutating == nil || chartValidating == nil {
		t.Fatal("the chart renders no MutatingWebhookConfiguration or no ValidatingWebhookConfiguration")
	}

	mutating, err := ReadMutating(filepath.Join(root(t), "manifests", "publish", "cluster-wide", "mutatingwebhookconfiguration.yaml"), base, ca, true)
	if err != nil {
		t.Fatal(err)
	}
	if mutating.Name != chartMutating.Name {
		t.Errorf("MutatingWebhookConfiguration %s, the chart's %s", mutating.Name, chartMutating.Name)
	}
	if len(mutating.Webhooks) != len(chartMutating.Webhooks) {
		t.Fatalf("%d mutating webhooks, the chart %d", len(mutating.Webhooks), len(chartMutating.Webhooks))
	}
	for i, w := range mutating.Webhooks {
		c := chartMutating.Webhooks[i]
		checkURL(t, w.Name, w.ClientConfig, c.ClientConfig)
		w.ClientConfig, c.ClientConfig = admissionregistrationv1.WebhookClientConfig{}, admissionregistrationv1.WebhookClientConfig{}
		if !equality.Semantic.DeepEqual(w, c) {
			t.Errorf("mutating webhook %d differs from the chart's:\n got %+v\nwant %+v", i, w, c)
		}
	}

	validating := Warnings(chartValidating.Name, "windows-aware", base, ca, 2)
	if len(validating.Webhooks) != len(chartValidating.Webhooks) {
		t.Fatalf("%d validating webhooks, the chart %d", len(validating.Webhooks), len(chartValidating.Webhooks))
	}
	for i, w := range validating.Webhooks {
		c := chartValidating.Webhooks[i]
		checkURL(t, w.Name, w.ClientConfig, c.ClientConfig)
		w.ClientConfig, c.ClientConfig = admissionregistrationv1.WebhookClientConfig{}, admissionregistrationv1.WebhookClientConfig{}
		if !equality.Semantic.DeepEqual(w, c) {
			t.Errorf("validating webhook %d differs from the chart's:\n got %+v\nwant %+v", i, w, c)
		}
	}
}

func checkURL(t *testing.T, name string, got, chart admissionregistrationv1.WebhookClientConfig) {
	t.Helper()
	if chart.Service == nil || chart.Service.Path == nil || got.URL == nil || *got.URL != base+*chart.Service.Path || !bytes.Equal(got.CABundle, ca) {
		t.Errorf("webhook %s calls %+v, the chart's %+v", name, got, chart)
	}
}
