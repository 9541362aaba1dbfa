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
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/pkg/kubectlcmd"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// TestKubectlPluginTrust: a tenant who can create ConfigMaps in their own
// namespace cannot make an admin's kubectl windows-aware explain --resolve
// send the admin's registry credentials, or any request, to a registry of
// theirs. A ConfigMap with the chart's labels outside the scheduler's
// namespace is ignored; and a configuration read from the cluster does not
// choose the endpoints, plain HTTP or private addresses this machine
// connects to unless --trust-cluster-endpoints says so.
func TestKubectlPluginTrust(t *testing.T) {
	e := requireCluster(t)
	bins, err := controlplane.FindBinaries("", "", controlplane.KubectlPlugin)
	if err != nil {
		t.Fatalf("the kubectl plugin: %v", err)
	}
	const host, user, password = "registry.corp.example", "corp-admin", "hunter2-corp"

	// The tenant's registry: it asks for Basic credentials and keeps
	// what it is sent.
	var mu sync.Mutex
	var requests, credentials []string
	tenantRegistry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.Method+" "+r.URL.Path)
		if a := r.Header.Get("Authorization"); a != "" {
			credentials = append(credentials, a)
		}
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Basic realm="tenant"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(tenantRegistry.Close)
	seen := func() (int, []string) {
		mu.Lock()
		defer mu.Unlock()
		n, c := len(requests), append([]string(nil), credentials...)
		requests, credentials = nil, nil
		return n, c
	}

	tenant := e.namespace()
	schedulerNS := e.namespace()
	cfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: windows-aware
    plugins:
      multiPoint:
        enabled:
          - name: WindowsAware
    pluginConfig:
      - name: WindowsAware
        args:
          imageResolution:
            scope: Windows
            registries:
              - host: %s
                endpoints: ["%s"]
                insecure: true
                allowPrivate: true
`, host, tenantRegistry.URL)
	labels := map[string]string{"app.kubernetes.io/name": "windows-aware-scheduler", "app.kubernetes.io/component": "scheduler"}
	createConfigMap := func(ns string) {
		cm := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "windows-aware-scheduler", Labels: labels}, Data: map[string]string{"scheduler-config.yaml": cfg}}
		if _, err := e.client.CoreV1().ConfigMaps(ns).Create(e.ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	createConfigMap(tenant)
	pod := fixture.Pod("web", windowsAware, host+"/web:1.4.2")
	pod.Spec.OS = &v1.PodOS{Name: v1.Windows}
	if _, err := e.client.CoreV1().Pods(tenant).Create(e.ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The admin's workstation: a Docker config with credentials for the
	// registry the tenant's configuration mirrors.
	home := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	if err := os.MkdirAll(filepath.Join(home, ".docker"), 0o700); err != nil {
		t.Fatal(err)
	}
	dockerConfig := fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, host, auth)
	if err := os.WriteFile(filepath.Join(home, ".docker", "config.json"), []byte(dockerConfig), 0o600); err != nil {
		t.Fatal(err)
	}

	// The cases run in order: the first sees the tenant's ConfigMap
	// alone, the only one with the chart's labels in the cluster.
	tests := []struct {
		name string
		// before prepares the case.
		before func()
		args   []string
		// wantCode is the exit status; wantStderr a part of standard error.
		wantCode   int
		wantStderr string
		// wantCredentials: the tenant's registry receives the admin's.
		wantCredentials bool
	}{
		{name: "nothing named: the tenant's ConfigMap is not the scheduler's",
			args: []string{"explain", "--resolve", "--resolve-timeout", "5s", "-n", tenant, "pod/web"}, wantCode: kubectlcmd.ExitError,
			wantStderr: "namespace kube-system has no ConfigMap of the chart"},
		{name: "the scheduler's namespace: its endpoints are not used here", before: func() { createConfigMap(schedulerNS) },
			args:     []string{"explain", "--resolve", "--resolve-timeout", "5s", "--scheduler-namespace", schedulerNS, "-n", tenant, "pod/web"},
			wantCode: 0, wantStderr: "endpoints " + tenantRegistry.URL + ", insecure, allowPrivate of the cluster's configuration not used on this machine"},
		{name: "--trust-cluster-endpoints: the admin's choice",
			args:     []string{"explain", "--resolve", "--resolve-timeout", "5s", "--scheduler-namespace", schedulerNS, "--trust-cluster-endpoints", "-n", tenant, "pod/web"},
			wantCode: 0, wantCredentials: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.before != nil {
				tt.before()
			}
			code, stdout, stderr := e.runAsUser(bins.KubectlPlugin, e.c.Kubeconfig, home, tt.args...)
			if code != tt.wantCode && !(tt.wantCode == 0 && code == kubectlcmd.ExitFinding) {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, stderr)
			}
			n, creds := seen()
			sent := strings.Contains(strings.Join(creds, "\n"), auth)
			switch {
			case tt.wantCredentials && !sent:
				t.Errorf("the registry the admin trusted got %d requests and not the admin's credentials", n)
			case !tt.wantCredentials && n > 0:
				t.Errorf("the tenant's registry got %d requests (the admin's credentials: %v)", n, sent)
			}
		})
	}
}

// TestKubectlPluginFindsConfiguration: a cluster whose scheduler's
// configuration is published as the chart, manifests/beside and make demo
// publish it (a ConfigMap with the chart's labels in the scheduler's
// namespace) is explained with those args, not the defaults.
func TestKubectlPluginFindsConfiguration(t *testing.T) {
	e := requireCluster(t)
	bins, err := controlplane.FindBinaries("", "", controlplane.KubectlPlugin)
	if err != nil {
		t.Fatalf("the kubectl plugin: %v", err)
	}
	schedulerNS, ns := e.namespace(), e.namespace()
	if err := e.c.PublishSchedulerConfig(e.ctx, schedulerNS); err != nil {
		t.Fatal(err)
	}
	pod := fixture.Pod("iis", windowsAware, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022")
	if _, err := e.client.CoreV1().Pods(ns).Create(e.ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := e.runAsUser(bins.KubectlPlugin, e.c.Kubeconfig, t.TempDir(), "explain", "--scheduler-namespace", schedulerNS, "-n", ns, "pod/iis")
	if code != 0 && code != kubectlcmd.ExitFinding {
		t.Fatalf("explain: exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := "args of the scheduler's configuration in ConfigMap " + schedulerNS + "/" + wellknown.SchedulerConfigMap
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, "Pod "+ns+"/iis (cluster)") {
		t.Errorf("stdout does not explain the pod:\n%s", stdout)
	}
}
