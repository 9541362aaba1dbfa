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
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// The chart's three Deployments, by the values path of their settings and
// their name under besideRelease. gatingValues turns on what renders all
// three: publish mode, and image resolution that gates pods.
const gatingValues = `
publish: {enabled: true}
pluginArgs: {imageResolution: {scope: Windows, registries: [{host: mcr.microsoft.com}]}}
`

var chartDeployments = []struct {
	path []string // where its values are: [], [publish], [publish, ungate]
	name string
}{
	{path: nil, name: besideRelease},
	{path: []string{"publish"}, name: "windows-aware-publish"},
	{path: []string{"publish", "ungate"}, name: "windows-aware-publish-ungate"},
}

// nestValues returns leaf nested under path, as a values YAML text.
func nestValues(t *testing.T, path []string, leaf map[string]any) string {
	t.Helper()
	v := leaf
	for i := len(path) - 1; i >= 0; i-- {
		v = map[string]any{path[i]: v}
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestChartEscapeHatches: each Deployment takes the usual settings of a
// cluster's own (placement, priority, labels, identity, flags, volumes,
// resources) from its own values, and keeps what the chart needs: its
// selector labels, its anti-affinity unless replaced, Linux nodes.
func TestChartEscapeHatches(t *testing.T) {
	nodeAffinity := map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
		"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{
			map[string]any{"key": "node-pool", "operator": "In", "values": []any{"system"}}}}}}}
	for _, dep := range chartDeployments {
		what := strings.Join(append([]string{"values"}, dep.path...), ".")
		for _, tc := range []struct {
			name  string
			leaf  map[string]any
			check func(t *testing.T, d *appsv1.Deployment, m manifestSet)
		}{
			{
				name: "affinity is added to the anti-affinity",
				leaf: map[string]any{"affinity": map[string]any{"nodeAffinity": nodeAffinity}},
				check: func(t *testing.T, d *appsv1.Deployment, _ manifestSet) {
					a := d.Spec.Template.Spec.Affinity
					if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
						t.Fatalf("affinity %+v lacks the node affinity", a)
					}
					terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
					if len(terms) != 1 || terms[0].MatchExpressions[0].Key != "node-pool" {
						t.Errorf("node selector terms %+v", terms)
					}
					if a.PodAntiAffinity == nil || len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
						t.Fatalf("the replicas' anti-affinity is gone: %+v", a.PodAntiAffinity)
					}
					selectsOwnPods(t, "anti-affinity", a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.LabelSelector, d)
				},
			},
			{
				name: "an anti-affinity of one's own replaces the chart's",
				leaf: map[string]any{"affinity": map[string]any{"podAntiAffinity": map[string]any{
					"requiredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
						"topologyKey": "topology.kubernetes.io/zone", "labelSelector": map[string]any{"matchLabels": map[string]any{"team": "infra"}}}}}}},
				check: func(t *testing.T, d *appsv1.Deployment, _ manifestSet) {
					pa := d.Spec.Template.Spec.Affinity.PodAntiAffinity
					if len(pa.PreferredDuringSchedulingIgnoredDuringExecution) != 0 || len(pa.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
						pa.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "topology.kubernetes.io/zone" {
						t.Errorf("podAntiAffinity %+v, want the values' alone", pa)
					}
				},
			},
			{
				name: "topology spread over the pods' own labels unless told",
				leaf: map[string]any{"topologySpreadConstraints": []any{
					map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"},
					map[string]any{"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
						"labelSelector": map[string]any{"matchLabels": map[string]any{"team": "infra"}}},
				}},
				check: func(t *testing.T, d *appsv1.Deployment, _ manifestSet) {
					c := d.Spec.Template.Spec.TopologySpreadConstraints
					if len(c) != 2 {
						t.Fatalf("constraints %+v", c)
					}
					if c[0].MaxSkew != 1 || c[0].TopologyKey != "topology.kubernetes.io/zone" || c[0].WhenUnsatisfiable != v1.ScheduleAnyway {
						t.Errorf("first constraint %+v", c[0])
					}
					selectsOwnPods(t, "first constraint", c[0].LabelSelector, d)
					if diff := cmp.Diff(map[string]string{"team": "infra"}, c[1].LabelSelector.MatchLabels); diff != "" {
						t.Errorf("second constraint's selector (-values +rendered):\n%s", diff)
					}
				},
			},
			{
				name: "priority class",
				leaf: map[string]any{"priorityClassName": "platform-critical"},
				check: func(t *testing.T, d *appsv1.Deployment, _ manifestSet) {
					if got := d.Spec.Template.Spec.PriorityClassName; got != "platform-critical" {
						t.Errorf("priorityClassName %q", got)
					}
				},
			},
			{
				name: "pod labels and annotations beside the chart's",
				leaf: map[string]any{"podLabels": map[string]any{"team": "infra"}, "podAnnotations": map[string]any{"example.com/owner": "infra"}},
				check: func(t *testing.T, d *appsv1.Deployment, _ manifestSet) {
					meta := d.Spec.Template.ObjectMeta
					if meta.Labels["team"] != "infra" || meta.Annotations["example.com/owner"] != "infra" {
						t.Errorf("labels %v, annotations %v", meta.Labels, meta.Annotations)
					}
					if meta.Annotations["checksum/config"] == "" {
						t.Error("the configuration checksum is gone")
					}
					selectsOwnPods(t, "Deployment", d.Spec.Selector, d)
				},
			},
			{
				name: "service account annotations",
				leaf: map[string]any{"serviceAccount": map[string]any{"annotations": map[string]any{"example.com/role": "r"}}},
				check: func(t *testing.T, d *appsv1.Deployment, m manifestSet) {
					sa := get[*v1.ServiceAccount](t, m, "ServiceAccount", besideNamespace, d.Spec.Template.Spec.ServiceAccountName)
					if sa.Annotations["example.com/role"] != "r" {
						t.Errorf("annotations %v", sa.Annotations)
					}
				},
			},
			{
				name: "extra args last",
				leaf: map[string]any{"extraArgs": []any{"--v=5"}},
				check: func(t *testing.T, d *appsv1.Deployment, _ manifestSet) {
					cmd := d.Spec.Template.Spec.Containers[0].Command
					if cmd[len(cmd)-1] != "--v=5" {
						t.Errorf("command %v does not end in --v=5", cmd)
					}
				},
			},
			{
				name: "extra volumes and mounts beside the chart's",
				leaf: map[string]any{
					"extraVolumes":      []any{map[string]any{"name": "scratch", "emptyDir": map[string]any{}}},
					"extraVolumeMounts": []any{map[string]any{"name": "scratch", "mountPath": "/scratch"}},
				},
				check: func(t *testing.T, d *appsv1.Deployment, _ manifestSet) {
					spec := d.Spec.Template.Spec
					vols := map[string]v1.Volume{}
					for _, v := range spec.Volumes {
						vols[v.Name] = v
					}
					if vols["scratch"].EmptyDir == nil || vols["config"].ConfigMap == nil {
						t.Errorf("volumes %+v lack scratch or config", spec.Volumes)
					}
					mounts := map[string]string{}
					for _, vm := range spec.Containers[0].VolumeMounts {
						mounts[vm.Name] = vm.MountPath
					}
					if mounts["scratch"] != "/scratch" || mounts["config"] == "" {
						t.Errorf("mounts %v lack scratch at /scratch or config", mounts)
					}
				},
			},
			{
				name: "resources",
				leaf: map[string]any{"resources": map[string]any{"requests": map[string]any{"cpu": "1", "memory": "2Gi"}, "limits": map[string]any{"memory": "4Gi"}}},
				check: func(t *testing.T, d *appsv1.Deployment, _ manifestSet) {
					want := v1.ResourceRequirements{
						Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("2Gi")},
						Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("4Gi")},
					}
					got := d.Spec.Template.Spec.Containers[0].Resources
					if !apiequality.Semantic.DeepEqual(want, got) {
						t.Errorf("resources %+v, want %+v", got, want)
					}
				},
			},
		} {
			t.Run(what+"/"+tc.name, func(t *testing.T) {
				m := renderChart(t, besideNamespace, gatingValues, nestValues(t, dep.path, tc.leaf))
				d := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, dep.name)
				if d.Spec.Template.Spec.NodeSelector["kubernetes.io/os"] != "linux" {
					t.Errorf("nodeSelector %v lost kubernetes.io/os: linux", d.Spec.Template.Spec.NodeSelector)
				}
				tc.check(t, d, m)
			})
		}
	}
}

