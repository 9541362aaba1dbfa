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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/internal/testimage"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
)

// profileKnownFacts resolves the images of Windows pods alone (scope
// Windows), so that a pod that selects Linux is never asked about.
const profileKnownFacts = "registry-known-facts"

// TestKnownFactsConflict: once a Windows pod has had a Windows-only image
// resolved, a pod that selects Linux with the same image (by .spec.os.name,
// by a kubernetes.io/os node selector, by required node affinity) stays
// Pending with a conflict that names the image and its Windows builds, as
// the apply-time warning says, instead of binding to a Linux node whose
// pull fails. The facts come from the resolver's cache alone: the registry
// is never asked for such pods, and a Linux pod whose Windows-only image
// nothing has resolved yet still binds as before.
func TestKnownFactsConflict(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	r := &resolutionEnv{env: e, reg: startRegistry(t, registryserver.Options{InMemory: true})}
	// The scheduler reaches the registry through a proxy that counts its
	// requests.
	counting, err := r.reg.NewFaultProxy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = counting.Close() })
	r.startKnownFactsScheduler(counting.Host)
	e.createNodes(
		linuxNode("kf-linux"),
		windowsNode("kf-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("kf-2022", oracle.Build2022, fixture.WindowsTaint),
	)
	ns := r.namespace()

	// Windows-only, with a tag that names no build.
	r.push(r.reg.Host, "contoso/win-agent:3.1", index(win(testimage.OSVersion2019), win(testimage.OSVersion2022)))
	img := counting.Host + "/contoso/win-agent:3.1"
	r.landsOn(ns, r.schedule(ns, profileKnownFacts, "resolver", 1, windowsOS, img), oracle.Build2019, oracle.Build2022)
	asked := counting.Requests()

	linuxSelector := func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{v1.LabelOSStable: "linux"} }
	linuxAffinity := func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelOSStable, Operator: v1.NodeSelectorOpIn, Values: []string{"linux"}}},
			}}},
		}}
	}
	for _, c := range []struct {
		name   string
		mutate func(*v1.Pod)
		// wantIn are what the FailedScheduling message says besides the
		// image and its builds.
		wantIn []string
	}{
		{name: "declared-linux", mutate: func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Linux} }, wantIn: []string{"has no linux platform"}},
		{name: "selects-linux", mutate: linuxSelector, wantIn: []string{v1.LabelOSStable + " in [linux]"}},
		{name: "affinity-linux", mutate: linuxAffinity, wantIn: []string{v1.LabelOSStable + " in [linux]"}},
	} {
		name := r.schedule(ns, profileKnownFacts, c.name, 1, c.mutate, img)[0]
		msg := r.failedScheduling(ns, name, scheduleTimeout)
		t.Logf("%s: %s", c.name, msg)
		for _, want := range append([]string{img, oracle.Build2019, oracle.Build2022}, c.wantIn...) {
			if !strings.Contains(msg, want) {
				t.Errorf("pod %s: FailedScheduling %q does not say %q", name, msg, want)
			}
		}
	}

	// Nothing known of this one: the pod binds by its spec, as before, and
	// its registry is not asked.
	r.push(r.reg.Host, "contoso/win-unseen:1", single(win(testimage.OSVersion2022)))
	unseen := counting.Host + "/contoso/win-unseen:1"
	r.landsOn(ns, r.schedule(ns, profileKnownFacts, "unseen-linux", 1, func(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Linux} }, unseen), "")

	r.staysPending(ns, "declared-linux-0", time.Second)
	if n := counting.Requests() - asked; n != 0 {
		t.Errorf("the registry was asked %d time(s) for pods that select Linux, want never", n)
	}
}

// startKnownFactsScheduler runs the scheduler binary with one profile
// that resolves Windows pods' images through host, with the registry's
// credentials in a docker config file.
func (r *resolutionEnv) startKnownFactsScheduler(host string) {
	r.t.Helper()
	dir := r.t.TempDir()
	dockerConfig := filepath.Join(dir, "docker-config.json")
	if err := os.WriteFile(dockerConfig, registrytest.DockerConfigJSON(r.reg.Username, r.reg.Password, host), 0o600); err != nil {
		r.t.Fatal(err)
	}
	resolution := map[string]any{
		"scope": "Windows", "onFailure": "TagRules", "gateTimeout": "10s", "requestTimeout": "5s",
		"registries":  []map[string]any{{"host": host, "allowPrivate": true, "caFile": r.reg.CAFile}},
		"credentials": map[string]any{"dockerConfigFile": dockerConfig},
	}
	r.runScheduler("scheduler-known-facts", dir, r.c.SchedulerKubeconfig, resolutionProfile(profileKnownFacts, resolution))
}
