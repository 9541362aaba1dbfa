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

package kubectlcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/explain"
)

// schedulerConfig is a scheduler configuration whose windows-aware
// profile resolves images of host, through endpoint.
func schedulerConfig(host, endpoint string) string {
	return `apiVersion: kubescheduler.config.k8s.io/v1
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
              - host: ` + host + `
                endpoints: ["` + endpoint + `"]
                insecure: true
                allowPrivate: true
`
}

// chartConfigMap is a ConfigMap with the chart's labels, holding cfg.
func chartConfigMap(namespace, name, cfg string) *v1.ConfigMap {
	return &v1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{
			"app.kubernetes.io/name": "windows-aware-scheduler", "app.kubernetes.io/component": "scheduler",
		}},
		Data: map[string]string{"scheduler-config.yaml": cfg},
	}
}

// TestProfileFromTheSchedulersNamespaceOnly: without --config or
// --config-map, explain takes the chart's ConfigMap from the scheduler's
// namespace alone. A tenant's ConfigMap with the chart's labels, in a
// namespace of theirs, never decides, and so never chooses where --resolve
// sends this machine's credentials.
func TestProfileFromTheSchedulersNamespaceOnly(t *testing.T) {
	tenant := chartConfigMap("tenant-x", "windows-aware-scheduler", schedulerConfig("registry.corp.example", "http://127.0.0.1:5999"))
	chart := chartConfigMap("kube-system", "windows-aware-scheduler", schedulerConfig("mcr.microsoft.com", "https://mirror.corp.example"))
	elsewhere := chartConfigMap("scheduling", "windows-aware-scheduler", schedulerConfig("ghcr.io", "https://ghcr-mirror.corp.example"))
	tests := []struct {
		name      string
		objects   []*v1.ConfigMap
		pods      []*v1.Pod
		opts      SchedulerOptions
		wantHost  string // the first registry of the args that decide; "" for the defaults
		wantErr   string
		wantNote  string
		wantTrust profileSource
	}{
		{name: "a tenant's ConfigMap alone: the default args", objects: []*v1.ConfigMap{tenant},
			wantNote: "the default args decide: no scheduler configuration found in namespace kube-system", wantTrust: fromDefaults},
		{name: "a tenant's ConfigMap alone, with --resolve: an error, no args", objects: []*v1.ConfigMap{tenant}, opts: SchedulerOptions{Resolve: true},
			wantErr: "namespace kube-system has no ConfigMap of the chart"},
		{name: "the chart's in kube-system beside a tenant's: the chart's", objects: []*v1.ConfigMap{tenant, chart}, opts: SchedulerOptions{Resolve: true},
			wantHost: "mcr.microsoft.com", wantNote: "ConfigMap kube-system/windows-aware-scheduler", wantTrust: fromCluster},
		{name: "--scheduler-namespace names another", objects: []*v1.ConfigMap{tenant, chart, elsewhere}, opts: SchedulerOptions{SchedulerNamespace: "scheduling"},
			wantHost: "ghcr.io", wantTrust: fromCluster},
		{name: "a static pod's configuration: where it is, and how to hand it over", objects: []*v1.ConfigMap{tenant}, pods: []*v1.Pod{staticScheduler()},
			wantNote:  "static pod kube-system/kube-scheduler-cp1 runs with --config=/etc/kubernetes/windows-aware/scheduler-config.yaml on node cp1: copy that file and give --config, or publish it as ConfigMap kube-system/windows-aware-scheduler-config",
			wantTrust: fromDefaults},
		{name: "a static pod's, with --resolve: named in the error", pods: []*v1.Pod{staticScheduler()}, opts: SchedulerOptions{Resolve: true},
			wantErr: "static pod kube-system/kube-scheduler-cp1 runs with --config=/etc/kubernetes/windows-aware/scheduler-config.yaml"},
		{name: "--config-map names the tenant's: taken, as from the cluster", objects: []*v1.ConfigMap{tenant, chart}, opts: SchedulerOptions{ConfigMap: "tenant-x/windows-aware-scheduler"},
			wantHost: "registry.corp.example", wantTrust: fromCluster},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			for _, cm := range tt.objects {
				if _, err := client.CoreV1().ConfigMaps(cm.Namespace).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range tt.pods {
				if _, err := client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			var stderr bytes.Buffer
			p, source, err := tt.opts.profile(context.Background(), &explain.Cluster{Client: client, Namespace: "tenant-x"}, &stderr)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("profile: %v, want an error with %q", err, tt.wantErr)
				}
				return
			case err != nil:
				t.Fatalf("profile: %v", err)
			}
			got := ""
			if rs := p.Args.ImageResolution.Registries; len(rs) > 0 {
				got = rs[0].Host
			}
			if got != tt.wantHost || source != tt.wantTrust {
				t.Errorf("args of registry %q from source %d, want %q from %d", got, source, tt.wantHost, tt.wantTrust)
			}
			if !strings.Contains(stderr.String(), tt.wantNote) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantNote)
			}
		})
	}
}

// staticScheduler is a kubeadm scheduler static pod replaced by the
// static-pod install (manifests/static-pod).
func staticScheduler() *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-scheduler-cp1", Labels: map[string]string{"component": "kube-scheduler", "tier": "control-plane"}},
		Spec: v1.PodSpec{NodeName: "cp1", Containers: []v1.Container{{
			Name:    "kube-scheduler",
			Command: []string{"/scheduler", "--config=/etc/kubernetes/windows-aware/scheduler-config.yaml", "--bind-address=127.0.0.1"},
		}}},
	}
}

// TestUntrustedReach: what of a registry entry from the cluster would
// send this machine elsewhere than the registry's host is cleared, and
// named; the host, its caFile and everything else stay.
func TestUntrustedReach(t *testing.T) {
	tests := []struct {
		name        string
		in, want    config.RegistryHost
		wantDropped string
	}{
		{name: "nothing to clear", in: config.RegistryHost{Host: "mcr.microsoft.com"}, want: config.RegistryHost{Host: "mcr.microsoft.com"}},
		{name: "a mirror, plain HTTP, private addresses",
			in:          config.RegistryHost{Host: "registry.corp.example", Endpoints: []string{"http://10.0.0.5:5000"}, Insecure: true, AllowPrivate: true, CAFile: "/etc/ca.pem"},
			want:        config.RegistryHost{Host: "registry.corp.example", CAFile: "/etc/ca.pem"},
			wantDropped: "endpoints http://10.0.0.5:5000, insecure, allowPrivate"},
		{name: "allowPrivate alone", in: config.RegistryHost{Host: "registry.local:5000", AllowPrivate: true},
			want: config.RegistryHost{Host: "registry.local:5000"}, wantDropped: "allowPrivate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.in
			r.Endpoints = append([]string(nil), tt.in.Endpoints...)
			dropped := untrustedReach(&r)
			if dropped != tt.wantDropped {
				t.Errorf("dropped %q, want %q", dropped, tt.wantDropped)
			}
			if r.Host != tt.want.Host || len(r.Endpoints) != 0 || r.Insecure || r.AllowPrivate || r.CAFile != tt.want.CAFile {
				t.Errorf("after: %+v, want %+v", r, tt.want)
			}
		})
	}
}
