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

package webhookcert

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"
)

const (
	testNamespace = "kube-system"
	testSecret    = "windows-aware-publish-tls"
	testWebhook   = "00-windows-aware-publish"
)

var secretsResource = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// newCluster returns a fake clientset holding the empty Secret and a
// webhook configuration of two webhooks without a CA bundle, with
// optimistic concurrency on Secrets as the API server has it: an update
// whose resourceVersion is not the stored one is a conflict.
func newCluster(t *testing.T) *fake.Clientset {
	t.Helper()
	client := fake.NewClientset(
		&v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: testSecret, Namespace: testNamespace, ResourceVersion: "1"}},
		&admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: testWebhook},
			Webhooks:   []admissionregistrationv1.MutatingWebhook{{Name: "a.example.com"}, {Name: "b.example.com"}},
		},
	)
	client.PrependReactor("update", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sent := a.(k8stesting.UpdateAction).GetObject().(*v1.Secret)
		stored, err := client.Tracker().Get(secretsResource, sent.Namespace, sent.Name)
		if err != nil {
			return true, nil, err
		}
		rv := stored.(*v1.Secret).ResourceVersion
		if sent.ResourceVersion != rv {
			return true, nil, apierrors.NewConflict(secretsResource.GroupResource(), sent.Name, errors.New("the object has been modified"))
		}
		n, _ := strconv.Atoi(rv)
		written := sent.DeepCopy()
		written.ResourceVersion = strconv.Itoa(n + 1)
		return true, written, client.Tracker().Update(secretsResource, written, sent.Namespace)
	})
	return client
}

