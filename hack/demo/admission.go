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
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/localwebhook"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// The demo's admission webhook: bin/admission on 127.0.0.1, registered
// as the chart registers it with publish.clusterWideOptIn,
// publish.templates.enabled and warnings.enabled, but by URL (there is no
// Service to name) and with a CA of the demo's: the shipped
// configuration of manifests/publish/cluster-wide, which the chart
// renders alike, with the publish webhook routed as warnings.enabled
// routes it, and the chart's warnings webhooks (internal/localwebhook's
// tests hold both to the chart).

// warningsConfiguration is the name the chart gives the warnings'
// ValidatingWebhookConfiguration in release windows-aware-scheduler.
const warningsConfiguration = "windows-aware-publish-warnings"

// warningsTimeout is the chart's warnings.timeoutSeconds.
const warningsTimeout = 2

// admission is the running webhook and what registers it.
type admission struct {
	hook       *localwebhook.Webhook
	mutating   *admissionregistrationv1.MutatingWebhookConfiguration
	validating *admissionregistrationv1.ValidatingWebhookConfiguration
}

// startAdmission starts the webhook, registers it, and waits until the
// API server calls it for namespace ns, which must exist.
func (d *demo) startAdmission(ctx context.Context, ns string) error {
	logf("starting the admission webhook (bin/admission) on 127.0.0.1")
	hook, err := localwebhook.Start(ctx, d.c, localwebhook.Options{
		Name:   "admission",
		PKIDir: filepath.Join(d.c.Dir, "admission-pki"),
		Args: []string{
			"--config=" + d.c.SchedulerConfigFile, "--profile=" + profileName,
			// The warnings list nodes, the gate remover patches pods and
			// /metrics is authorized by the API server: on loopback, with
			// the admin's kubeconfig.
			"--kubeconfig=" + d.c.Kubeconfig,
			"--warnings",
			// The demo's profile gates the pods of the loopback registry's
			// images; the chart removes the gates from a Deployment of its
			// own, under an identity of its own. Here the same process
			// does, so that such a pod created after the demo is not left
			// gated.
			"--ungate",
		},
	})
	if err != nil {
		return err
	}
	mutating, err := localwebhook.ReadMutating(filepath.Join(d.root, "manifests", "publish", "cluster-wide", "mutatingwebhookconfiguration.yaml"),
		hook.URL, hook.CABundle, true)
	if err != nil {
		return err
	}
	validating := localwebhook.Warnings(warningsConfiguration, profileName, hook.URL, hook.CABundle, warningsTimeout)
	configs := d.c.Client.AdmissionregistrationV1()
	if _, err := configs.MutatingWebhookConfigurations().Create(ctx, mutating, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("registering the webhook: %w", err)
	}
	if _, err := configs.ValidatingWebhookConfigurations().Create(ctx, validating, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("registering the warnings webhook: %w", err)
	}
	d.admission = &admission{hook: hook, mutating: mutating, validating: validating}
	logf("admission webhook serving %s, registered: MutatingWebhookConfiguration %s, ValidatingWebhookConfiguration %s",
		hook.URL, mutating.Name, validating.Name)
	return d.waitAdmissionCalled(ctx, ns)
}

// waitAdmissionCalled waits until the API server, which picks webhook
// configurations up from an informer, calls both: a dry-run creation of
// a Deployment no pool runs comes back with its template written (the
// mutating configuration) and a warning (the validating one, once the
// webhook has listed the nodes). Dry runs leave nothing behind.
func (d *demo) waitAdmissionCalled(ctx context.Context, ns string) error {
	warned := &warningRecorder{}
	cfg := rest.CopyConfig(d.c.Config)
	cfg.WarningHandlerWithContext = warned
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	labels := map[string]string{"app": "probe"}
	probe := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "probe"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "probe", Image: legacyImage}}},
			},
		},
	}
	deadline := time.Now().Add(time.Minute)
	for {
		warned.reset()
		got, err := client.AppsV1().Deployments(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		written := err == nil && got.Annotations[wellknown.AnnotationTemplate] != ""
		if written && warned.any() {
			logf("the API server calls the admission webhook")
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the API server did not call the admission webhook within a minute (template written: %v, warned: %v, last error: %v); see .demo/logs/admission.log",
				written, warned.any(), err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// warningRecorder records the warnings of this project's webhook in API
// responses.
type warningRecorder struct {
	mu     sync.Mutex
	warned bool
}

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	if strings.HasPrefix(text, "windows-aware:") {
		w.mu.Lock()
		w.warned = true
		w.mu.Unlock()
	}
}

func (w *warningRecorder) reset() {
	w.mu.Lock()
	w.warned = false
	w.mu.Unlock()
}

func (w *warningRecorder) any() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.warned
}

// kubectl runs bin/tools/kubectl against the demo's cluster from the
// repository's root, as a reader runs it with the KUBECONFIG make demo
// prints, and returns what it printed, standard error (its warnings)
// included, in the order it printed it.
func (d *demo) kubectl(ctx context.Context, args ...string) (string, error) {
	bins, err := controlplane.FindBinaries("", "", controlplane.Kubectl)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bins.Kubectl, args...)
	cmd.Dir = d.root
	cmd.Env = append(localproc.EnvWithout("KUBECONFIG="), "KUBECONFIG="+d.c.Kubeconfig)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}