// TestChartGateRemoverPriority: the gate remover runs at the webhook's
// priority unless it names its own.
func TestChartGateRemoverPriority(t *testing.T) {
	for _, tc := range []struct{ values, want string }{
		{values: `publish: {priorityClassName: tier-1}`, want: "tier-1"},
		{values: `publish: {priorityClassName: tier-1, ungate: {priorityClassName: tier-2}}`, want: "tier-2"},
		{values: `publish: {priorityClassName: ""}`, want: ""},
	} {
		t.Run(tc.values, func(t *testing.T) {
			m := renderChart(t, besideNamespace, gatingValues, tc.values)
			d := get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, "windows-aware-publish-ungate")
			if got := d.Spec.Template.Spec.PriorityClassName; got != tc.want {
				t.Errorf("priorityClassName %q, want %q", got, tc.want)
			}
		})
	}
}

// grants maps each ServiceAccount the chart's bindings name to what it is
// granted: "<binding kind> <binding namespace> -> <role kind>/<role name>".
func grants(m manifestSet) map[string][]string {
	out := map[string][]string{}
	for _, key := range m.keys() {
		b := bindingOf(m[key])
		if b == nil {
			continue
		}
		kind, ns, _ := strings.Cut(key, " ")
		ns, _, _ = strings.Cut(ns, "/")
		for _, s := range b.Subjects {
			if s.Kind != rbacv1.ServiceAccountKind {
				continue
			}
			who := s.Namespace + "/" + s.Name
			out[who] = append(out[who], fmt.Sprintf("%s %s -> %s/%s", kind, ns, b.RoleRef.Kind, b.RoleRef.Name))
		}
	}
	for _, g := range out {
		sort.Strings(g)
	}
	return out
}