func newTestManager(t *testing.T, client *fake.Clientset, now time.Time) *Manager {
	t.Helper()
	m, err := NewManager(client, Config{
		Namespace: testNamespace, SecretName: testSecret, WebhookConfiguration: testWebhook,
		Names: testNames, Lifetimes: testLifetimes, Clock: testingclock.NewFakeClock(now),
	}, ktesting.NewLogger(t, ktesting.NewConfig()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func storedSecret(t *testing.T, client *fake.Clientset) *v1.Secret {
	t.Helper()
	s, err := client.CoreV1().Secrets(testNamespace).Get(context.Background(), testSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkConverged fails unless every manager serves the Secret's serving
// certificate and every webhook carries the Secret's CAs.
func checkConverged(t *testing.T, client *fake.Clientset, managers ...*Manager) {
	t.Helper()
	s := storedSecret(t, client)
	for i, m := range managers {
		c, err := m.GetCertificate(nil)
		if err != nil {
			t.Fatalf("manager %d: %v", i, err)
		}
		if !bytes.Equal(s.Data[KeyCert], pemOf(t, c.Leaf)) {
			t.Errorf("manager %d serves a certificate that is not the Secret's", i)
		}
	}
	cfg, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), testWebhook, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range cfg.Webhooks {
		if !bytes.Equal(w.ClientConfig.CABundle, s.Data[KeyCACert]) {
			t.Errorf("webhook %s carries a CA bundle that is not the Secret's", w.Name)
		}
	}
}

// pemOf is the certificate as the Secret holds it.
func pemOf(t *testing.T, c *x509.Certificate) []byte {
	t.Helper()
	out, err := cert.EncodeCertificates(c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func updates(client *fake.Clientset, resource string) int {
	n := 0
	for _, a := range client.Actions() {
		if (a.GetVerb() == "update" || a.GetVerb() == "patch") && a.GetResource().Resource == resource {
			n++
		}
	}
	return n
}

func TestManagerFillsTheSecretAndTheWebhook(t *testing.T) {
	client := newCluster(t)
	m := newTestManager(t, client, t0)
	if _, err := m.GetCertificate(nil); err == nil {
		t.Error("a certificate before the first sync")
	}
	recheck, err := m.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Ready():
	default:
		t.Error("not ready after a sync")
	}
	checkConverged(t, client, m)
	if want := t0.Add(20 * day); recheck.Before(want.Add(-time.Hour)) || recheck.After(want) {
		t.Errorf("recheck at %v, want about %v (two thirds of the serving certificate's life)", recheck, want)
	}

	// A second sync writes nothing.
	before := len(client.Actions())
	if _, err := m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, a := range client.Actions()[before:] {
		if a.GetVerb() != "get" {
			t.Errorf("a sync with nothing to do did %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}

	// A CA bundle reset (kubectl apply of a manifest without it) is put
	// back at the next sync.
	webhooks := client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	cfg, _ := webhooks.Get(context.Background(), testWebhook, metav1.GetOptions{})
	cfg.Webhooks[1].ClientConfig.CABundle = nil
	if _, err := webhooks.Update(context.Background(), cfg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkConverged(t, client, m)
}

// TestManagerLosesTheRaceGracefully: when another replica writes the
// Secret between the read and the write, the write fails on the
// resourceVersion, and the next sync serves the other replica's bundle
// without writing.
func TestManagerLosesTheRaceGracefully(t *testing.T) {
	client := newCluster(t)
	winner := mustNext(t, nil, testNames, t0)
	raced := false
	client.PrependReactor("get", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if raced {
			return false, nil, nil
		}
		raced = true
		// The loser reads the empty Secret; the winner writes right after.
		stored, _ := client.Tracker().Get(secretsResource, testNamespace, testSecret)
		read := stored.DeepCopyObject()
		won := stored.(*v1.Secret).DeepCopy()
		won.Data, won.ResourceVersion = winner.Data, "2"
		if err := client.Tracker().Update(secretsResource, won, testNamespace); err != nil {
			t.Fatal(err)
		}
		return true, read, nil
	})
	m := newTestManager(t, client, t0)
	if _, err := m.Sync(context.Background()); !errors.Is(err, errConflict) {
		t.Fatalf("sync after losing the race: %v, want a conflict", err)
	}
	if _, err := m.GetCertificate(nil); err == nil {
		t.Error("the loser serves its own certificate")
	}
	if _, err := m.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkConverged(t, client, m)
	if got := storedSecret(t, client); !bytes.Equal(got.Data[KeyCACert], winner.Data[KeyCACert]) {
		t.Error("the loser overwrote the winner's CA")
	}
	if n := updates(client, "secrets"); n != 1 {
		t.Errorf("%d Secret updates, want the loser's one failed attempt", n)
	}
}

// TestManagersConverge runs replicas at once against one empty Secret:
// they end up serving one certificate, of one CA, which the webhook
// configuration carries.
func TestManagersConverge(t *testing.T) {
	client := newCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var managers []*Manager
	for range 3 {
		// The fake clock never fires: the watch events and the conflicts
		// alone must bring the replicas together.
		m := newTestManager(t, client, t0)
		managers = append(managers, m)
		go m.Run(ctx)
	}
	deadline := time.After(30 * time.Second)
	for _, m := range managers {
		select {
		case <-m.Ready():
		case <-deadline:
			t.Fatal("a replica has no certificate after 30s")
		}
	}
	// Replicas that lost a race pick up the winner's certificate on the
	// watch event or right after their conflict.
	for end := time.Now().Add(10 * time.Second); ; {
		if ok := converged(client, managers); ok || time.Now().After(end) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	checkConverged(t, client, managers...)
}

func converged(client *fake.Clientset, managers []*Manager) bool {
	s, err := client.CoreV1().Secrets(testNamespace).Get(context.Background(), testSecret, metav1.GetOptions{})
	if err != nil {
		return false
	}
	for _, m := range managers {
		c, err := m.GetCertificate(nil)
		if err != nil {
			return false
		}
		if want, err := cert.EncodeCertificates(c.Leaf); err != nil || !bytes.Equal(s.Data[KeyCert], want) {
			return false
		}
	}
	return true
}

func TestManagerNeedsItsSecret(t *testing.T) {
	client := fake.NewClientset()
	m := newTestManager(t, client, t0)
	if _, err := m.Sync(context.Background()); err == nil || !strings.Contains(err.Error(), testNamespace+"/"+testSecret) {
		t.Errorf("sync without the Secret: %v, want an error naming it", err)
	}
}

func TestNewManagerChecksItsConfig(t *testing.T) {
	valid := Config{Namespace: testNamespace, SecretName: testSecret, WebhookConfiguration: testWebhook, Names: testNames}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{name: "no Secret", change: func(c *Config) { c.SecretName = "" }, want: "Secret"},
		{name: "no webhook configuration", change: func(c *Config) { c.WebhookConfiguration = "" }, want: "webhook configuration"},
		{name: "no names", change: func(c *Config) { c.Names = nil }, want: "name"},
		{name: "serving certificate outliving the CA's renewal", change: func(c *Config) { c.Lifetimes = Lifetimes{CA: 90 * day, Serving: 31 * day} }, want: "third"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := valid
			tc.change(&cfg)
			if _, err := NewManager(fake.NewClientset(), cfg, klog.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := NewManager(fake.NewClientset(), valid, klog.Background()); err != nil {
		t.Errorf("a valid config: %v", err)
	}
}
