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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

// The paths the chart mounts the files of image resolution at.
const (
	chartDockerConfigFile = "/etc/windows-aware-registry/docker/config.json"
	chartCADir            = "/etc/windows-aware-registry/ca"
)

// TestChartResolutionConfigRunsTheScheduler: the configuration the chart
// renders with image resolution on starts the scheduler (its resolver
// built: credentials read, CA bundle parsed) with the args the values say,
// the docker config file at the path the chart mounts the Secret at.
func TestChartResolutionConfigRunsTheScheduler(t *testing.T) {
	chart := renderChart(t, besideNamespace, `
pluginArgs:
  imageResolution:
    scope: Undeclared
    registries:
      - host: mcr.microsoft.com
      - host: "*.azurecr.io"
      - host: registry.corp.example:5000
        endpoints: ["mirror.corp.example:5000", "http://10.0.0.5:5000"]
        insecure: true
        allowPrivate: true
        caFile: /etc/windows-aware-registry/ca/corp.pem
    gateTimeout: 5s
    onFailure: Reject
    credentials: {podPullSecrets: true}
    cache: {maxEntries: 500, tagTTL: 2m, negativeTTL: 30s}
    concurrency: {workers: 2, perRegistry: 1}
    requestTimeout: 3s
    maxIndexEntries: 64
imageResolution:
  credentials: {dockerConfigSecret: regcred}
  caBundle: {configMap: corp-ca}
  pullSecretNamespaces: [team-a]
`)
	cm := get[*v1.ConfigMap](t, chart, "ConfigMap", besideNamespace, besideRelease+"-config")
	text := cm.Data["scheduler-config.yaml"]
	if !strings.Contains(text, chartDockerConfigFile) {
		t.Fatalf("the configuration does not name the mounted docker config %s:\n%s", chartDockerConfigFile, text)
	}
	// The mounted files, where this test can make them.
	dir := t.TempDir()
	dockerConfig := filepath.Join(dir, "config.json")
	if err := os.WriteFile(dockerConfig, []byte(`{"auths":{"registry.corp.example:5000":{"auth":"dTpw"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "corp.pem")
	if err := os.WriteFile(caFile, selfSignedPEM(t), 0o600); err != nil {
		t.Fatal(err)
	}
	_, cfg, err := setup(t, shipped(t, writeTemp(t, text),
		[2]string{chartDockerConfigFile, dockerConfig},
		[2]string{chartCADir + "/corp.pem", caFile}))
	if err != nil {
		t.Fatalf("the scheduler refuses the chart's configuration: %v", err)
	}
	want := config.ImageResolution{
		Scope: config.ResolutionUndeclared,
		Registries: []config.RegistryHost{
			{Host: "mcr.microsoft.com"},
			{Host: "*.azurecr.io"},
			{Host: "registry.corp.example:5000", Endpoints: []string{"mirror.corp.example:5000", "http://10.0.0.5:5000"}, Insecure: true, AllowPrivate: true, CAFile: caFile},
		},
		GateTimeout:     metav1.Duration{Duration: 5 * time.Second},
		OnFailure:       config.OnFailureReject,
		Credentials:     config.ImageCredentials{DockerConfigFile: dockerConfig, PodPullSecrets: true},
		Cache:           config.ImageCache{MaxEntries: 500, TagTTL: metav1.Duration{Duration: 2 * time.Minute}, NegativeTTL: metav1.Duration{Duration: 30 * time.Second}},
		Concurrency:     config.ImageConcurrency{Workers: 2, PerRegistry: 1},
		RequestTimeout:  metav1.Duration{Duration: 3 * time.Second},
		MaxIndexEntries: 64,
	}
	if diff := cmp.Diff(want, waArgs(t, cfg).ImageResolution, cmpIgnoreTypeMeta); diff != "" {
		t.Errorf("imageResolution (-values +scheduler):\n%s", diff)
	}
}

// TestChartResolutionNoneIsLeftOut: with scope None the chart writes no
// imageResolution (the scheduler reads none of it), so the scheduler runs
// with its defaults, whatever else the values hold.
func TestChartResolutionNoneIsLeftOut(t *testing.T) {
	chart := renderChart(t, besideNamespace, `
pluginArgs:
  imageResolution:
    scope: "None"
    registries: [{host: mcr.microsoft.com}]
    gateTimeout: 1s
imageResolution:
  credentials: {dockerConfigSecret: regcred}
`)
	cm := get[*v1.ConfigMap](t, chart, "ConfigMap", besideNamespace, besideRelease+"-config")
	text := cm.Data["scheduler-config.yaml"]
	if strings.Contains(text, "imageResolution") {
		t.Errorf("scope None, but the configuration holds imageResolution:\n%s", text)
	}
	_, cfg, err := setup(t, shipped(t, writeTemp(t, text)))
	if err != nil {
		t.Fatalf("the scheduler refuses the chart's configuration: %v", err)
	}
	if got := waArgs(t, cfg).ImageResolution; got.Scope != config.ResolutionNone || got.GateTimeout.Duration != 10*time.Second {
		t.Errorf("imageResolution %+v, want the defaults (scope None, gateTimeout 10s)", got)
	}
}

// TestChartResolutionValues: what the chart adds to the pod and to RBAC for
// image resolution.
func TestChartResolutionValues(t *testing.T) {
	const on = `pluginArgs: {imageResolution: {scope: Windows, registries: [{host: "*"}], credentials: {podPullSecrets: true}}}`
	podSpec := func(t *testing.T, m manifestSet) *v1.PodSpec {
		return &get[*appsv1.Deployment](t, m, "Deployment", besideNamespace, besideRelease).Spec.Template.Spec
	}
	mounts := func(spec *v1.PodSpec) map[string]v1.VolumeMount {
		out := map[string]v1.VolumeMount{}
		for _, m := range spec.Containers[0].VolumeMounts {
			out[m.Name] = m
		}
		return out
	}
	volume := func(t *testing.T, spec *v1.PodSpec, name string) v1.Volume {
		for _, v := range spec.Volumes {
			if v.Name == name {
				return v
			}
		}
		t.Fatalf("no volume %s in %v", name, spec.Volumes)
		return v1.Volume{}
	}
	for _, tc := range []struct {
		name   string
		values []string
		check  func(t *testing.T, m manifestSet)
	}{
		{
			name: "nothing by default",
			check: func(t *testing.T, m manifestSet) {
				spec := podSpec(t, m)
				if len(spec.Volumes) != 1 || len(spec.Containers[0].VolumeMounts) != 1 {
					t.Errorf("volumes %v, mounts %v: want the configuration alone", spec.Volumes, spec.Containers[0].VolumeMounts)
				}
				for key := range m {
					if strings.Contains(key, "image-pull-secrets") {
						t.Errorf("%s without pullSecretNamespaces", key)
					}
				}
			},
		},
		{
			name:   "docker config Secret mounted read-only at the path the args name",
			values: []string{on, `imageResolution: {credentials: {dockerConfigSecret: regcred}}`},
			check: func(t *testing.T, m manifestSet) {
				spec := podSpec(t, m)
				mount, ok := mounts(spec)["registry-credentials"]
				if !ok || !mount.ReadOnly || mount.MountPath+"/config.json" != chartDockerConfigFile {
					t.Errorf("mount %+v, want read-only at %s", mount, filepath.Dir(chartDockerConfigFile))
				}
				v := volume(t, spec, "registry-credentials")
				want := &v1.SecretVolumeSource{SecretName: "regcred", Items: []v1.KeyToPath{{Key: v1.DockerConfigJsonKey, Path: "config.json"}}}
				if diff := cmp.Diff(want, v.Secret); diff != "" {
					t.Errorf("volume (-want +got):\n%s", diff)
				}
				cfg := parseYAMLData(t, get[*v1.ConfigMap](t, m, "ConfigMap", besideNamespace, besideRelease+"-config").Data)
				if !strings.Contains(toJSON(t, cfg), `"dockerConfigFile":"`+chartDockerConfigFile+`"`) {
					t.Errorf("the args do not name %s", chartDockerConfigFile)
				}
			},
		},
		{
			name:   "CA bundle from a ConfigMap",
			values: []string{on, `imageResolution: {caBundle: {configMap: corp-ca}}`},
			check: func(t *testing.T, m manifestSet) {
				spec := podSpec(t, m)
				if mount := mounts(spec)["registry-ca"]; !mount.ReadOnly || mount.MountPath != chartCADir {
					t.Errorf("mount %+v, want read-only at %s", mount, chartCADir)
				}
				if v := volume(t, spec, "registry-ca"); v.ConfigMap == nil || v.ConfigMap.Name != "corp-ca" {
					t.Errorf("volume %+v, want the ConfigMap corp-ca", v)
				}
			},
		},
		{
			name:   "CA bundle from a Secret",
			values: []string{on, `imageResolution: {caBundle: {secret: corp-ca}}`},
			check: func(t *testing.T, m manifestSet) {
				if v := volume(t, podSpec(t, m), "registry-ca"); v.Secret == nil || v.Secret.SecretName != "corp-ca" {
					t.Errorf("volume %+v, want the Secret corp-ca", v)
				}
			},
		},
		{
			name:   "pull secrets readable in the namespaces listed, and only there",
			values: []string{on, `imageResolution: {pullSecretNamespaces: [team-a, team-b]}`},
			check: func(t *testing.T, m manifestSet) {
				subject := rbacv1.Subject{Kind: "ServiceAccount", Name: besideRelease, Namespace: besideNamespace}
				for _, ns := range []string{"team-a", "team-b"} {
					name := besideRelease + ":image-pull-secrets"
					role := get[*rbacv1.Role](t, m, "Role", ns, name)
					if diff := cmp.Diff([]string{"get /secrets"}, ruleAtoms(role.Rules)); diff != "" {
						t.Errorf("%s Role (-want +got):\n%s", ns, diff)
					}
					b := get[*rbacv1.RoleBinding](t, m, "RoleBinding", ns, name)
					if b.RoleRef.Kind != "Role" || b.RoleRef.Name != name || len(b.Subjects) != 1 || b.Subjects[0] != subject {
						t.Errorf("%s RoleBinding %+v %+v, want the Role bound to %+v", ns, b.RoleRef, b.Subjects, subject)
					}
				}
				for key, obj := range m {
					if strings.HasPrefix(key, "ClusterRole ") {
						for _, atom := range ruleAtoms(roleRules(obj)) {
							if strings.Contains(atom, "/secrets") {
								t.Errorf("%s grants %s", key, atom)
							}
						}
					}
					if strings.Contains(key, "image-pull-secrets") && !strings.Contains(key, " team-a/") && !strings.Contains(key, " team-b/") {
						t.Errorf("%s outside the namespaces listed", key)
					}
				}
			},
		},
		{
			name:   "pull secrets limited to the names listed",
			values: []string{on, `imageResolution: {pullSecretNamespaces: [team-a, team-b], pullSecretNames: [regcred, mirror-cred]}`},
			check: func(t *testing.T, m manifestSet) {
				for _, ns := range []string{"team-a", "team-b"} {
					role := get[*rbacv1.Role](t, m, "Role", ns, besideRelease+":image-pull-secrets")
					if diff := cmp.Diff([]string{"get /secrets/regcred", "get /secrets/mirror-cred"}, ruleAtoms(role.Rules)); diff != "" {
						t.Errorf("%s Role (-want +got):\n%s", ns, diff)
					}
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, renderChart(t, besideNamespace, tc.values...))
		})
	}
}

// selfSignedPEM is a CA certificate in PEM, as a caFile holds it.
func selfSignedPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "registry CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
