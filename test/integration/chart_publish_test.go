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

package integration

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/pkg/webhookcert"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

const (
	// publishRelease is a release name of its own, so that its
	// cluster-scoped objects never meet those of chartRelease.
	publishRelease = "wap"
	// The names the chart gives the release's objects.
	publishFullname = publishRelease + "-windows-aware-scheduler"
	publishName     = publishRelease + "-windows-aware-publish"
	publishWebhook  = "00-" + publishName
	publishSecret   = publishName + "-tls"
)

// TestChartPublishMode installs the chart with publish.enabled=true and
// runs two webhook processes as the chart's Deployment runs them (its
// command, its ConfigMap, its ServiceAccount's token), in self-managed TLS
// mode, racing on the empty Secret the chart created. They agree on one CA,
// which the installed MutatingWebhookConfiguration comes to carry; helm
// upgrade keeps both; pointed at the processes, the configuration makes the
// real kube-apiserver publish a selector-less ltsc2019 pod; and the
// ServiceAccount can touch no Secret but its own.
func TestChartPublishMode(t *testing.T) {
	e := requireCluster(t)
	bins, err := controlplane.FindBinaries("", "", controlplane.Admission)
	if err != nil {
		t.Fatalf("the webhook binary: %v", err)
	}
	ns := e.namespace()
	h := newHelmRelease(e, ns)
	install := []string{"--set", "schedulerName=" + chartScheduler, "--set", "publish.enabled=true"}
	h.run(append([]string{"install", publishRelease, h.chart}, install...)...)
	uninstalled := false
	t.Cleanup(func() {
		if !uninstalled {
			h.run("uninstall", publishRelease)
		}
	})
	if s, err := e.client.CoreV1().Secrets(ns).Get(e.ctx, publishSecret, metav1.GetOptions{}); err != nil || len(s.Data) > 0 {
		t.Fatalf("the chart's Secret %s: %v, %d keys; want it there, empty", publishSecret, err, len(s.Data))
	}

	token := e.serviceAccountToken(ns, publishName)
	saKubeconfig := e.tokenKubeconfig(token)
	saClient := e.clientFor(token)

	// Two replicas at once on the empty Secret.
	replicas := []*publishProcess{e.startChartWebhook(ns, bins.Admission, saKubeconfig, 1), e.startChartWebhook(ns, bins.Admission, saKubeconfig, 2)}
	for _, r := range replicas {
		r.waitHealthy(e)
	}

	t.Run("the replicas agree on one CA, which the webhook configuration carries", func(t *testing.T) {
		e := e.sub(t)
		secret, caBundle := e.waitCABundle(ns)
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			t.Fatalf("the caBundle holds no certificate:\n%s", caBundle)
		}
		for i, r := range replicas {
			leaf := r.servedCertificate(e, pool)
			if !bytes.Contains(secret.Data[webhookcert.KeyCert], pemOf(leaf)) {
				t.Errorf("replica %d serves a certificate that is not the Secret's", i+1)
			}
			if !slices.Contains(leaf.DNSNames, publishName+"."+ns+".svc") {
				t.Errorf("replica %d's certificate names %v, not the Service", i+1, leaf.DNSNames)
			}
		}
	})

	t.Run("helm upgrade keeps the certificates and the CA bundle", func(t *testing.T) {
		e := e.sub(t)
		before, bundle := e.waitCABundle(ns)
		h.run(append([]string{"upgrade", publishRelease, h.chart, "--set", "publish.timeoutSeconds=3"}, install...)...)
		after, err := e.client.CoreV1().Secrets(ns).Get(e.ctx, publishSecret, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(after.Data[webhookcert.KeyCACert], before.Data[webhookcert.KeyCACert]) || !bytes.Equal(after.Data[webhookcert.KeyCert], before.Data[webhookcert.KeyCert]) {
			t.Error("helm upgrade changed the Secret's certificates")
		}
		cfg := e.publishWebhookConfig()
		if *cfg.Webhooks[0].TimeoutSeconds != 3 {
			t.Errorf("the upgrade did not apply: timeoutSeconds %d", *cfg.Webhooks[0].TimeoutSeconds)
		}
		if !bytes.Equal(cfg.Webhooks[0].ClientConfig.CABundle, bundle) {
			t.Error("helm upgrade erased or changed the CA bundle")
		}
	})

	t.Run("a selector-less ltsc2019 pod comes out of admission published", func(t *testing.T) {
		e := e.sub(t)
		e.pointPublishWebhookAt(ns, replicas[0].port)
		created := e.createPod(ns, newPod("iis", chartScheduler, "mcr.microsoft.com/windows/servercore:ltsc2019"))
		if got := created.Spec.NodeSelector[v1.LabelOSStable]; got != "windows" {
			t.Errorf("nodeSelector %v, want kubernetes.io/os=windows", created.Spec.NodeSelector)
		}
		if got := requiredBuilds(created); !slices.Equal(got, []string{oracle.Build2019}) {
			t.Errorf("required build affinity %v, want [%s]", got, oracle.Build2019)
		}
		if !slices.ContainsFunc(created.Spec.Tolerations, func(tol v1.Toleration) bool {
			return tol.ToleratesTaint(klog.Background(), &fixture.WindowsTaint, false)
		}) {
			t.Errorf("tolerations %v do not tolerate %v", created.Spec.Tolerations, fixture.WindowsTaint)
		}
		if rec, err := wellknown.ParseRecord(created.Annotations[wellknown.AnnotationPublished]); err != nil || rec.Source != "tag" {
			t.Errorf("record %+v (%v), want one from the tag", rec, err)
		}
	})

	t.Run("the ServiceAccount reaches its own Secret and configuration only", func(t *testing.T) {
		e := e.sub(t)
		if _, err := e.client.CoreV1().Secrets(ns).Create(e.ctx, &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "someone-elses"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		secrets := func(verb, name, namespace string) authorizationv1.ResourceAttributes {
			return authorizationv1.ResourceAttributes{Verb: verb, Resource: "secrets", Name: name, Namespace: namespace}
		}
		webhooks := func(verb, name string) authorizationv1.ResourceAttributes {
			return authorizationv1.ResourceAttributes{Verb: verb, Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: name}
		}
		for _, tc := range []struct {
			name    string
			attr    authorizationv1.ResourceAttributes
			allowed bool
		}{
			{name: "get its Secret", attr: secrets("get", publishSecret, ns), allowed: true},
			{name: "watch its Secret by name", attr: secrets("watch", publishSecret, ns), allowed: true},
			{name: "update its Secret", attr: secrets("update", publishSecret, ns), allowed: true},
			{name: "patch its configuration", attr: webhooks("patch", publishWebhook), allowed: true},
			{name: "read another Secret", attr: secrets("get", "someone-elses", ns), allowed: false},
			{name: "list the namespace's Secrets", attr: secrets("list", "", ns), allowed: false},
			{name: "list Secrets anywhere", attr: secrets("list", "", ""), allowed: false},
			{name: "read a Secret elsewhere", attr: secrets("get", publishSecret, "kube-system"), allowed: false},
			{name: "create Secrets", attr: secrets("create", "", ns), allowed: false},
			{name: "delete its Secret", attr: secrets("delete", publishSecret, ns), allowed: false},
			{name: "patch another configuration", attr: webhooks("patch", "vpc-resource-mutating-webhook"), allowed: false},
			{name: "create configurations", attr: webhooks("create", ""), allowed: false},
		} {
			review, err := saClient.AuthorizationV1().SelfSubjectAccessReviews().Create(e.ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &tc.attr},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if review.Status.Allowed != tc.allowed {
				t.Errorf("%s: allowed %v, want %v (%s)", tc.name, review.Status.Allowed, tc.allowed, review.Status.Reason)
			}
		}
		// And for real.
		if _, err := saClient.CoreV1().Secrets("").List(e.ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("listing Secrets cluster-wide: %v, want forbidden", err)
		}
		if _, err := saClient.CoreV1().Secrets(ns).Get(e.ctx, "someone-elses", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("reading another Secret: %v, want forbidden", err)
		}
		if _, err := saClient.CoreV1().Secrets(ns).Get(e.ctx, publishSecret, metav1.GetOptions{}); err != nil {
			t.Errorf("reading its own Secret: %v", err)
		}
	})

	t.Run("the logs hold no refusal and no key", func(t *testing.T) {
		secret, err := e.client.CoreV1().Secrets(ns).Get(e.ctx, publishSecret, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var keyLines []string
		for _, k := range []string{webhookcert.KeyKey, webhookcert.KeyCAKey} {
			for _, line := range strings.Split(string(secret.Data[k]), "\n") {
				if len(line) > 20 && !strings.HasPrefix(line, "-----") {
					keyLines = append(keyLines, line)
				}
			}
		}
		for i, r := range replicas {
			data, err := os.ReadFile(r.LogFile)
			if err != nil {
				t.Fatal(err)
			}
			log := string(data)
			if strings.Contains(log, "forbidden") {
				t.Errorf("replica %d was refused something:\n%s", i+1, r.Tail(20))
			}
			if strings.Contains(log, "PRIVATE KEY") || slices.ContainsFunc(keyLines, func(l string) bool { return strings.Contains(log, l) }) {
				t.Errorf("replica %d logged key material", i+1)
			}
			if !strings.Contains(log, "Serving certificate") {
				t.Errorf("replica %d never logged the certificate it serves (-v=2):\n%s", i+1, r.Tail(20))
			}
		}
	})

	t.Run("helm uninstall leaves nothing behind", func(t *testing.T) {
		e := e.sub(t)
		for _, r := range replicas {
			r.Stop(10 * time.Second)
		}
		h.run("uninstall", publishRelease)
		uninstalled = true
		if left := e.releaseLeftovers(ns, publishRelease); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	})
}

// publishProcess is bin/admission run as the chart's Deployment runs it.
type publishProcess struct {
	*localproc.Process
	port int
}

// startChartWebhook starts the webhook with the container command of the
// chart's publish Deployment and the configuration of the chart's
// ConfigMap, both as installed, and the ServiceAccount's kubeconfig where
// the pod would use its in-cluster credentials. Only what a test on
// 127.0.0.1 must change is changed: the config path, the listen address
// and port, and an extra name in the certificate for the address the API
// server calls here. It does not wait for the process.
func (e *env) startChartWebhook(ns, binary, kubeconfig string, n int) *publishProcess {
	e.t.Helper()
	cm, err := e.client.CoreV1().ConfigMaps(ns).Get(e.ctx, publishFullname+"-config", metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	cfgFile := filepath.Join(e.t.TempDir(), chartConfigKey)
	if err := os.WriteFile(cfgFile, []byte(cm.Data[chartConfigKey]), 0o600); err != nil {
		e.t.Fatal(err)
	}
	d, err := e.client.AppsV1().Deployments(ns).Get(e.ctx, publishName, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 || spec.Containers[0].Command[0] != "/admission" {
		e.t.Fatalf("the chart's webhook pod runs %v", spec.Containers)
	}
	if spec.AutomountServiceAccountToken == nil || !*spec.AutomountServiceAccountToken {
		e.t.Fatal("the chart's webhook pod gets no token, which self-managed TLS needs")
	}
	port, err := localproc.FreePort()
	if err != nil {
		e.t.Fatal(err)
	}
	var args []string
	for _, a := range spec.Containers[0].Command[1:] {
		switch {
		case strings.HasPrefix(a, "--config="):
			a = "--config=" + cfgFile
		case strings.HasPrefix(a, "--bind-address="):
			a = "--bind-address=127.0.0.1"
		case strings.HasPrefix(a, "--port="):
			a = fmt.Sprintf("--port=%d", port)
		case strings.HasPrefix(a, "--shutdown-delay="):
			a = "--shutdown-delay=0s"
		}
		args = append(args, a)
	}
	args = append(args, "--kubeconfig="+kubeconfig, "--tls-extra-names=127.0.0.1", "-v=2")
	p, err := e.c.Run(e.ctx, fmt.Sprintf("chart-publish-%d", n), binary, args, "")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if !p.Exited() {
			p.Stop(10 * time.Second)
		}
	})
	return &publishProcess{Process: p, port: port}
}

// waitHealthy waits until the webhook answers /healthz, which it does only
// once it has a certificate to serve.
func (p *publishProcess) waitHealthy(e *env) {
	e.t.Helper()
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // only waiting for it to listen; the certificate is checked below
	}}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/healthz", p.port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if p.Exited() || time.Now().After(deadline) {
			e.t.Fatalf("the webhook is not healthy after 60s (%v):\n%s", err, p.Tail(30))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// servedCertificate returns the certificate the webhook serves on
// 127.0.0.1, verified against pool as the API server verifies it.
func (p *publishProcess) servedCertificate(e *env, pool *x509.CertPool) *x509.Certificate {
	e.t.Helper()
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.port), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
	if err != nil {
		e.t.Fatalf("the webhook's certificate does not verify against the CA bundle: %v", err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

func pemOf(c *x509.Certificate) []byte {
	out, _ := cert.EncodeCertificates(c)
	return out
}

func (e *env) publishWebhookConfig() *admissionregistrationv1.MutatingWebhookConfiguration {
	e.t.Helper()
	cfg, err := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(e.ctx, publishWebhook, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cfg
}

// waitCABundle waits until the Secret holds a bundle and every webhook of
// the configuration carries its CAs, and returns both.
func (e *env) waitCABundle(ns string) (*v1.Secret, []byte) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := e.client.CoreV1().Secrets(ns).Get(e.ctx, publishSecret, metav1.GetOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		ca := s.Data[webhookcert.KeyCACert]
		cfg := e.publishWebhookConfig()
		if len(ca) > 0 && !slices.ContainsFunc(cfg.Webhooks, func(w admissionregistrationv1.MutatingWebhook) bool {
			return !bytes.Equal(w.ClientConfig.CABundle, ca)
		}) {
			return s, ca
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("after 30s the Secret holds %d bytes of CA and the webhook configuration carries %d", len(ca), len(cfg.Webhooks[0].ClientConfig.CABundle))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// pointPublishWebhookAt makes the installed configuration call the
// webhook on 127.0.0.1:port (the loopback cluster routes no Service), for
// the pods of namespace ns alone, keeping the CA bundle the webhook
// patched in; then waits until the API server calls it.
func (e *env) pointPublishWebhookAt(ns string, port int) {
	e.t.Helper()
	cfg := e.publishWebhookConfig()
	var ops []map[string]any
	for i, w := range cfg.Webhooks {
		// Each webhook (opt-in, then publish) at its own path of the
		// replica, for the test's namespace, with what else the chart's
		// selector asks (the opt-in label).
		url := fmt.Sprintf("https://127.0.0.1:%d%s", port, *w.ClientConfig.Service.Path)
		selector := metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
		if w.NamespaceSelector != nil {
			for k, v := range w.NamespaceSelector.MatchLabels {
				selector.MatchLabels[k] = v
			}
		}
		at := fmt.Sprintf("/webhooks/%d", i)
		ops = append(ops,
			map[string]any{"op": "remove", "path": at + "/clientConfig/service"},
			map[string]any{"op": "add", "path": at + "/clientConfig/url", "value": url},
			map[string]any{"op": "add", "path": at + "/namespaceSelector", "value": selector})
	}
	patch, _ := json.Marshal(ops)
	if _, err := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Patch(e.ctx, publishWebhook, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("pointing the webhook at port %d: %v", port, err)
	}
	e.waitWebhookCalled(ns, chartScheduler)
}
