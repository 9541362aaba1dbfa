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
	"crypto/tls"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/webhookcert"
)

// selfManagedTLS are the flags of the webhook's own TLS: a CA and serving
// certificate it keeps in a Secret, shared with the other replicas, and
// whose CA it patches into its MutatingWebhookConfiguration (package
// webhookcert). The alternative is certificate files written by someone
// else (cert-manager), --tls-cert-file and --tls-private-key-file.
type selfManagedTLS struct {
	secret               string
	service              string
	extraNames           []string
	webhookConfiguration string
}

func (s *selfManagedTLS) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.secret, "tls-secret", "",
		"NAMESPACE/NAME of a Secret (created empty with the webhook) in which the replicas keep one CA and serving certificate, "+
			"renewed before they expire; instead of --tls-cert-file and --tls-private-key-file. Needs --tls-service and --webhook-configuration")
	fs.StringVar(&s.service, "tls-service", "",
		"with --tls-secret: the Service, in the Secret's namespace, the API server calls the webhook through; "+
			"the certificate names <service>.<namespace>.svc and <service>.<namespace>.svc.cluster.local")
	fs.StringSliceVar(&s.extraNames, "tls-extra-names", nil,
		"with --tls-secret: more DNS names or IP addresses for the certificate, for a webhook the API server calls by URL")
	fs.StringVar(&s.webhookConfiguration, "webhook-configuration", "",
		"with --tls-secret: the MutatingWebhookConfiguration into whose webhooks the CA bundle is patched")
}

// validateTLS checks that the flags choose one source of certificates.
func (o *options) validateTLS() error {
	files := o.certFile != "" || o.keyFile != ""
	s := o.selfTLS
	switch {
	case s.secret == "" && (o.certFile == "" || o.keyFile == ""):
		return errors.New("--tls-cert-file and --tls-private-key-file, or --tls-secret, are required: the API server calls webhooks over TLS only")
	case s.secret == "":
		if s.service != "" || s.webhookConfiguration != "" || len(s.extraNames) > 0 {
			return errors.New("--tls-service, --tls-extra-names and --webhook-configuration go with --tls-secret")
		}
		return nil
	case files:
		return errors.New("--tls-secret and --tls-cert-file/--tls-private-key-file are two sources of certificates: give one")
	case s.service == "" || s.webhookConfiguration == "":
		return errors.New("--tls-secret needs --tls-service and --webhook-configuration")
	}
	if _, _, err := s.secretRef(); err != nil {
		return err
	}
	for _, n := range append([]string{s.service}, s.extraNames...) {
		if strings.TrimSpace(n) == "" {
			return errors.New("--tls-service and --tls-extra-names may not be empty names")
		}
	}
	if errs := validation.IsDNS1035Label(s.service); len(errs) > 0 {
		return fmt.Errorf("--tls-service %q: %s", s.service, strings.Join(errs, "; "))
	}
	return nil
}

func (s *selfManagedTLS) secretRef() (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(s.secret, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--tls-secret %q: want NAMESPACE/NAME", s.secret)
	}
	return namespace, name, nil
}

// startCertificates starts the source of the serving certificate, which
// runs until certCtx ends, and returns its tls.Config.GetCertificate. With
// --tls-secret it waits, until ctx ends, for a first certificate: the
// server does not listen before it has one to serve.
func (o *options) startCertificates(ctx, certCtx context.Context, logger klog.Logger) (func(*tls.ClientHelloInfo) (*tls.Certificate, error), error) {
	if o.selfTLS.secret == "" {
		certs, err := newServingCert(o.certFile, o.keyFile)
		if err != nil {
			return nil, err
		}
		go certs.run(certCtx)
		return certs.get, nil
	}
	namespace, name, err := o.selfTLS.secretRef()
	if err != nil {
		return nil, err
	}
	restConfig, err := o.ungate.restConfig()
	if err != nil {
		return nil, fmt.Errorf("the API server's address and credentials (--kubeconfig, else in-cluster): %w", err)
	}
	restConfig.UserAgent = "windows-aware-admission"
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	names := append(webhookcert.ServiceNames(o.selfTLS.service, namespace), o.selfTLS.extraNames...)
	manager, err := webhookcert.NewManager(client, webhookcert.Config{
		Namespace: namespace, SecretName: name, WebhookConfiguration: o.selfTLS.webhookConfiguration, Names: names,
	}, logger)
	if err != nil {
		return nil, err
	}
	go manager.Run(certCtx)
	logger.Info("Waiting for the serving certificate", "secret", klog.KRef(namespace, name), "names", names)
	select {
	case <-manager.Ready():
		return manager.GetCertificate, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped before a serving certificate was available: %w", ctx.Err())
	}
}