// TestChartServiceAccounts: whoever creates the accounts, each Deployment
// runs as its own, and the chart binds to it exactly what it binds to the
// account it would create: nothing to the namespace's default account,
// nothing to an account no pod runs as.
func TestChartServiceAccounts(t *testing.T) {
	const ns = besideNamespace
	defaults := renderChart(t, ns, gatingValues, `imageResolution: {pullSecretNamespaces: [team-a]}
pluginArgs: {imageResolution: {credentials: {podPullSecrets: true}}}`)
	defaultGrants := grants(defaults)
	defaultNames := map[string]string{}
	for _, dep := range chartDeployments {
		defaultNames[dep.name] = get[*appsv1.Deployment](t, defaults, "Deployment", ns, dep.name).Spec.Template.Spec.ServiceAccountName
		if _, ok := defaults[objectKey("ServiceAccount", ns, defaultNames[dep.name])]; !ok {
			t.Errorf("%s: the chart creates no ServiceAccount %s", dep.name, defaultNames[dep.name])
		}
	}
	for _, tc := range []struct {
		name   string
		create bool
	}{
		{name: "accounts of one's own", create: false},
		{name: "the chart's accounts, named", create: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			named := map[string]string{} // Deployment -> account
			values := []string{gatingValues, `imageResolution: {pullSecretNamespaces: [team-a]}
pluginArgs: {imageResolution: {credentials: {podPullSecrets: true}}}`}
			for _, dep := range chartDeployments {
				named[dep.name] = "sa-" + dep.name
				values = append(values, nestValues(t, dep.path, map[string]any{"serviceAccount": map[string]any{"create": tc.create, "name": named[dep.name]}}))
			}
			m := renderChart(t, ns, values...)
			rename := map[string]string{}
			for _, dep := range chartDeployments {
				d := get[*appsv1.Deployment](t, m, "Deployment", ns, dep.name)
				if got := d.Spec.Template.Spec.ServiceAccountName; got != named[dep.name] {
					t.Errorf("%s runs as %s, want %s", dep.name, got, named[dep.name])
				}
				_, created := m[objectKey("ServiceAccount", ns, named[dep.name])]
				if created != tc.create {
					t.Errorf("ServiceAccount %s created: %v, want %v", named[dep.name], created, tc.create)
				}
				if _, ok := m[objectKey("ServiceAccount", ns, defaultNames[dep.name])]; ok {
					t.Errorf("the chart still creates %s", defaultNames[dep.name])
				}
				rename[ns+"/"+defaultNames[dep.name]] = ns + "/" + named[dep.name]
			}
			want := map[string][]string{}
			for who, g := range defaultGrants {
				if r, ok := rename[who]; ok {
					who = r
				}
				want[who] = g // the uninstall hook's account is the chart's alone
			}
			if diff := cmp.Diff(want, grants(m)); diff != "" {
				t.Errorf("grants (-the chart's accounts' +the named accounts'):\n%s", diff)
			}
			// The policy that holds the gate remover to removing gates
			// matches the account it runs as.
			vap := get[*admissionregistrationv1.ValidatingAdmissionPolicy](t, m, "ValidatingAdmissionPolicy", "", "windows-aware-publish-ungate")
			wantUser := fmt.Sprintf("system:serviceaccount:%s:%s", ns, named["windows-aware-publish-ungate"])
			if len(vap.Spec.MatchConditions) == 0 || !strings.Contains(vap.Spec.MatchConditions[0].Expression, "'"+wantUser+"'") {
				t.Errorf("policy match conditions %+v do not name %s", vap.Spec.MatchConditions, wantUser)
			}
		})
	}
}

