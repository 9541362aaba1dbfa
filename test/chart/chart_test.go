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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestChartMatchesBeside: `helm template` with the default values, released
// as windows-aware-scheduler into kube-system, gives the objects of
// manifests/beside, alike in everything that decides what runs and what it
// may do; only Helm's labels differ.
func TestChartMatchesBeside(t *testing.T) {
	chart := renderChart(t, besideNamespace)
	beside := besideManifests(t)
	if diff := cmp.Diff(beside.keys(), chart.keys()); diff != "" {
		t.Fatalf("objects (-beside +chart):\n%s", diff)
	}

	const name = besideRelease
	t.Run("Deployment", func(t *testing.T) {
		b := get[*appsv1.Deployment](t, beside, "Deployment", besideNamespace, name)
		c := get[*appsv1.Deployment](t, chart, "Deployment", besideNamespace, name)
		if *b.Spec.Replicas != *c.Spec.Replicas {
			t.Errorf("replicas: beside %d, chart %d", *b.Spec.Replicas, *c.Spec.Replicas)
		}
		for _, d := range []*appsv1.Deployment{b, c} {
			selectsOwnPods(t, "Deployment", d.Spec.Selector, d)
		}
		// The anti-affinity terms select each one's own pods (checked
		// above); beyond their label selectors the pod specs are equal.
		bs, cs := b.Spec.Template.Spec.DeepCopy(), c.Spec.Template.Spec.DeepCopy()
		for _, s := range []*v1.PodSpec{bs, cs} {
			if s.Affinity != nil && s.Affinity.PodAntiAffinity != nil {
				for i := range s.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
					term := &s.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm
					term.LabelSelector = nil
				}
			}
		}
		if diff := cmp.Diff(bs, cs); diff != "" {
			t.Errorf("pod spec (-beside +chart):\n%s", diff)
		}
	})
	t.Run("scheduler configuration", func(t *testing.T) {
		b := get[*v1.ConfigMap](t, beside, "ConfigMap", besideNamespace, name+"-config")
		c := get[*v1.ConfigMap](t, chart, "ConfigMap", besideNamespace, name+"-config")
		if diff := cmp.Diff(parseYAMLData(t, b.Data), parseYAMLData(t, c.Data)); diff != "" {
			t.Errorf("KubeSchedulerConfiguration (-beside +chart):\n%s", diff)
		}
		// kubectl windows-aware finds either by these labels.
		for _, cm := range []*v1.ConfigMap{b, c} {
			for k, v := range wellknown.ConfigMapLabels {
				if cm.Labels[k] != v {
					t.Errorf("ConfigMap %s/%s: label %s=%q, want %q (kubectl windows-aware finds the configuration by it)", cm.Namespace, cm.Name, k, cm.Labels[k], v)
				}
			}
		}
	})
	t.Run("RBAC", func(t *testing.T) {
		for _, kind := range []string{"ClusterRole", "Role"} {
			for _, key := range beside.keys() {
				if !strings.HasPrefix(key, kind+" ") {
					continue
				}
				if diff := cmp.Diff(ruleAtoms(roleRules(beside[key])), ruleAtoms(roleRules(chart[key])), cmpSorted); diff != "" {
					t.Errorf("%s rules (-beside +chart):\n%s", key, diff)
				}
			}
		}
		for _, key := range beside.keys() {
			b, c := bindingOf(beside[key]), bindingOf(chart[key])
			if b == nil {
				continue
			}
			if diff := cmp.Diff(b, c); diff != "" {
				t.Errorf("%s (-beside +chart):\n%s", key, diff)
			}
		}
	})
	t.Run("metrics Service", func(t *testing.T) {
		b := get[*v1.Service](t, beside, "Service", besideNamespace, name+"-metrics")
		c := get[*v1.Service](t, chart, "Service", besideNamespace, name+"-metrics")
		if diff := cmp.Diff(b.Spec.Ports, c.Spec.Ports); diff != "" {
			t.Errorf("ports (-beside +chart):\n%s", diff)
		}
		if b.Spec.Type != c.Spec.Type {
			t.Errorf("type: beside %s, chart %s", b.Spec.Type, c.Spec.Type)
		}
		for set, svc := range map[string]*v1.Service{"beside": b, "chart": c} {
			d := get[*appsv1.Deployment](t, map[string]manifestSet{"beside": beside, "chart": chart}[set], "Deployment", besideNamespace, name)
			selectsOwnPods(t, set+" Service", &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, d)
		}
	})
	t.Run("PodDisruptionBudget", func(t *testing.T) {
		b := get[*policyv1.PodDisruptionBudget](t, beside, "PodDisruptionBudget", besideNamespace, name)
		c := get[*policyv1.PodDisruptionBudget](t, chart, "PodDisruptionBudget", besideNamespace, name)
		if diff := cmp.Diff(b.Spec.MaxUnavailable, c.Spec.MaxUnavailable); diff != "" {
			t.Errorf("maxUnavailable (-beside +chart):\n%s", diff)
		}
		selectsOwnPods(t, "beside PDB", b.Spec.Selector, get[*appsv1.Deployment](t, beside, "Deployment", besideNamespace, name))
		selectsOwnPods(t, "chart PDB", c.Spec.Selector, get[*appsv1.Deployment](t, chart, "Deployment", besideNamespace, name))
	})
}

