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
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

const (
	publishDir = "../../manifests/publish"
	// The names of manifests/publish, which the chart gives the webhook's
	// objects under besideRelease.
	publishName    = "windows-aware-publish"
	publishWebhook = "00-windows-aware-publish"
	publishEnabled = `publish: {enabled: true}`
)

// TestChartPublishMatchesManifests: with publish.enabled, the chart renders
// the objects of manifests/beside and of manifests/publish, alike in
// everything that decides what runs and what it may do.
func TestChartPublishMatchesManifests(t *testing.T) {
	chart := renderChart(t, besideNamespace, publishEnabled)
	beside, publish := besideManifests(t), kustomizeManifests(t, publishDir)
	want := append(beside.keys(), publish.keys()...)
	sort.Strings(want)
	if diff := cmp.Diff(want, chart.keys()); diff != "" {
		t.Fatalf("objects (-beside and publish +chart):\n%s", diff)
	}

	t.Run("Deployment", func(t *testing.T) {
		m := get[*appsv1.Deployment](t, publish, "Deployment", besideNamespace, publishName)
		c := get[*appsv1.Deployment](t, chart, "Deployment", besideNamespace, publishName)
		if *m.Spec.Replicas != *c.Spec.Replicas {
			t.Errorf("replicas: manifests %d, chart %d", *m.Spec.Replicas, *c.Spec.Replicas)
		}
		for _, d := range []*appsv1.Deployment{m, c} {
			selectsOwnPods(t, "Deployment", d.Spec.Selector, d)
		}
		ms, cs := withoutAntiAffinitySelectors(m.Spec.Template.Spec), withoutAntiAffinitySelectors(c.Spec.Template.Spec)
		if diff := cmp.Diff(ms, cs); diff != "" {
			t.Errorf("pod spec (-manifests +chart):\n%s", diff)
		}
		// The webhook reads the scheduler's own configuration.
		scheduler := get[*appsv1.Deployment](t, chart, "Deployment", besideNamespace, besideRelease)
		if got, want := configMapOf(c), configMapOf(scheduler); got == "" || got != want {
			t.Errorf("the webhook reads ConfigMap %q, the scheduler %q", got, want)
		}
		if _, ok := c.Spec.Template.Annotations["checksum/config"]; !ok {
			t.Error("the webhook's pods do not restart on a new configuration")
		}
		// Neither Deployment's selector takes the other's pods.
		if s, _ := metav1.LabelSelectorAsSelector(scheduler.Spec.Selector); s.Matches(labels.Set(c.Spec.Template.Labels)) {
			t.Error("the scheduler's Deployment selects the webhook's pods")
		}
	})
	t.Run("MutatingWebhookConfiguration", func(t *testing.T) {
		m := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, publish, "MutatingWebhookConfiguration", "", publishWebhook)
		c := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, chart, "MutatingWebhookConfiguration", "", publishWebhook)
		if diff := cmp.Diff(m.Webhooks, c.Webhooks); diff != "" {
			t.Errorf("webhooks (-manifests +chart):\n%s", diff)
		}
	})
	t.Run("RBAC", func(t *testing.T) {
		for _, key := range publish.keys() {
			if strings.HasPrefix(key, "ClusterRole ") || strings.HasPrefix(key, "Role ") {
				if diff := cmp.Diff(ruleAtoms(roleRules(publish[key])), ruleAtoms(roleRules(chart[key])), cmpSorted); diff != "" {
					t.Errorf("%s rules (-manifests +chart):\n%s", key, diff)
				}
			}
			if b := bindingOf(publish[key]); b != nil {
				if diff := cmp.Diff(b, bindingOf(chart[key])); diff != "" {
					t.Errorf("%s (-manifests +chart):\n%s", key, diff)
				}
			}
		}
	})
	t.Run("ServiceAccount and Secret", func(t *testing.T) {
		m := get[*v1.ServiceAccount](t, publish, "ServiceAccount", besideNamespace, publishName)
		c := get[*v1.ServiceAccount](t, chart, "ServiceAccount", besideNamespace, publishName)
		if diff := cmp.Diff(m.AutomountServiceAccountToken, c.AutomountServiceAccountToken); diff != "" {
			t.Errorf("automountServiceAccountToken (-manifests +chart):\n%s", diff)
		}
		for set, s := range map[string]*v1.Secret{
			"manifests": get[*v1.Secret](t, publish, "Secret", besideNamespace, publishName+"-tls"),
			"chart":     get[*v1.Secret](t, chart, "Secret", besideNamespace, publishName+"-tls"),
		} {
			if s.Type != v1.SecretTypeOpaque || len(s.Data)+len(s.StringData) > 0 {
				t.Errorf("%s Secret: type %s, %d keys; want an empty Opaque Secret, which upgrades leave to the webhook", set, s.Type, len(s.Data)+len(s.StringData))
			}
		}
	})
	t.Run("Service and PodDisruptionBudget", func(t *testing.T) {
		for set, objs := range map[string]manifestSet{"manifests": publish, "chart": chart} {
			d := get[*appsv1.Deployment](t, objs, "Deployment", besideNamespace, publishName)
			svc := get[*v1.Service](t, objs, "Service", besideNamespace, publishName)
			selectsOwnPods(t, set+" Service", &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, d)
			pdb := get[*policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget", besideNamespace, publishName)
			selectsOwnPods(t, set+" PDB", pdb.Spec.Selector, d)
		}
		ms := get[*v1.Service](t, publish, "Service", besideNamespace, publishName)
		cs := get[*v1.Service](t, chart, "Service", besideNamespace, publishName)
		if diff := cmp.Diff(ms.Spec.Ports, cs.Spec.Ports); diff != "" {
			t.Errorf("ports (-manifests +chart):\n%s", diff)
		}
		mp := get[*policyv1.PodDisruptionBudget](t, publish, "PodDisruptionBudget", besideNamespace, publishName)
		cp := get[*policyv1.PodDisruptionBudget](t, chart, "PodDisruptionBudget", besideNamespace, publishName)
		if diff := cmp.Diff(mp.Spec.MaxUnavailable, cp.Spec.MaxUnavailable); diff != "" {
			t.Errorf("maxUnavailable (-manifests +chart):\n%s", diff)
		}
	})
}

