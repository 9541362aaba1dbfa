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
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Config says which Secret and webhook configuration a Manager keeps.
type Config struct {
	// Namespace and SecretName name the Secret. It must exist (the
	// webhook's manifests create it empty): the Manager only reads and
	// updates it.
	Namespace, SecretName string
	// WebhookConfiguration is the MutatingWebhookConfiguration whose
	// webhooks get the CA bundle.
	WebhookConfiguration string
	// Names are the DNS names (or IP addresses) the serving certificate
	// names: the Service's, <svc>.<ns>.svc and <svc>.<ns>.svc.cluster.local.
	Names []string
	// Lifetimes of the certificates; zero: DefaultLifetimes.
	Lifetimes Lifetimes
	// Resync is how often the Secret and the webhook configuration are
	// read even when nothing was heard of them; zero: a minute.
	Resync time.Duration
	// Clock is the time; nil: the real one.
	Clock clock.WithTicker
}

// ServiceNames returns the names of the Service svc in namespace ns that
// the API server may call it by.
func ServiceNames(svc, ns string) []string {
	return []string{fmt.Sprintf("%s.%s.svc", svc, ns), fmt.Sprintf("%s.%s.svc.cluster.local", svc, ns)}
}

// errConflict: another replica wrote the Secret first; its bundle is read
// and served at once.
var errConflict = errors.New("the Secret changed since it was read")

// maxBackoff bounds the wait between failed syncs.
const maxBackoff = time.Minute

// Manager keeps the Secret's bundle current, serves its certificate from
// memory, and keeps the webhook configuration's CA bundle equal to the
// Secret's trusted CAs.
type Manager struct {
	client kubernetes.Interface
	cfg    Config
	logger klog.Logger

	current   atomic.Pointer[tls.Certificate]
	ready     chan struct{}
	readyOnce sync.Once
	poke      chan struct{}
}

// NewManager returns a Manager for cfg; Run starts it.
func NewManager(client kubernetes.Interface, cfg Config, logger klog.Logger) (*Manager, error) {
	switch {
	case cfg.Namespace == "" || cfg.SecretName == "":
		return nil, errors.New("the Secret's namespace and name are required")
	case cfg.WebhookConfiguration == "":
		return nil, errors.New("the webhook configuration's name is required")
	case len(cfg.Names) == 0:
		return nil, errors.New("the serving certificate needs at least one name")
	}
	if cfg.Lifetimes == (Lifetimes{}) {
		cfg.Lifetimes = DefaultLifetimes
	}
	if cfg.Lifetimes.Serving*3 > cfg.Lifetimes.CA {
		return nil, fmt.Errorf("the serving certificate's lifetime %v is more than a third of the CA's %v: it would outlive the CA's renewal", cfg.Lifetimes.Serving, cfg.Lifetimes.CA)
	}
	if cfg.Resync <= 0 {
		cfg.Resync = time.Minute
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	return &Manager{
		client: client, cfg: cfg,
		logger: logger.WithValues("secret", klog.KRef(cfg.Namespace, cfg.SecretName), "webhookConfiguration", cfg.WebhookConfiguration),
		ready:  make(chan struct{}), poke: make(chan struct{}, 1),
	}, nil
}

// GetCertificate is tls.Config.GetCertificate: the Secret's serving
// certificate as last read.
func (m *Manager) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := m.current.Load(); c != nil {
		return c, nil
	}
	return nil, errors.New("no serving certificate yet")
}

// Ready is closed once there is a certificate to serve.
func (m *Manager) Ready() <-chan struct{} { return m.ready }

// Run syncs until ctx ends: when the Secret changes (a watch on it by
// name), when a certificate is due, every Resync, and after a failure,
// with a backoff from a second to a minute.
func (m *Manager) Run(ctx context.Context) {
	go m.watchSecret(ctx)
	backoff := time.Second
	for {
		next, err := m.Sync(ctx)
		wait := m.cfg.Resync
		switch {
		case errors.Is(err, errConflict):
			m.logger.V(2).Info("Another replica wrote the webhook's certificates first; reading theirs")
			wait = 0
		case err != nil:
			m.logger.Error(err, "Keeping the webhook's certificates", "retryIn", backoff)
			wait, backoff = backoff, min(2*backoff, maxBackoff)
		default:
			backoff = time.Second
			if until := next.Sub(m.cfg.Clock.Now()); until < wait {
				wait = max(until, 0)
			}
		}
		if wait == 0 {
			if ctx.Err() != nil {
				return
			}
			continue
		}
		timer := m.cfg.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-m.poke:
			timer.Stop()
		case <-timer.C():
		}
	}
}