// selectsOwnPods fails unless selector selects the Deployment's pods.
func selectsOwnPods(t *testing.T, what string, selector *metav1.LabelSelector, d *appsv1.Deployment) {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil || s.Empty() || !s.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("%s: selector %v does not select the pods %v (%v)", what, selector, d.Spec.Template.Labels, err)
	}
}

// parseYAMLData parses every value of a ConfigMap as YAML, so that comments
// and layout do not count.
func parseYAMLData(t *testing.T, data map[string]string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range data {
		var parsed any
		if err := utilyaml.Unmarshal([]byte(v), &parsed); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		out[k] = parsed
	}
	return out
}

func roleRules(obj any) []rbacv1.PolicyRule {
	switch r := obj.(type) {
	case *rbacv1.ClusterRole:
		return r.Rules
	case *rbacv1.Role:
		return r.Rules
	}
	return nil
}

// binding is what a RoleBinding or ClusterRoleBinding grants, to whom.
type binding struct {
	RoleRef  rbacv1.RoleRef
	Subjects []rbacv1.Subject
}

func bindingOf(obj any) *binding {
	switch b := obj.(type) {
	case *rbacv1.ClusterRoleBinding:
		return &binding{b.RoleRef, b.Subjects}
	case *rbacv1.RoleBinding:
		return &binding{b.RoleRef, b.Subjects}
	}
	return nil
}

// ruleAtoms expands rules into one "verb group/resource[/name]" string per
// permission, so that two ways of writing the same rules compare equal.
func ruleAtoms(rules []rbacv1.PolicyRule) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range rules {
		for _, verb := range r.Verbs {
			for _, url := range r.NonResourceURLs {
				add(verb + " " + url)
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					if len(r.ResourceNames) == 0 {
						add(verb + " " + g + "/" + res)
					}
					for _, n := range r.ResourceNames {
						add(verb + " " + g + "/" + res + "/" + n)
					}
				}
			}
		}
	}
	return out
}

// TestChartAppVersionIsTheSchedulers: the chart's appVersion, the default
// image tag, is the VERSION the binary is stamped with.
func TestChartAppVersionIsTheSchedulers(t *testing.T) {
	version, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	data, err := os.ReadFile(chartDir + "/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := utilyaml.Unmarshal(data, &chart); err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(version)); chart.AppVersion != want {
		t.Errorf("Chart.yaml appVersion %q, VERSION %q", chart.AppVersion, want)
	}
}

// TestChartLeaseIsOwned: the chart ships its lease, so the scheduler needs
// only get and update on it by name.
func TestChartLeaseIsOwned(t *testing.T) {
	chart := renderChart(t, "schedulers", `leaderElection: {leaseName: my-lease}`)
	lease := get[*coordinationv1.Lease](t, chart, "Lease", "schedulers", "my-lease")
	if lease.Spec.HolderIdentity != nil {
		t.Errorf("the chart sets a holder: %v", *lease.Spec.HolderIdentity)
	}
	role := get[*rbacv1.Role](t, chart, "Role", "schedulers", besideRelease+":leader-election")
	want := []string{"get coordination.k8s.io/leases/my-lease", "update coordination.k8s.io/leases/my-lease"}
	if diff := cmp.Diff(want, ruleAtoms(role.Rules), cmpSorted); diff != "" {
		t.Errorf("lease rules (-want +got):\n%s", diff)
	}
	cm := get[*v1.ConfigMap](t, chart, "ConfigMap", "schedulers", besideRelease+"-config")
	cfg := parseYAMLData(t, cm.Data)["scheduler-config.yaml"].(map[string]any)
	le := cfg["leaderElection"].(map[string]any)
	if le["resourceName"] != "my-lease" || le["resourceNamespace"] != "schedulers" {
		t.Errorf("leaderElection %v, want the lease schedulers/my-lease", le)
	}
	// The client CA of delegated authentication is read in kube-system,
	// wherever the release is.
	get[*rbacv1.RoleBinding](t, chart, "RoleBinding", "kube-system", besideRelease+":extension-apiserver-authentication-reader")
}