// TestChartPublishTLS: each TLS mode renders what it needs and no more.
// Self-managed TLS: the Secret it keeps, and rights on that Secret and its
// webhook configuration by name, under the names its flags give.
// cert-manager: a Certificate for the Service's names, its CA injected into
// the configuration, its Secret mounted, and no rights and no token.
func TestChartPublishTLS(t *testing.T) {
	const ns = "tools"
	for _, tc := range []struct {
		name   string
		values string
		// wantIssuer is the issuer of the Certificate, kind/name; "" for
		// self-managed TLS.
		wantIssuer string
		// wantChartIssuer: the chart renders the self-signed Issuer.
		wantChartIssuer bool
	}{
		{name: "self-managed", values: publishEnabled},
		{
			name:       "cert-manager with a self-signed Issuer of the chart's",
			values:     `publish: {enabled: true, certManager: {enabled: true}}`,
			wantIssuer: "Issuer/" + publishName + "-selfsigned", wantChartIssuer: true,
		},
		{
			name:       "cert-manager with a ClusterIssuer of the cluster's",
			values:     `publish: {enabled: true, certManager: {enabled: true, issuerRef: {name: corp-ca, kind: ClusterIssuer}}}`,
			wantIssuer: "ClusterIssuer/corp-ca",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := renderChart(t, ns, tc.values)
			d := get[*appsv1.Deployment](t, m, "Deployment", ns, publishName)
			spec := d.Spec.Template.Spec
			args := strings.Join(spec.Containers[0].Command, " ")
			svc := get[*v1.Service](t, m, "Service", ns, publishName)
			cfg := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", "", publishWebhook)
			for _, w := range cfg.Webhooks {
				if ref := w.ClientConfig.Service; ref == nil || ref.Name != svc.Name || ref.Namespace != ns {
					t.Errorf("the webhook %s calls %+v, not the Service %s/%s", w.Name, ref, ns, svc.Name)
				}
			}
			_, hasRole := m[objectKey("Role", ns, publishName)]
			_, hasClusterRole := m[objectKey("ClusterRole", "", publishName)]
			_, hasIssuer := m[objectKey("Issuer", ns, publishName+"-selfsigned")]
			if hasIssuer != tc.wantChartIssuer {
				t.Errorf("chart's Issuer rendered %v, want %v", hasIssuer, tc.wantChartIssuer)
			}

			if tc.wantIssuer == "" {
				secret := get[*v1.Secret](t, m, "Secret", ns, publishName+"-tls")
				for _, want := range []string{"--tls-secret=" + ns + "/" + secret.Name, "--tls-service=" + svc.Name, "--webhook-configuration=" + cfg.Name} {
					if !strings.Contains(args, want) {
						t.Errorf("command %q lacks %s", args, want)
					}
				}
				if spec.AutomountServiceAccountToken == nil || !*spec.AutomountServiceAccountToken {
					t.Error("self-managed TLS without a token to reach its Secret")
				}
				role := get[*rbacv1.Role](t, m, "Role", ns, publishName)
				wantRole := append([]string{"get /secrets/" + secret.Name, "list /secrets/" + secret.Name, "watch /secrets/" + secret.Name, "update /secrets/" + secret.Name}, schedulerLeaseRead...)
				if diff := cmp.Diff(wantRole, ruleAtoms(role.Rules), cmpSorted); diff != "" {
					t.Errorf("Role rules (-want +got):\n%s", diff)
				}
				cluster := get[*rbacv1.ClusterRole](t, m, "ClusterRole", "", publishName)
				wantCluster := []string{"get admissionregistration.k8s.io/mutatingwebhookconfigurations/" + cfg.Name, "patch admissionregistration.k8s.io/mutatingwebhookconfigurations/" + cfg.Name}
				if diff := cmp.Diff(wantCluster, ruleAtoms(cluster.Rules), cmpSorted); diff != "" {
					t.Errorf("ClusterRole rules (-want +got):\n%s", diff)
				}
				if _, ok := cfg.Annotations["cert-manager.io/inject-ca-from"]; ok {
					t.Error("self-managed TLS asks cert-manager to inject a CA")
				}
				return
			}

			cert := get[*unstructured.Unstructured](t, m, "Certificate", ns, publishName)
			secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
			dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
			issuerKind, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "kind")
			issuerName, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "name")
			if got := issuerKind + "/" + issuerName; got != tc.wantIssuer {
				t.Errorf("Certificate issued by %s, want %s", got, tc.wantIssuer)
			}
			if want := []string{svc.Name + "." + ns + ".svc", svc.Name + "." + ns + ".svc.cluster.local"}; !slices.Equal(dnsNames, want) {
				t.Errorf("Certificate names %v, want %v", dnsNames, want)
			}
			if got, want := cfg.Annotations["cert-manager.io/inject-ca-from"], ns+"/"+cert.GetName(); got != want {
				t.Errorf("inject-ca-from %q, want %q", got, want)
			}
			if !slices.ContainsFunc(spec.Volumes, func(v v1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == secretName }) {
				t.Errorf("the Certificate's Secret %s is not mounted: %+v", secretName, spec.Volumes)
			}
			if !strings.Contains(args, "--tls-cert-file=") || strings.Contains(args, "--tls-secret") {
				t.Errorf("command %q: want the certificate files, not --tls-secret", args)
			}
			// With cert-manager the webhook calls the API only to have
			// the API server review the tokens of /metrics requests, and
			// to read the scheduler's Lease, which the opt-in follows.
			if spec.AutomountServiceAccountToken == nil || !*spec.AutomountServiceAccountToken || !hasRole || hasClusterRole {
				t.Errorf("with cert-manager the webhook calls the API only for /metrics and the scheduler's Lease: token %v, Role %v, ClusterRole %v", spec.AutomountServiceAccountToken, hasRole, hasClusterRole)
			}
			if hasRole {
				if diff := cmp.Diff(schedulerLeaseRead, ruleAtoms(get[*rbacv1.Role](t, m, "Role", ns, publishName).Rules), cmpSorted); diff != "" {
					t.Errorf("with cert-manager, Role rules (-want +got):\n%s", diff)
				}
			}
			open := renderChart(t, ns, tc.values, `publish: {metricsAuth: none, optInFollowsScheduler: false}`)
			openSpec := get[*appsv1.Deployment](t, open, "Deployment", ns, publishName).Spec.Template.Spec
			if openSpec.AutomountServiceAccountToken == nil || *openSpec.AutomountServiceAccountToken || !slices.Contains(openSpec.Containers[0].Command, "--metrics-auth=none") {
				t.Errorf("with cert-manager and metricsAuth none the webhook calls no API: token %v, command %v", openSpec.AutomountServiceAccountToken, openSpec.Containers[0].Command)
			}
			if _, ok := open[objectKey("ClusterRoleBinding", "", publishName+"-auth-delegator")]; ok {
				t.Error("metricsAuth none still binds system:auth-delegator")
			}
			if _, ok := m[objectKey("Secret", ns, publishName+"-tls")]; ok {
				t.Error("an empty Secret for self-managed TLS beside cert-manager's")
			}
		})
	}
}

