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
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	serveroptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// Modes of --metrics-auth.
const (
	// metricsAuthDelegated: /metrics answers a bearer token the API
	// server authenticates (TokenReview) and authorizes for get on the
	// non-resource URL /metrics (SubjectAccessReview), as kube-scheduler's
	// secure port does.
	metricsAuthDelegated = "delegated"
	// metricsAuthNone: /metrics answers anyone who reaches the port.
	metricsAuthNone = "none"
)

// Cache lifetimes of the API server's answers: kube-scheduler's defaults.
const (
	metricsTokenCacheTTL = 10 * time.Second
	metricsAllowCacheTTL = 10 * time.Second
	metricsDenyCacheTTL  = 10 * time.Second
)

// metricsAuthOptions say who may read /metrics.
type metricsAuthOptions struct {
	mode string
	// client asks the API server; nil: from --kubeconfig, else in-cluster.
	client kubernetes.Interface
}

func (m *metricsAuthOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&m.mode, "metrics-auth", metricsAuthDelegated,
		"who may read /metrics: delegated (a bearer token the API server authenticates and authorizes for get on /metrics, as kube-scheduler does) or none (anyone who reaches the port)")
}

// guard wraps the /metrics handler as the mode says. An empty mode is
// delegated: open metrics must be asked for.
func (m *metricsAuthOptions) guard(logger klog.Logger, metrics http.Handler, newClient func() (kubernetes.Interface, error)) (http.Handler, error) {
	switch m.mode {
	case metricsAuthNone:
		return metrics, nil
	case "", metricsAuthDelegated:
	default:
		return nil, fmt.Errorf("--metrics-auth=%q: want %s or %s", m.mode, metricsAuthDelegated, metricsAuthNone)
	}
	client := m.client
	if client == nil {
		c, err := newClient()
		if err != nil {
			return nil, fmt.Errorf("--metrics-auth=%s needs the API server (--kubeconfig, or in a cluster its ServiceAccount; --metrics-auth=%s turns it off): %w",
				metricsAuthDelegated, metricsAuthNone, err)
		}
		client = c
	}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		TokenAccessReviewClient:  client.AuthenticationV1(),
		TokenAccessReviewTimeout: 10 * time.Second,
		WebhookRetryBackoff:      serveroptions.DefaultAuthWebhookRetryBackoff(),
		CacheTTL:                 metricsTokenCacheTTL,
	}.New()
	if err != nil {
		return nil, err
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: client.AuthorizationV1(),
		AllowCacheTTL:             metricsAllowCacheTTL,
		DenyCacheTTL:              metricsDenyCacheTTL,
		WebhookRetryBackoff:       serveroptions.DefaultAuthWebhookRetryBackoff(),
	}.New()
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, ok, err := authn.AuthenticateRequest(r)
		if err != nil || !ok {
			if err != nil {
				logger.V(4).Info("Unauthenticated /metrics request", "err", err)
			}
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		decision, reason, err := authz.Authorize(r.Context(), authorizer.AttributesRecord{
			User:            res.User,
			Verb:            strings.ToLower(r.Method),
			Path:            r.URL.Path,
			ResourceRequest: false,
		})
		if decision != authorizer.DecisionAllow {
			logger.V(4).Info("Forbidden /metrics request", "user", res.User.GetName(), "reason", reason, "err", err)
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		metrics.ServeHTTP(w, r)
	}), nil
}