// TestChartValues renders the chart with values other than the defaults.
func TestChartValues(t *testing.T) {
	deployment := func(t *testing.T, m manifestSet) *appsv1.Deployment {
		return get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, besideRelease)
	}
	for _, tc := range []struct {
		name   string
		values string
		check  func(t *testing.T, m manifestSet)
	}{
		{
			name:   "host network binds to loopback and drops the Service",
			values: `hostNetwork: true`,
			check: func(t *testing.T, m manifestSet) {
				d := deployment(t, m)
				spec, c := d.Spec.Template.Spec, d.Spec.Template.Spec.Containers[0]
				if !spec.HostNetwork || spec.DNSPolicy != v1.DNSClusterFirstWithHostNet {
					t.Errorf("hostNetwork %v, dnsPolicy %s", spec.HostNetwork, spec.DNSPolicy)
				}
				if !strings.Contains(strings.Join(c.Command, " "), "--bind-address=127.0.0.1") {
					t.Errorf("command %v does not bind to 127.0.0.1", c.Command)
				}
				if c.LivenessProbe.HTTPGet.Host != "127.0.0.1" || c.ReadinessProbe.HTTPGet.Host != "127.0.0.1" {
					t.Error("probes do not reach 127.0.0.1")
				}
				if _, ok := m[objectKey("Service", besideNamespace, besideRelease+"-metrics")]; ok {
					t.Error("a metrics Service that cannot reach the loopback port")
				}
			},
		},
		{
			name:   "node selector keeps Linux",
			values: `nodeSelector: {pool: system}`,
			check: func(t *testing.T, m manifestSet) {
				want := map[string]string{"pool": "system", "kubernetes.io/os": "linux"}
				if diff := cmp.Diff(want, deployment(t, m).Spec.Template.Spec.NodeSelector); diff != "" {
					t.Errorf("nodeSelector (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:   "required anti-affinity",
			values: `podAntiAffinity: required`,
			check: func(t *testing.T, m manifestSet) {
				d := deployment(t, m)
				terms := d.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
				if len(terms) != 1 || terms[0].TopologyKey != "kubernetes.io/hostname" {
					t.Fatalf("required terms %+v", terms)
				}
				selectsOwnPods(t, "anti-affinity", terms[0].LabelSelector, d)
			},
		},
		{
			name:   "one replica has no PodDisruptionBudget",
			values: `replicas: 1`,
			check: func(t *testing.T, m manifestSet) {
				if _, ok := m[objectKey("PodDisruptionBudget", besideNamespace, besideRelease)]; ok {
					t.Error("a PodDisruptionBudget for a single replica blocks every drain")
				}
			},
		},
		{
			name:   "ServiceMonitor",
			values: `metrics: {serviceMonitor: {enabled: true, labels: {release: prom}}}`,
			check: func(t *testing.T, m manifestSet) {
				sm := get[*unstructured.Unstructured](t, m, "ServiceMonitor", besideNamespace, besideRelease)
				svc := get[*v1.Service](t, m, "Service", besideNamespace, besideRelease+"-metrics")
				eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
				if len(eps) != 1 || eps[0].(map[string]any)["port"] != svc.Spec.Ports[0].Name || eps[0].(map[string]any)["scheme"] != "https" {
					t.Errorf("endpoints %v do not scrape the Service's port %q over HTTPS", eps, svc.Spec.Ports[0].Name)
				}
				sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
				if !labels.SelectorFromSet(sel).Matches(labels.Set(svc.Labels)) {
					t.Errorf("selector %v does not select the Service %v", sel, svc.Labels)
				}
				if sm.GetLabels()["release"] != "prom" {
					t.Errorf("labels %v lack release: prom", sm.GetLabels())
				}
			},
		},
		{
			name:   "image digest",
			values: `image: {repository: registry.example.com/was, digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}`,
			check: func(t *testing.T, m manifestSet) {
				want := "registry.example.com/was@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
				if got := deployment(t, m).Spec.Template.Spec.Containers[0].Image; got != want {
					t.Errorf("image %s, want %s", got, want)
				}
			},
		},
		{
			name:   "extra cluster role rules",
			values: `rbac: {extraClusterRoleRules: [{apiGroups: [scheduling.k8s.io], resources: [podgroups], verbs: [get, list, watch]}]}`,
			check: func(t *testing.T, m manifestSet) {
				role := get[*rbacv1.ClusterRole](t, m, "ClusterRole", "", besideRelease)
				if atoms := ruleAtoms(role.Rules); !contains(atoms, "watch scheduling.k8s.io/podgroups") {
					t.Errorf("rules %v lack the extra rule", atoms)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, renderChart(t, besideNamespace, tc.values))
		})
	}
}

// TestChartRejectsBadValues: values the scheduler would refuse at start, or
// that would misplace it, fail `helm template` (and so `helm install`) with
// a message that names the field.
func TestChartRejectsBadValues(t *testing.T) {
	for _, tc := range []struct {
		name, values, want string
	}{
		{name: "unknown defaultOS", values: `pluginArgs: {defaultOS: macos}`, want: "/pluginArgs/defaultOS"},
		{name: "unknown mode", values: `pluginArgs: {compatibilityMode: hyperv}`, want: "/pluginArgs/compatibilityMode"},
		{name: "misspelt arg", values: `pluginArgs: {defaultOs: linux}`, want: "defaultOs"},
		{name: "bad extra build", values: `pluginArgs: {extraReleases: [{token: ltsc2028, build: ten}]}`, want: "/pluginArgs/extraReleases/0/build"},
		{name: "bad extra token", values: `pluginArgs: {extraReleases: [{token: ltsc-2028, build: 10.0.30000}]}`, want: "/pluginArgs/extraReleases/0/token"},
		{name: "extra release without build", values: `pluginArgs: {extraReleases: [{token: ltsc2028}]}`, want: "/pluginArgs/extraReleases/0"},
		{name: "bad taint key", values: `pluginArgs: {osTaints: {keys: [os, "not a key!"]}}`, want: "/pluginArgs/osTaints/keys/1"},
		{name: "bad taint effect", values: `pluginArgs: {osTaints: {effects: [Sometimes]}}`, want: "/pluginArgs/osTaints/effects/0"},
		{name: "PreferNoSchedule", values: `pluginArgs: {osTaints: {effects: [PreferNoSchedule]}}`, want: "/pluginArgs/osTaints/effects/0"},
		{name: "NoExecute", values: `pluginArgs: {osTaints: {effects: [NoSchedule, NoExecute]}}`, want: "/pluginArgs/osTaints/effects/1"},
		{name: "no keys", values: `pluginArgs: {osTaints: {keys: []}}`, want: "/pluginArgs/osTaints/keys"},
		{name: "no effects", values: `pluginArgs: {osTaints: {effects: []}}`, want: "/pluginArgs/osTaints/effects"},
		{name: "unknown scope", values: `pluginArgs: {imageResolution: {scope: Linux}}`, want: "/pluginArgs/imageResolution/scope"},
		{name: "a scope YAML reads as a boolean", values: `pluginArgs: {imageResolution: {scope: off}}`, want: "/pluginArgs/imageResolution/scope"},
		{name: "unknown onFailure", values: `pluginArgs: {imageResolution: {onFailure: Retry}}`, want: "/pluginArgs/imageResolution/onFailure"},
		{name: "resolution without registries", values: `pluginArgs: {imageResolution: {scope: Windows}}`, want: "/pluginArgs/imageResolution"},
		{name: "resolution with no registry", values: `pluginArgs: {imageResolution: {scope: Undeclared, registries: []}}`, want: "/pluginArgs/imageResolution/registries"},
		{name: "registry without host", values: `pluginArgs: {imageResolution: {registries: [{endpoints: [mirror.local]}]}}`, want: "/pluginArgs/imageResolution/registries/0"},
		{name: "misspelt registry field", values: `pluginArgs: {imageResolution: {registries: [{host: mcr.microsoft.com, allowPrivateIPs: true}]}}`, want: "allowPrivateIPs"},
		{name: "endpoint with a path", values: `pluginArgs: {imageResolution: {registries: [{host: docker.io, endpoints: ["https://mirror.local/v2"]}]}}`, want: "/pluginArgs/imageResolution/registries/0/endpoints/0"},
		{name: "relative caFile", values: `pluginArgs: {imageResolution: {registries: [{host: registry.local, caFile: ca.pem}]}}`, want: "/pluginArgs/imageResolution/registries/0/caFile"},
		{name: "gate timeout without unit", values: `pluginArgs: {imageResolution: {gateTimeout: 10}}`, want: "/pluginArgs/imageResolution/gateTimeout"},
		{name: "Reject that never waits", values: `pluginArgs: {imageResolution: {onFailure: Reject, gateTimeout: 0s}}`, want: "/pluginArgs/imageResolution/gateTimeout"},
		{name: "zero request timeout", values: `pluginArgs: {imageResolution: {requestTimeout: 0s}}`, want: "/pluginArgs/imageResolution/requestTimeout"},
		{name: "zero tag TTL", values: `pluginArgs: {imageResolution: {cache: {tagTTL: "0"}}}`, want: "/pluginArgs/imageResolution/cache/tagTTL"},
		{name: "no workers", values: `pluginArgs: {imageResolution: {concurrency: {workers: 0}}}`, want: "/pluginArgs/imageResolution/concurrency/workers"},
		{name: "cache beyond int32", values: `pluginArgs: {imageResolution: {cache: {maxEntries: 3000000000}}}`, want: "/pluginArgs/imageResolution/cache/maxEntries"},
		{name: "relative docker config file", values: `pluginArgs: {imageResolution: {credentials: {dockerConfigFile: config.json}}}`, want: "/pluginArgs/imageResolution/credentials/dockerConfigFile"},
		{name: "docker config file not in the pod", values: `pluginArgs: {imageResolution: {scope: Windows, registries: [{host: mcr.microsoft.com}], credentials: {dockerConfigFile: /root/.docker/config.json}}}`, want: "imageResolution.credentials.dockerConfigSecret"},
		{name: "docker config file beside the chart's", values: `{pluginArgs: {imageResolution: {credentials: {dockerConfigFile: /creds/config.json}}}, imageResolution: {credentials: {dockerConfigSecret: regcred}}}`, want: "pluginArgs.imageResolution.credentials.dockerConfigFile"},
		{name: "caFile without a CA bundle", values: `pluginArgs: {imageResolution: {scope: Windows, registries: [{host: registry.local, caFile: /etc/windows-aware-registry/ca/ca.pem}]}}`, want: "imageResolution.caBundle"},
		{name: "caFile outside the CA bundle", values: `{pluginArgs: {imageResolution: {scope: Windows, registries: [{host: registry.local, caFile: /etc/ssl/ca.pem}]}}, imageResolution: {caBundle: {configMap: corp-ca}}}`, want: "registries[0].caFile"},
		{name: "CA bundle from two sources", values: `imageResolution: {caBundle: {configMap: corp-ca, secret: corp-ca}}`, want: "/imageResolution/caBundle"},
		{name: "bad docker config Secret name", values: `imageResolution: {credentials: {dockerConfigSecret: Reg_Cred}}`, want: "/imageResolution/credentials/dockerConfigSecret"},
		{name: "bad pull secret namespace", values: `imageResolution: {pullSecretNamespaces: ["*"]}`, want: "/imageResolution/pullSecretNamespaces/0"},
		{name: "pull secret namespaces twice", values: `imageResolution: {pullSecretNamespaces: [team-a, team-a]}`, want: "/imageResolution/pullSecretNamespaces"},
		{name: "pull secret Roles without pod pull secrets", values: `{pluginArgs: {imageResolution: {scope: Windows, registries: [{host: "*"}]}}, imageResolution: {pullSecretNamespaces: [team-a]}}`, want: "podPullSecrets"},
		{name: "pull secret Roles with resolution off", values: `{pluginArgs: {imageResolution: {credentials: {podPullSecrets: true}}}, imageResolution: {pullSecretNamespaces: [team-a]}}`, want: "scope"},
		{name: "bad pull secret name", values: `imageResolution: {pullSecretNames: ["Reg_Cred"]}`, want: "/imageResolution/pullSecretNames/0"},
		{name: "pull secret names without namespaces", values: `{pluginArgs: {imageResolution: {scope: Windows, registries: [{host: "*"}], credentials: {podPullSecrets: true}}}, imageResolution: {pullSecretNames: [regcred]}}`, want: "lists no namespace"},
		{name: "unknown value", values: `replica: 3`, want: "replica"},
		{name: "lease duration without unit", values: `leaderElection: {leaseDuration: 15}`, want: "/leaderElection/leaseDuration"},
		{name: "bad scheduler name", values: `schedulerName: Windows_Aware`, want: "/schedulerName"},
		{name: "Windows nodes for the scheduler", values: `nodeSelector: {kubernetes.io/os: windows}`, want: "kubernetes.io/os"},
		{name: "ServiceMonitor on the host network", values: `{hostNetwork: true, metrics: {serviceMonitor: {enabled: true}}}`, want: "hostNetwork"},
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
	// Turning the implicit toleration off needs no keys, as in the
	// scheduler's validation.
	if _, err := helmTemplate(t, besideNamespace, `pluginArgs: {osTaints: {tolerate: false, keys: [], effects: []}}`); err != nil {
		t.Errorf("tolerate: false with no keys: %v", err)
	}
}