// TestChartPublishGate: when the args gate pods for their registry, the
// chart renders the gate remover of manifests/publish-gate alike (its
// Deployment, ServiceAccount, roles and ValidatingAdmissionPolicy), and the
// webhook keeps no right on pods and no Lease; with cert-manager the
// webhook has no token at all; with a gateTimeout of 0 no gate remover is
// rendered.
func TestChartPublishGate(t *testing.T) {
	const gating = `{publish: {enabled: true}, pluginArgs: {imageResolution: {scope: Windows, registries: [{host: mcr.microsoft.com}], credentials: {podPullSecrets: true}}}, imageResolution: {pullSecretNamespaces: [team-a]}}`
	const remover = publishName + "-ungate"
	gate := manifestSet{}
	for _, f := range []string{"serviceaccount.yaml", "rbac.yaml", "policy.yaml", "deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join(publishDir+"-gate", f))
		if err != nil {
			t.Fatal(err)
		}
		for k, o := range decodeManifests(t, "publish-gate/"+f, data, besideNamespace) {
			gate[k] = o
		}
	}
	m := renderChart(t, besideNamespace, gating)
	for _, key := range gate.keys() {
		if _, ok := m[key]; !ok {
			t.Errorf("the chart does not render %s of manifests/publish-gate", key)
			continue
		}
		if strings.HasPrefix(key, "ClusterRole ") || strings.HasPrefix(key, "Role ") {
			if diff := cmp.Diff(ruleAtoms(roleRules(gate[key])), ruleAtoms(roleRules(m[key])), cmpSorted); diff != "" {
				t.Errorf("%s rules (-manifests +chart):\n%s", key, diff)
			}
		}
		if b := bindingOf(gate[key]); b != nil {
			if diff := cmp.Diff(b, bindingOf(m[key])); diff != "" {
				t.Errorf("%s (-manifests +chart):\n%s", key, diff)
			}
		}
	}
	mp := get[*admissionregistrationv1.ValidatingAdmissionPolicy](t, gate, "ValidatingAdmissionPolicy", "", remover)
	cp := get[*admissionregistrationv1.ValidatingAdmissionPolicy](t, m, "ValidatingAdmissionPolicy", "", remover)
	if diff := cmp.Diff(mp.Spec, cp.Spec); diff != "" {
		t.Errorf("policy (-manifests +chart):\n%s", diff)
	}
	mb := get[*admissionregistrationv1.ValidatingAdmissionPolicyBinding](t, gate, "ValidatingAdmissionPolicyBinding", "", remover)
	cb := get[*admissionregistrationv1.ValidatingAdmissionPolicyBinding](t, m, "ValidatingAdmissionPolicyBinding", "", remover)
	if diff := cmp.Diff(mb.Spec, cb.Spec); diff != "" {
		t.Errorf("policy binding (-manifests +chart):\n%s", diff)
	}
	md := get[*appsv1.Deployment](t, gate, "Deployment", besideNamespace, remover)
	cd := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, remover)
	if diff := cmp.Diff(withoutAntiAffinitySelectors(md.Spec.Template.Spec), withoutAntiAffinitySelectors(cd.Spec.Template.Spec)); diff != "" {
		t.Errorf("gate remover's pod spec (-manifests +chart):\n%s", diff)
	}
	selectsOwnPods(t, "gate remover Deployment", cd.Spec.Selector, cd)
	webhook := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, publishName)
	if s, _ := metav1.LabelSelectorAsSelector(webhook.Spec.Selector); s.Matches(labels.Set(cd.Spec.Template.Labels)) {
		t.Error("the webhook's Deployment selects the gate remover's pods")
	}

	// The webhook: no right on pods, no Lease of its own (it only reads
	// the scheduler's), no leader election.
	var webhookAtoms []string
	for _, key := range []string{objectKey("ClusterRole", "", publishName), objectKey("Role", besideNamespace, publishName)} {
		webhookAtoms = append(webhookAtoms, ruleAtoms(roleRules(m[key]))...)
	}
	for _, a := range webhookAtoms {
		if slices.Contains(schedulerLeaseRead, a) {
			continue
		}
		if strings.Contains(a, "/pods") || strings.Contains(a, "leases") || strings.Contains(a, "events") {
			t.Errorf("the webhook's identity may %s", a)
		}
	}
	if args := strings.Join(webhook.Spec.Template.Spec.Containers[0].Command, " "); strings.Contains(args, "--leader-elect") || strings.Contains(args, "--ungate") {
		t.Errorf("the webhook removes gates: %q", args)
	}
	pullSecrets := get[*rbacv1.RoleBinding](t, m, "RoleBinding", "team-a", besideRelease+":image-pull-secrets")
	for _, s := range pullSecrets.Subjects {
		if s.Name == publishName {
			t.Errorf("the webhook may read pull secrets: %+v", pullSecrets.Subjects)
		}
	}
	if !slices.ContainsFunc(pullSecrets.Subjects, func(s rbacv1.Subject) bool { return s.Name == remover }) {
		t.Errorf("the gate remover may not read the pull secrets it resolves gated pods with: %+v", pullSecrets.Subjects)
	}

	// cert-manager and no metrics authorization: the webhook calls no API,
	// the gate remover keeps its token.
	m = renderChart(t, besideNamespace, gating, `publish: {certManager: {enabled: true}, metricsAuth: none, optInFollowsScheduler: false}`)
	if token := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, publishName).Spec.Template.Spec.AutomountServiceAccountToken; token == nil || *token {
		t.Error("a webhook with cert-manager gets a token")
	}
	if token := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, remover).Spec.Template.Spec.AutomountServiceAccountToken; token == nil || !*token {
		t.Error("the gate remover gets no token")
	}

	// No gate, no gate remover.
	m = renderChart(t, besideNamespace, gating, `pluginArgs: {imageResolution: {gateTimeout: 0s}}`)
	for _, key := range gate.keys() {
		if _, ok := m[key]; ok {
			t.Errorf("a profile that gates nothing renders %s", key)
		}
	}
}