// TestChartRejectsSharedOrUnnamedAccounts: an account the chart does not
// create must be named, and the three identities may not be one.
func TestChartRejectsSharedOrUnnamedAccounts(t *testing.T) {
	for _, tc := range []struct{ name, values, want string }{
		{name: "scheduler's unnamed", values: `serviceAccount: {create: false}`, want: "serviceAccount.name"},
		{name: "webhook's unnamed", values: `publish: {serviceAccount: {create: false}}`, want: "publish.serviceAccount.name"},
		{name: "gate remover's unnamed", values: `publish: {ungate: {serviceAccount: {create: false}}}`, want: "publish.ungate.serviceAccount.name"},
		{name: "webhook as the scheduler", values: `{serviceAccount: {name: shared}, publish: {serviceAccount: {name: shared}}}`, want: "accounts of their own"},
		{name: "gate remover as the webhook", values: `publish: {serviceAccount: {name: shared}, ungate: {serviceAccount: {create: false, name: shared}}}`, want: "may patch pods"},
		{name: "gate remover as the scheduler", values: `{serviceAccount: {create: false, name: shared}, publish: {ungate: {serviceAccount: {create: false, name: shared}}}}`, want: "may patch pods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := helmTemplate(t, besideNamespace, gatingValues, tc.values)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("helm template: %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// TestChartServiceMonitors: off by default; on, one per metrics endpoint,
// each selecting its own Service's port, with a token only where the
// endpoint asks for one.
func TestChartServiceMonitors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		values    string
		service   string            // ServiceMonitor and Service name; empty: none rendered
		wantToken bool              // bearerTokenFile
		labels    map[string]string // added to the ServiceMonitor
	}{
		{name: "defaults: none", values: gatingValues},
		{name: "the scheduler's", values: `metrics: {serviceMonitor: {enabled: true}}`, service: besideRelease, wantToken: true},
		{name: "the webhook's", values: `publish: {enabled: true, serviceMonitor: {enabled: true, labels: {release: prom}, interval: 1m}}`, service: "windows-aware-publish", wantToken: true, labels: map[string]string{"release": "prom"}},
		{name: "the webhook's, metrics open", values: `publish: {enabled: true, metricsAuth: none, serviceMonitor: {enabled: true}}`, service: "windows-aware-publish"},
		{name: "not without publish mode", values: `publish: {enabled: false, serviceMonitor: {enabled: true}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := renderChart(t, besideNamespace, tc.values)
			var monitors []string
			for _, k := range m.keys() {
				if strings.HasPrefix(k, "ServiceMonitor ") {
					monitors = append(monitors, k)
				}
			}
			if tc.service == "" {
				if len(monitors) != 0 {
					t.Fatalf("ServiceMonitors %v, want none", monitors)
				}
				return
			}
			if len(monitors) != 1 {
				t.Fatalf("ServiceMonitors %v, want one", monitors)
			}
			sm := get[*unstructured.Unstructured](t, m, "ServiceMonitor", besideNamespace, tc.service)
			svcName := tc.service
			if svcName == besideRelease {
				svcName += "-metrics"
			}
			svc := get[*v1.Service](t, m, "Service", besideNamespace, svcName)
			sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
			if len(sel) == 0 || !labels.SelectorFromSet(sel).Matches(labels.Set(svc.Labels)) {
				t.Errorf("selector %v does not select the Service %v", sel, svc.Labels)
			}
			eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
			if len(eps) != 1 {
				t.Fatalf("endpoints %v", eps)
			}
			ep := eps[0].(map[string]any)
			if ep["port"] != svc.Spec.Ports[0].Name || ep["scheme"] != "https" || ep["path"] != "/metrics" {
				t.Errorf("endpoint %v does not scrape the Service's port %q over HTTPS", ep, svc.Spec.Ports[0].Name)
			}
			if _, token := ep["bearerTokenFile"]; token != tc.wantToken {
				t.Errorf("bearerTokenFile set: %v, want %v", token, tc.wantToken)
			}
			for k, v := range tc.labels {
				if sm.GetLabels()[k] != v {
					t.Errorf("labels %v lack %s: %s", sm.GetLabels(), k, v)
				}
			}
		})
	}
}

// TestChartRejectsTypos: a misspelt key or a value of the wrong type, at
// any level of the values the chart defines, fails both helm lint and helm
// template, naming it, rather than being ignored.
func TestChartRejectsTypos(t *testing.T) {
	for _, tc := range []struct{ name, values, want string }{
		{name: "top level", values: `serviceAcount: {create: false}`, want: "serviceAcount"},
		{name: "service account", values: `serviceAccount: {crate: false}`, want: "crate"},
		{name: "service account type", values: `serviceAccount: {create: "no"}`, want: "/serviceAccount/create"},
		{name: "webhook service account", values: `publish: {serviceAccount: {nmae: x}}`, want: "nmae"},
		{name: "gate remover", values: `publish: {ungate: {podLabel: {a: b}}}`, want: "podLabel"},
		{name: "client connection type", values: `clientConnection: {qps: fast}`, want: "/clientConnection/qps"},
		{name: "client connection key", values: `clientConnection: {QPS: 5}`, want: "QPS"},
		{name: "resources", values: `resources: {request: {cpu: 1}}`, want: "request"},
		{name: "resource quantity", values: `publish: {resources: {limits: {memory: lots}}}`, want: "/publish/resources/limits/memory"},
		{name: "toleration", values: `tolerations: [{keys: dedicated, operator: Exists}]`, want: "keys"},
		{name: "affinity", values: `affinity: {nodeAfinity: {}}`, want: "nodeAfinity"},
		{name: "topology spread", values: `topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelecter: {}}]`, want: "labelSelecter"},
		{name: "volume source", values: `extraVolumes: [{name: x, configmap: {name: y}}]`, want: "configmap"},
		{name: "volume mount", values: `publish: {ungate: {extraVolumeMounts: [{name: x, mountpath: /x}]}}`, want: "mountpath"},
		{name: "webhook ServiceMonitor", values: `publish: {serviceMonitor: {enable: true}}`, want: "enable"},
		{name: "pull secret", values: `imagePullSecrets: [{nam: regcred}]`, want: "nam"},
		{name: "extra args type", values: `extraArgs: "--v=4"`, want: "/extraArgs"},
		{name: "image minor", values: `image: {kubernetesMinor: "1.38"}`, want: "/image/kubernetesMinor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := helmTemplate(t, besideNamespace, tc.values); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("helm template: %v, want an error naming %s", err, tc.want)
			}
			// helm lint reports on its standard output.
			if out, err := helmRun(t, []string{"lint", "--strict", chartDir}, tc.values); err == nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("helm lint: %v, want an error naming %s\n%s", err, tc.want, out)
			}
		})
	}
}

// TestChartSchemaFollowsPodTypes: where the schema closes a Kubernetes
// type of the pod spec to other keys, it lists every field of that type
// (JSON names), so that it refuses a misspelt field and never a real one.
// It may list more: fields of a newer minor than the one under test (the
// tests run against each minor's API).
func TestChartSchemaFollowsPodTypes(t *testing.T) {
	defs := loadValuesSchema(t).Defs
	for _, tc := range []struct {
		def    string
		schema func(*jsonSchema) *jsonSchema
		typ    reflect.Type
	}{
		{def: "toleration", typ: reflect.TypeFor[v1.Toleration]()},
		{def: "affinity", typ: reflect.TypeFor[v1.Affinity]()},
		{def: "resources", typ: reflect.TypeFor[v1.ResourceRequirements]()},
		{def: "resources", schema: func(s *jsonSchema) *jsonSchema { return s.Properties["claims"].Items }, typ: reflect.TypeFor[v1.ResourceClaim]()},
		{def: "topologySpreadConstraints", schema: func(s *jsonSchema) *jsonSchema { return s.Items }, typ: reflect.TypeFor[v1.TopologySpreadConstraint]()},
		{def: "volumes", schema: func(s *jsonSchema) *jsonSchema { return s.Items }, typ: reflect.TypeFor[v1.Volume]()},
		{def: "volumeMounts", schema: func(s *jsonSchema) *jsonSchema { return s.Items }, typ: reflect.TypeFor[v1.VolumeMount]()},
	} {
		t.Run(tc.typ.Name(), func(t *testing.T) {
			s := defs[tc.def]
			if s != nil && tc.schema != nil {
				s = tc.schema(s)
			}
			if s == nil {
				t.Fatalf("values.schema.json has no %s", tc.def)
			}
			if string(s.AdditionalProperties) != "false" {
				t.Errorf("%s is open to other keys", tc.def)
			}
			for _, f := range jsonFields(tc.typ) {
				if s.Properties[f] == nil {
					t.Errorf("%s refuses %s's field %s", tc.def, tc.typ, f)
				}
			}
		})
	}
}

// jsonFields lists the JSON names of a struct's fields, inlined structs'
// fields in their place.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "" && (f.Anonymous || strings.Contains(opts, "inline")):
			out = append(out, jsonFields(f.Type)...)
		default:
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// TestChartValuesFilesLint: helm lint --strict passes with every escape
// hatch set at once on every Deployment, so that the values documented
// together also work together.
func TestChartValuesFilesLint(t *testing.T) {
	all := map[string]any{
		"affinity":                  map[string]any{"nodeAffinity": map[string]any{}},
		"topologySpreadConstraints": []any{map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}},
		"priorityClassName":         "platform",
		"podLabels":                 map[string]any{"team": "infra"},
		"podAnnotations":            map[string]any{"example.com/owner": "infra"},
		"serviceAccount":            map[string]any{"create": true, "name": "", "annotations": map[string]any{"example.com/role": "r"}},
		"extraArgs":                 []any{"--v=2"},
		"extraVolumes":              []any{map[string]any{"name": "scratch", "emptyDir": map[string]any{}}},
		"extraVolumeMounts":         []any{map[string]any{"name": "scratch", "mountPath": "/scratch"}},
		"resources":                 map[string]any{"requests": map[string]any{"cpu": "10m"}},
	}
	values := []string{gatingValues, `{metrics: {serviceMonitor: {enabled: true}}, publish: {serviceMonitor: {enabled: true}}, clientConnection: {qps: 100, burst: 200}}`}
	for _, dep := range chartDeployments {
		values = append(values, nestValues(t, dep.path, all))
	}
	if out, err := helmRun(t, []string{"lint", "--strict", chartDir}, values...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