// watchSecret pokes the sync loop whenever the Secret changes, through an
// informer that lists and watches it by name: a field selector on
// metadata.name, which RBAC resourceNames allow.
func (m *Manager) watchSecret(ctx context.Context) {
	byName := fields.OneTermEqualSelector("metadata.name", m.cfg.SecretName).String()
	secrets := m.client.CoreV1().Secrets(m.cfg.Namespace)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = byName
			return secrets.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = byName
			return secrets.Watch(ctx, o)
		},
	}
	poke := func() {
		select {
		case m.poke <- struct{}{}:
		default:
		}
	}
	_, informer := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &v1.Secret{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { poke() },
			UpdateFunc: func(any, any) { poke() },
			DeleteFunc: func(any) { poke() },
		},
	})
	informer.RunWithContext(ctx)
}

// Sync reads the Secret, writes it when its bundle needs a new CA or
// serving certificate (with the resourceVersion read, so that of two
// replicas one wins and the other reads the winner's), serves its
// certificate, and patches its CA bundle into the webhook configuration.
// It returns when the bundle must be looked at again.
func (m *Manager) Sync(ctx context.Context) (time.Time, error) {
	secrets := m.client.CoreV1().Secrets(m.cfg.Namespace)
	s, err := secrets.Get(ctx, m.cfg.SecretName, metav1.GetOptions{})
	if err != nil {
		return time.Time{}, fmt.Errorf("reading Secret %s/%s (the webhook's manifests create it): %w", m.cfg.Namespace, m.cfg.SecretName, err)
	}
	plan, err := Next(s.Data, m.cfg.Names, m.cfg.Clock.Now(), m.cfg.Lifetimes)
	if err != nil {
		return time.Time{}, err
	}
	if plan.Changed {
		updated := s.DeepCopy()
		updated.Data = plan.Data
		if _, err := secrets.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) {
				return time.Time{}, errConflict
			}
			return time.Time{}, fmt.Errorf("writing Secret %s/%s: %w", m.cfg.Namespace, m.cfg.SecretName, err)
		}
		m.logger.Info("Wrote the webhook's certificates", "reasons", plan.Reasons,
			"ca", plan.Bundle.CA.Subject.CommonName, "caNotAfter", plan.Bundle.CA.NotAfter,
			"servingSerial", plan.Bundle.Serving.SerialNumber.Text(16), "servingNotAfter", plan.Bundle.Serving.NotAfter)
	}
	m.serve(plan.Bundle)
	if err := m.patchCABundle(ctx, plan.Bundle); err != nil {
		return time.Time{}, err
	}
	return plan.RecheckAt, nil
}

// serve makes the bundle's serving certificate the one GetCertificate
// returns.
func (m *Manager) serve(b *Bundle) {
	if old := m.current.Load(); old == nil || !old.Leaf.Equal(b.Serving) {
		m.current.Store(b.KeyPair)
		m.logger.V(2).Info("Serving certificate", "serial", b.Serving.SerialNumber.Text(16), "notAfter", b.Serving.NotAfter)
	}
	m.readyOnce.Do(func() { close(m.ready) })
}

// patchCABundle sets the caBundle of every webhook of the configuration
// that lacks it, with a JSON patch that first tests each webhook's name at
// its index, so that a configuration changed in between is not patched at
// the wrong place.
func (m *Manager) patchCABundle(ctx context.Context, b *Bundle) error {
	want, err := b.CABundle()
	if err != nil {
		return err
	}
	configs := m.client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	cfg, err := configs.Get(ctx, m.cfg.WebhookConfiguration, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading MutatingWebhookConfiguration %s: %w", m.cfg.WebhookConfiguration, err)
	}
	names, have := make([]string, len(cfg.Webhooks)), make([][]byte, len(cfg.Webhooks))
	for i, w := range cfg.Webhooks {
		names[i], have[i] = w.Name, w.ClientConfig.CABundle
	}
	patch, n, err := CABundlePatch(want, names, have)
	if err != nil || n == 0 {
		return err
	}
	if _, err := configs.Patch(ctx, cfg.Name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patching the CA bundle into MutatingWebhookConfiguration %s: %w", cfg.Name, err)
	}
	m.logger.Info("Patched the CA bundle into the webhook configuration", "webhooks", n, "cas", len(b.Trusted))
	return nil
}