// TestChartPublishValues renders the webhook with values other than the
// defaults.
func TestChartPublishValues(t *testing.T) {
	deployment := func(t *testing.T, m manifestSet) *appsv1.Deployment {
		return get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, publishName)
	}
	webhook := func(t *testing.T, m manifestSet) admissionregistrationv1.MutatingWebhook {
		cfg := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", "", publishWebhook)
		for _, w := range cfg.Webhooks {
			if w.Name == "publish.windows-aware.x-k8s.io" {
				return w
			}
		}
		t.Fatalf("no webhook publish.windows-aware.x-k8s.io in %s", cfg.Name)
		return admissionregistrationv1.MutatingWebhook{}
	}
	for _, tc := range []struct {
		name   string
		values string
		check  func(t *testing.T, m manifestSet)
	}{
		{
			name:   "the profile's name scopes the webhook and its decisions",
			values: `{schedulerName: win-sched, publish: {enabled: true}}`,
			check: func(t *testing.T, m manifestSet) {
				if expr := webhook(t, m).MatchConditions[0].Expression; expr != "object.spec.schedulerName == 'win-sched'" {
					t.Errorf("matchCondition %q", expr)
				}
				if args := strings.Join(deployment(t, m).Spec.Template.Spec.Containers[0].Command, " "); !strings.Contains(args, "--profile=win-sched") {
					t.Errorf("command %q lacks --profile=win-sched", args)
				}
			},
		},
		{
			name:   "failure policy and timeout",
			values: `publish: {enabled: true, failurePolicy: Fail, timeoutSeconds: 10}`,
			check: func(t *testing.T, m manifestSet) {
				w := webhook(t, m)
				if *w.FailurePolicy != admissionregistrationv1.Fail || *w.TimeoutSeconds != 10 {
					t.Errorf("failurePolicy %s, timeoutSeconds %d", *w.FailurePolicy, *w.TimeoutSeconds)
				}
			},
		},
		{
			name:   "one replica has no PodDisruptionBudget",
			values: `publish: {enabled: true, replicas: 1}`,
			check: func(t *testing.T, m manifestSet) {
				if _, ok := m[objectKey("PodDisruptionBudget", besideNamespace, publishName)]; ok {
					t.Error("a PodDisruptionBudget for a single replica blocks every drain")
				}
			},
		},
		{
			name:   "node selector keeps Linux, required anti-affinity",
			values: `publish: {enabled: true, nodeSelector: {pool: system}, podAntiAffinity: required}`,
			check: func(t *testing.T, m manifestSet) {
				d := deployment(t, m)
				if diff := cmp.Diff(map[string]string{"pool": "system", "kubernetes.io/os": "linux"}, d.Spec.Template.Spec.NodeSelector); diff != "" {
					t.Errorf("nodeSelector (-want +got):\n%s", diff)
				}
				terms := d.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
				if len(terms) != 1 {
					t.Fatalf("required terms %+v", terms)
				}
				selectsOwnPods(t, "anti-affinity", terms[0].LabelSelector, d)
			},
		},
		{
			name:   "the scheduler's image, the webhook's command",
			values: `{image: {repository: registry.example.com/was, tag: v9}, publish: {enabled: true, extraArgs: ["--v=2"]}}`,
			check: func(t *testing.T, m manifestSet) {
				c := deployment(t, m).Spec.Template.Spec.Containers[0]
				if c.Image != "registry.example.com/was:v9" || c.Command[0] != "/admission" || c.Command[len(c.Command)-1] != "--v=2" {
					t.Errorf("image %s, command %v", c.Image, c.Command)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, renderChart(t, besideNamespace, tc.values))
		})
	}
}

