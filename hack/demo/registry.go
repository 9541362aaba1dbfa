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
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
)

// The demo's private registry: the distribution registry on 127.0.0.1
// (TLS, htpasswd) holding images whose tags name no Windows build, as a
// company's images are tagged. The windows-aware profile reads their
// platforms from it (imageResolution); the stock scheduler cannot.

// startRegistry starts the registry with registryserver.DemoImages and
// writes the scheduler configuration the demo runs: the shipped one, with
// image resolution on for this registry alone.
func startRegistry(ctx context.Context, root, state string) (*registryserver.Demo, string, error) {
	reg, err := registryserver.StartDemo(ctx, registryserver.Options{
		Dir:     filepath.Join(state, "registry"),
		LogDir:  filepath.Join(state, "logs"),
		PIDFile: filepath.Join(state, "pids", "registry.pid"),
		Detach:  true,
	})
	if err != nil {
		return nil, "", err
	}
	shipped, err := os.ReadFile(filepath.Join(root, controlplane.ShippedSchedulerConfig))
	if err != nil {
		return nil, "", err
	}
	// Scope Undeclared: the demo's private images are in pods that declare
	// no OS. Every other registry is left unasked (tag rules, no network).
	block := fmt.Sprintf(`          imageResolution:
            scope: Undeclared
            registries: [{host: %q, allowPrivate: true, caFile: %q}]
            credentials: {dockerConfigFile: %q}
            gateTimeout: 10s
            onFailure: TagRules
`, reg.Host, reg.CAFile, reg.DockerConfigFile)
	config := filepath.Join(state, "scheduler-config-registry.yaml")
	if err := os.WriteFile(config, append(shipped, block...), 0o644); err != nil {
		return nil, "", err
	}
	return reg, config, nil
}

// registryDeployments are one Deployment per private image, with no
// selector and no OS: for windows-aware as they are; with stockOS, as a
// user of the stock scheduler writes them knowing only that they are
// Windows images (the guide's OS selector and toleration).
func registryDeployments(reg *registryserver.Demo, stockOS bool) []runtime.Object {
	var objs []runtime.Object
	for _, img := range reg.Images {
		name := img.Repository[strings.LastIndex(img.Repository, "/")+1:]
		labels := map[string]string{"app": name}
		spec := v1.PodSpec{
			SchedulerName: "windows-aware",
			Containers:    []v1.Container{{Name: name, Image: img.Reference}},
		}
		if stockOS {
			if len(img.Builds) == 0 || demoImageHasLinux(img) {
				continue // the guide's OS selector is for Windows-only images
			}
			spec.SchedulerName = ""
			spec.NodeSelector = map[string]string{v1.LabelOSStable: oracle.Windows}
			spec.Tolerations = []v1.Toleration{{Key: "os", Operator: v1.TolerationOpEqual, Value: "windows", Effect: v1.TaintEffectNoSchedule}}
		}
		objs = append(objs, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](3),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
			},
		})
	}
	return objs
}

func demoImageHasLinux(img registryserver.PushedImage) bool {
	for _, e := range img.Spec.Entries {
		if e.OS == "linux" {
			return true
		}
	}
	return false
}

// asOracleSees replaces the private images of a pod with public images
// the oracle knows that need the same of a node: the oracle judges images
// by name, and only the registry knows what the private ones need.
func (d *demo) asOracleSees(p *v1.Pod) *v1.Pod {
	if d.registry == nil {
		return p
	}
	same := map[string]string{}
	for _, img := range d.registry.Images {
		switch {
		case demoImageHasLinux(img):
			same[img.Reference] = "registry.k8s.io/pause:3.10" // Linux and Windows, any build
		case len(img.Builds) == 1 && img.Builds[0] == oracle.Build2019:
			same[img.Reference] = "mcr.microsoft.com/windows/servercore:ltsc2019"
		case len(img.Builds) == 1 && img.Builds[0] == oracle.Build2022:
			same[img.Reference] = "mcr.microsoft.com/windows/servercore:ltsc2022"
		}
	}
	out := p.DeepCopy()
	for i := range out.Spec.Containers {
		if s, ok := same[out.Spec.Containers[i].Image]; ok {
			out.Spec.Containers[i].Image = s
		}
	}
	return out
}

// describeBuilds says what an image was built on, as the demo prints it.
func describeBuilds(img registryserver.PushedImage) string {
	var parts []string
	for _, e := range img.Spec.Entries {
		s := e.OS
		if e.OSVersion != "" {
			s += " " + e.OSVersion
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
