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
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/inventory"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/warnings"
	"github.com/windows-aware/windows-aware/pkg/webhookcert"
)

// The warnings webhook's paths: the second for namespaces labelled
// wellknown.LabelEnforce=true, where a warning refuses the object. The third
// is the publish webhook's /mutate that answers the warnings too: the
// chart sends the profile's pods there, outside such namespaces, and
// leaves them out of the warnings' validating webhook, so that they cost
// one review, not two.
const (
	warningsPath        = "/warnings"
	warningsEnforcePath = "/warnings/enforce"
	mutateWarningsPath  = "/mutate/warnings"
)

// caBundlePeriod is how often the CA the replicas keep is copied into the
// warnings' ValidatingWebhookConfiguration, besides at start: the CA is
// renewed years apart, and a new one is trusted beside the old for long.
const caBundlePeriod = time.Minute

// warningsOptions are the flags of the warnings webhook.
type warningsOptions struct {
	enabled bool
	// webhookConfiguration is the ValidatingWebhookConfiguration into
	// whose webhooks the CA bundle is patched, with --tls-secret.
	webhookConfiguration string
	// inventoryDetails: the warnings name node counts, pools, taints and
	// builds (warnings.Warner.WithoutInventory, negated).
	inventoryDetails bool
}

func (w *warningsOptions) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&w.enabled, "warnings", false,
		"serve "+warningsPath+" and "+warningsEnforcePath+" (a validating webhook): warn, at the creation of a pod or workload, that it runs on no node "+
			"the cluster has or can get, and "+mutateWarningsPath+", the publish webhook's /mutate that answers the same warnings for the profile's pods; "+
			"needs list and watch on nodes (and on karpenter.sh nodepools, where served)")
	fs.BoolVar(&w.inventoryDetails, "warnings-inventory-details", true,
		"word the warnings with the cluster's node and NodePool counts, pool names, taints and Windows builds, as explain does; false: a warning that says only that no node runs the object, for clusters whose tenants may not read the nodes")
	fs.StringVar(&w.webhookConfiguration, "warnings-webhook-configuration", "",
		"with --warnings and --tls-secret: the ValidatingWebhookConfiguration into whose webhooks the CA bundle is patched")
}

// registerWarnings serves the warnings on mux when --warnings is given:
// it starts the node inventory (and, with --tls-secret, the copy of the CA
// into the validating configuration) until ctx ends. The inventory lists
// in the background; until it has, no warning is given.
func (o *options) registerWarnings(ctx context.Context, logger klog.Logger, mux *http.ServeMux, publisher *publish.Publisher) error {
	if !o.warnings.enabled {
		if o.warnings.webhookConfiguration != "" {
			return errors.New("--warnings-webhook-configuration goes with --warnings")
		}
		return nil
	}
	profile, err := schedprofile.Load(o.config, o.profile)
	if err != nil {
		return err
	}
	cfg, err := o.ungate.restConfig()
	if err != nil {
		return fmt.Errorf("warnings: the API server's address and credentials (--kubeconfig, else in-cluster): %w", err)
	}
	cfg.UserAgent = "windows-aware-admission"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	nodes := inventory.New()
	if err := nodes.Start(ctx, client, dyn, logger); err != nil {
		return fmt.Errorf("warnings: the node inventory: %w", err)
	}
	// The webhook runs no image resolver: warnings come from tags.
	warner, err := warnings.New(profile.Name, profile.Args, nodes, nil)
	if err != nil {
		return err
	}
	warner.WithoutInventory = !o.warnings.inventoryDetails
	warnings.RegisterMetrics(metricsRegistry())
	mux.Handle(warningsPath, warner.Handler(logger, false))
	mux.Handle(warningsEnforcePath, warner.Handler(logger, true))
	mux.Handle(mutateWarningsPath, publisher.HandlerWithWarnings(logger, warner))
	if o.selfTLS.secret != "" {
		if o.warnings.webhookConfiguration == "" {
			return errors.New("--warnings with --tls-secret needs --warnings-webhook-configuration")
		}
		go o.keepWarningsCABundle(ctx, logger, client)
	}
	logger.Info("Serving warnings", "paths", []string{warningsPath, warningsEnforcePath, mutateWarningsPath})
	return nil
}

// keepWarningsCABundle copies the CA bundle the replicas keep in their
// Secret into the warnings' ValidatingWebhookConfiguration, at start and
// every caBundlePeriod, until ctx ends.
func (o *options) keepWarningsCABundle(ctx context.Context, logger klog.Logger, client kubernetes.Interface) {
	namespace, name, _ := o.selfTLS.secretRef()
	for {
		if err := patchWarningsCABundle(ctx, client, namespace, name, o.warnings.webhookConfiguration); err != nil && ctx.Err() == nil {
			logger.Error(err, "Keeping the CA bundle of the warnings' webhook configuration", "retryIn", caBundlePeriod)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(caBundlePeriod):
		}
	}
}

// patchWarningsCABundle sets the caBundle of every webhook of the
// configuration that lacks the Secret's, with webhookcert's patch, as for
// the mutating configuration.
func patchWarningsCABundle(ctx context.Context, client kubernetes.Interface, namespace, secret, configuration string) error {
	s, err := client.CoreV1().Secrets(namespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading Secret %s/%s: %w", namespace, secret, err)
	}
	b, err := webhookcert.Parse(s.Data)
	if err != nil {
		return fmt.Errorf("the Secret %s/%s: %w", namespace, secret, err)
	}
	want, err := b.CABundle()
	if err != nil {
		return err
	}
	configs := client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	cfg, err := configs.Get(ctx, configuration, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading ValidatingWebhookConfiguration %s: %w", configuration, err)
	}
	names, have := make([]string, len(cfg.Webhooks)), make([][]byte, len(cfg.Webhooks))
	for i, w := range cfg.Webhooks {
		names[i], have[i] = w.Name, w.ClientConfig.CABundle
	}
	patch, n, err := webhookcert.CABundlePatch(want, names, have)
	if err != nil || n == 0 {
		return err
	}
	if _, err := configs.Patch(ctx, cfg.Name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patching the CA bundle into ValidatingWebhookConfiguration %s: %w", cfg.Name, err)
	}
	return nil
}