// TestChartPublishRejectsBadValues: values the API server would refuse,
// or that would misplace the webhook, fail `helm template` naming the field.
func TestChartPublishRejectsBadValues(t *testing.T) {
	for _, tc := range []struct {
		name, values, want string
	}{
		{name: "unknown failure policy", values: `publish: {enabled: true, failurePolicy: Retry}`, want: "/publish/failurePolicy"},
		{name: "timeout beyond the API's", values: `publish: {enabled: true, timeoutSeconds: 31}`, want: "/publish/timeoutSeconds"},
		{name: "no timeout", values: `publish: {enabled: true, timeoutSeconds: 0}`, want: "/publish/timeoutSeconds"},
		{name: "misspelt value", values: `publish: {enable: true}`, want: "enable"},
		{name: "bad issuer name", values: `publish: {enabled: true, certManager: {enabled: true, issuerRef: {name: Corp_CA}}}`, want: "/publish/certManager/issuerRef/name"},
		{name: "Windows nodes for the webhook", values: `publish: {enabled: true, nodeSelector: {kubernetes.io/os: windows}}`, want: "kubernetes.io/os"},
		{name: "a configurable opt-out label", values: `publish: {enabled: true, optOutLabel: skip}`, want: "optOutLabel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := helmTemplate(t, besideNamespace, tc.values)
			if err == nil {
				t.Fatal("helm rendered it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not name %s: %v", tc.want, err)
			}
		})
	}
}

// withoutAntiAffinitySelectors returns a copy of the pod spec whose
// anti-affinity terms select nothing, for specs whose pods carry different
// labels.
func withoutAntiAffinitySelectors(spec v1.PodSpec) *v1.PodSpec {
	s := spec.DeepCopy()
	if s.Affinity != nil && s.Affinity.PodAntiAffinity != nil {
		for i := range s.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			s.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm.LabelSelector = nil
		}
	}
	return s
}

// configMapOf names the ConfigMap mounted as the Deployment's "config"
// volume.
func configMapOf(d *appsv1.Deployment) string {
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == "config" && v.ConfigMap != nil {
			return v.ConfigMap.Name
		}
	}
	return ""
}

// schedulerLeaseRead is what the webhook may do with the scheduler's
// Lease, which the opt-in follows: read it, by name.
var schedulerLeaseRead = []string{
	"get coordination.k8s.io/leases/" + besideRelease,
	"list coordination.k8s.io/leases/" + besideRelease,
	"watch coordination.k8s.io/leases/" + besideRelease,
}

// TestChartOptInFollowsScheduler: where pods opt in, the webhook follows
// the scheduler's Lease by default, and reads it by name; with
// publish.optInFollowsScheduler false, or no opt-in, it neither follows nor
// reads it.
func TestChartOptInFollowsScheduler(t *testing.T) {
	tests := []struct {
		name   string
		values string
		want   bool
	}{
		{name: "namespace opt-in, the default", values: `publish: {enabled: true}`, want: true},
		{name: "cluster-wide opt-in", values: `publish: {enabled: true, namespaceOptIn: false, clusterWideOptIn: true}`, want: true},
		{name: "turned off", values: `publish: {enabled: true, optInFollowsScheduler: false}`},
		{name: "no opt-in", values: `publish: {enabled: true, namespaceOptIn: false}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := renderChart(t, besideNamespace, tc.values)
			args := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, publishName).Spec.Template.Spec.Containers[0].Command
			flag := "--scheduler-lease=" + besideNamespace + "/" + besideRelease
			if got := slices.Contains(args, flag); got != tc.want {
				t.Errorf("command %v has %s: %v, want %v", args, flag, got, tc.want)
			}
			var atoms []string
			if role, ok := m[objectKey("Role", besideNamespace, publishName)]; ok {
				atoms = ruleAtoms(roleRules(role))
			}
			for _, a := range schedulerLeaseRead {
				if got := slices.Contains(atoms, a); got != tc.want {
					t.Errorf("the webhook may %s: %v, want %v", a, got, tc.want)
				}
			}
		})
	}
}
