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
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/internal/testimage"
	"github.com/windows-aware/windows-aware/pkg/imageinspect/registrytest"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsawarepreemption"
)

// The profiles of the scheduler that TestRegistryResolution runs beside
// the shared ones: the windows-aware profile with image resolution on.
const (
	// profileTagRules resolves the images of every pod that declares no
	// OS (scope Undeclared), with the registry's credentials in a docker
	// config file, and falls back to the tag rules.
	profileTagRules = "registry-tagrules"
	// profileReject is the same with onFailure Reject.
	profileReject = "registry-reject"
	// profilePullSecrets reads credentials from the pods' imagePullSecrets
	// only.
	profilePullSecrets = "registry-pullsecrets"
)

// resolutionEnv is the shared control plane, a real registry with TLS and
// htpasswd, fault proxies in front of it, and a scheduler whose profiles
// resolve image platforms from it.
type resolutionEnv struct {
	*env
	reg *registryserver.Server
	// down refuses connections; gate forwards a request only once released;
	// slow can add latency.
	down, gate, slow *registryserver.FaultProxy
	release          chan struct{}
	gateSeen         chan struct{}
}

// TestRegistryResolution: private images whose tags name no Windows build
// land where their registry says they run, with the real scheduler binary
// and the distribution registry on loopback.
func TestRegistryResolution(t *testing.T) {
	requireRegistryBinary(t)
	e := requireCluster(t)
	r := &resolutionEnv{env: e, reg: startRegistry(t, registryserver.Options{InMemory: true}), release: make(chan struct{}), gateSeen: make(chan struct{}, 1)}
	r.startProxies()
	r.startScheduler()
	e.createNodes(
		linuxNode("rr-linux"),
		windowsNode("rr-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("rr-2022", oracle.Build2022, fixture.WindowsTaint),
		windowsNode("rr-2025", oracle.Build2025, fixture.WindowsTaint),
	)

	t.Run("single image built on 2019 lands on 2019 only", r.singleImage)
	t.Run("Windows-only list lands on a build that runs an entry", r.windowsList)
	t.Run("Linux and Windows list keeps defaultOS", r.mixedList)
	t.Run("entry without os.version fits any Windows build", r.anyBuild)
	t.Run("registry down", r.registryDown)
	t.Run("credentials from imagePullSecrets", r.pullSecrets)
	t.Run("pull-secret facts stay in their namespace", r.tenantFacts)
	t.Run("held pod binds once its image resolves", r.heldPod)
	t.Run("slow registry delays only pods with new images", r.slowRegistry)
	t.Run("an index past maxIndexEntries is refused; ordinary pods schedule", r.hostileIndex)
	e.schedulersAlive()
}

// win and lin are the Windows amd64 and Linux entries of the images the
// tests push, named short for the tables below.
var (
	win = testimage.Windows
	lin = testimage.Linux
)

// push builds spec and pushes it as repoTag to the registry; it returns
// the reference a pod names it by through host (the registry's or a
// proxy's).
func (r *resolutionEnv) push(host, repoTag string, spec testimage.Spec) string {
	r.t.Helper()
	a, err := spec.Build()
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.reg.Push(r.ctx, repoTag, a); err != nil {
		r.t.Fatal(err)
	}
	return host + "/" + repoTag
}

func single(entry testimage.Entry) testimage.Spec {
	return testimage.Spec{Flavour: testimage.Docker, Entries: []testimage.Entry{entry}}
}

func index(entries ...testimage.Entry) testimage.Spec {
	return testimage.Spec{Flavour: testimage.OCI, Index: true, Entries: entries}
}

func (r *resolutionEnv) startProxies() {
	var err error
	for _, p := range []**registryserver.FaultProxy{&r.down, &r.gate, &r.slow} {
		if *p, err = r.reg.NewFaultProxy(); err != nil {
			r.t.Fatal(err)
		}
		proxy := *p
		r.t.Cleanup(func() { _ = proxy.Close() })
	}
	if err := r.down.SetDown(true); err != nil {
		r.t.Fatal(err)
	}
	// The gate holds every request until release is closed, and says when
	// the first arrives.
	var once sync.Once
	r.gate.Set(registryserver.Fault{Hold: r.release, Match: func(*http.Request) bool {
		once.Do(func() { r.gateSeen <- struct{}{} })
		return true
	}})
	r.t.Cleanup(func() {
		select {
		case <-r.release:
		default:
			close(r.release)
		}
	})
}

// startScheduler runs the scheduler binary with the three profiles, no
// leader election, and the registry allowlisted with its CA.
func (r *resolutionEnv) startScheduler() {
	r.t.Helper()
	dir := r.t.TempDir()
	hosts := []string{r.reg.Host, r.down.Host, r.gate.Host, r.slow.Host}
	dockerConfig := filepath.Join(dir, "docker-config.json")
	if err := os.WriteFile(dockerConfig, registrytest.DockerConfigJSON(r.reg.Username, r.reg.Password, hosts...), 0o600); err != nil {
		r.t.Fatal(err)
	}
	var registries []map[string]any
	for _, h := range hosts {
		registries = append(registries, map[string]any{"host": h, "allowPrivate": true, "caFile": r.reg.CAFile})
	}
	resolution := func(scope, onFailure string, credentials map[string]any) map[string]any {
		return map[string]any{
			"scope": scope, "onFailure": onFailure, "gateTimeout": "10s", "requestTimeout": "5s",
			"registries": registries, "credentials": credentials,
		}
	}
	r.runScheduler("scheduler-registry", dir, r.c.SchedulerKubeconfig,
		resolutionProfile(profileTagRules, resolution("Undeclared", "TagRules", map[string]any{"dockerConfigFile": dockerConfig}))+
			resolutionProfile(profileReject, resolution("Undeclared", "Reject", map[string]any{"dockerConfigFile": dockerConfig}))+
			resolutionProfile(profilePullSecrets, resolution("Windows", "TagRules", map[string]any{"podPullSecrets": true})))
}

// resolutionProfile is the shipped windows-aware profile under another
// name, with imageResolution args.
func resolutionProfile(name string, resolution map[string]any) string {
	return windowsAwareProfile(name, windowsawarepreemption.Name, map[string]any{"defaultOS": "linux", "imageResolution": resolution})
}

// schedule creates pods of profile, one per image list, named
// name-0, name-1..., and returns their names.
func (r *resolutionEnv) schedule(ns, profile, name string, n int, mutate func(*v1.Pod), images ...string) []string {
	r.t.Helper()
	var names []string
	for i := range n {
		p := newPod(fmt.Sprintf("%s-%d", name, i), profile, images...)
		if mutate != nil {
			mutate(p)
		}
		r.createPod(ns, p)
		names = append(names, p.Name)
	}
	return names
}

func windowsOS(p *v1.Pod) { p.Spec.OS = &v1.PodOS{Name: v1.Windows} }

// landsOn checks that every pod bound to a node of one of builds ("" for
// Linux).
func (r *resolutionEnv) landsOn(ns string, pods []string, builds ...string) {
	r.t.Helper()
	for name, node := range r.waitAllScheduled(ns, pods, scheduleTimeout) {
		if !slices.Contains(builds, buildOf(node)) {
			r.t.Errorf("pod %s landed on %s (%s %s), want a node of %q", name, node.Name, osOf(node), buildOf(node), builds)
		}
	}
}

// event waits for an event of reason about the pod and returns its
// message.
func (r *resolutionEnv) event(ns, pod, reason string) string {
	r.t.Helper()
	deadline := time.Now().Add(scheduleTimeout)
	for {
		if msg := r.lastEvent(ns, pod, reason); msg != "" {
			return msg
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no %s event for %s/%s; events: %s", reason, ns, pod, r.describeEvents(ns, pod))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *resolutionEnv) sub(t *testing.T) *resolutionEnv {
	c := *r
	c.env = r.env.sub(t)
	return &c
}

func (r *resolutionEnv) singleImage(t *testing.T) {
	r = r.sub(t)
	ns := r.namespace()
	img := r.push(r.reg.Host, "contoso/orders-api:1.4.2", single(win(testimage.OSVersion2019)))
	declared := r.schedule(ns, profileTagRules, "declared", 3, windowsOS, img)
	// Scope Undeclared: the registry alone makes it a Windows pod.
	undeclared := r.schedule(ns, profileTagRules, "undeclared", 2, nil, img)
	r.landsOn(ns, append(declared, undeclared...), oracle.Build2019)
}

func (r *resolutionEnv) windowsList(t *testing.T) {
	r = r.sub(t)
	ns := r.namespace()
	both := r.push(r.reg.Host, "contoso/frontend:2.0", index(win(testimage.OSVersion2019), win(testimage.OSVersion2022)))
	r.landsOn(ns, r.schedule(ns, profileTagRules, "both", 3, windowsOS, both),
		oracle.Build2019, oracle.Build2022, oracle.Build2025)

	// A list with no entry a 2022 or 2025 host runs waits while the 2019
	// node is closed to it, and lands there once it is open again.
	old := r.push(r.reg.Host, "contoso/legacy:3", index(win("10.0.14393.7428"), win(testimage.OSVersion2019)))
	exclude := v1.Taint{Key: "exclude", Value: "true", Effect: v1.TaintEffectNoSchedule}
	r.patchTaints("rr-2019", []v1.Taint{fixture.WindowsTaint, exclude})
	legacy := r.schedule(ns, profileTagRules, "legacy", 1, windowsOS, old)
	t.Logf("with 2019 closed: %s", r.failedScheduling(ns, legacy[0], scheduleTimeout))
	r.patchTaints("rr-2019", []v1.Taint{fixture.WindowsTaint})
	r.landsOn(ns, legacy, oracle.Build2019)
}

func (r *resolutionEnv) mixedList(t *testing.T) {
	r = r.sub(t)
	ns := r.namespace()
	img := r.push(r.reg.Host, "contoso/agent:1.0", index(lin("amd64"), lin("arm64"), win(testimage.OSVersion2019), win(testimage.OSVersion2022)))
	r.landsOn(ns, r.schedule(ns, profileTagRules, "agent", 2, nil, img), "")
	// Declared Windows, the same list needs a build one of its entries runs.
	r.landsOn(ns, r.schedule(ns, profileTagRules, "agent-win", 2, windowsOS, img),
		oracle.Build2019, oracle.Build2022, oracle.Build2025)
}

func (r *resolutionEnv) anyBuild(t *testing.T) {
	r = r.sub(t)
	ns := r.namespace()
	img := r.push(r.reg.Host, "contoso/rancher-agent:v2.9.0", index(lin("amd64"), win("")))
	// One pod pinned to each build: a build requirement read into the
	// image would contradict all but one of the selectors.
	for _, b := range []string{oracle.Build2019, oracle.Build2022, oracle.Build2025} {
		pods := r.schedule(ns, profileTagRules, "pinned-"+strings.ReplaceAll(b, ".", "-"), 1, func(p *v1.Pod) {
			windowsOS(p)
			p.Spec.NodeSelector = map[string]string{v1.LabelWindowsBuild: b}
		}, img)
		r.landsOn(ns, pods, b)
	}
}

func (r *resolutionEnv) registryDown(t *testing.T) {
	r = r.sub(t)
	ns := r.namespace()
	r.push(r.reg.Host, "contoso/down:1", single(win(testimage.OSVersion2019)))
	img := r.down.Host + "/contoso/down:1"

	// TagRules: the tag names no build, so any Windows node will do.
	fallback := r.schedule(ns, profileTagRules, "fallback", 1, windowsOS, img)
	r.landsOn(ns, fallback, oracle.Build2019, oracle.Build2022, oracle.Build2025)
	msg := r.event(ns, fallback[0], "ImagePlatformsUnknown")
	for _, want := range []string{img, "connection refused", "placing the pod by its image tags"} {
		if !strings.Contains(msg, want) {
			t.Errorf("event %q does not say %q", msg, want)
		}
	}

	// Reject: unschedulable, saying which image and why.
	rejected := r.schedule(ns, profileReject, "rejected", 1, windowsOS, img)
	msg = r.failedScheduling(ns, rejected[0], scheduleTimeout)
	for _, want := range []string{img, "onFailure: Reject", "connection refused"} {
		if !strings.Contains(msg, want) {
			t.Errorf("FailedScheduling %q does not say %q", msg, want)
		}
	}
	if ev := r.event(ns, rejected[0], "ImagePlatformsUnknown"); !strings.Contains(ev, "keeping the pod unschedulable") {
		t.Errorf("event %q does not say the pod is kept unschedulable", ev)
	}
}

func (r *resolutionEnv) pullSecrets(t *testing.T) {
	r = r.sub(t)
	ns := r.namespace()
	img := r.push(r.reg.Host, "contoso/private:7", single(win(testimage.OSVersion2022)))
	anonymous := r.push(r.reg.Host, "contoso/private-anonymous:7", single(win(testimage.OSVersion2022)))
	_, err := r.client.CoreV1().Secrets(ns).Create(r.ctx, &v1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "regcred"},
		Type:       v1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{v1.DockerConfigJsonKey: registrytest.DockerConfigJSON(r.reg.Username, r.reg.Password, r.reg.Host)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// What an administrator grants, per namespace: get on the pull secret.
	if _, err := r.client.RbacV1().Roles(ns).Create(r.ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "scheduler-pull-secrets"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{"regcred"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.RbacV1().RoleBindings(ns).Create(r.ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scheduler-pull-secrets"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "scheduler-pull-secrets"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "system:kube-scheduler"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	withSecret := r.schedule(ns, profilePullSecrets, "with-secret", 2, func(p *v1.Pod) {
		windowsOS(p)
		p.Spec.ImagePullSecrets = []v1.LocalObjectReference{{Name: "regcred"}}
	}, img)
	// A 2022 image runs on 2022 and 2025 hosts, never on 2019.
	r.landsOn(ns, withSecret, oracle.Build2022, oracle.Build2025)

	// Without the secret the registry says no: tag rules, and an Event
	// that blames the registry's access control.
	without := r.schedule(ns, profilePullSecrets, "without-secret", 1, windowsOS, anonymous)
	r.landsOn(ns, without, oracle.Build2019, oracle.Build2022, oracle.Build2025)
	if msg := r.event(ns, without[0], "ImagePlatformsUnknown"); !strings.Contains(msg, "denied access") || !strings.Contains(msg, anonymous) {
		t.Errorf("event %q does not say the registry denied access to %s", msg, anonymous)
	}
}

// grantPullSecret creates a pull secret for host in ns, with password,
// and lets the scheduler read it by name.
func (r *resolutionEnv) grantPullSecret(ns, name, host, password string) {
	r.t.Helper()
	_, err := r.client.CoreV1().Secrets(ns).Create(r.ctx, &v1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Type:       v1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{v1.DockerConfigJsonKey: registrytest.DockerConfigJSON(r.reg.Username, password, host)},
	}, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.client.RbacV1().Roles(ns).Create(r.ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "scheduler-pull-secrets"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{name}}},
	}, metav1.CreateOptions{}); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.client.RbacV1().RoleBindings(ns).Create(r.ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scheduler-pull-secrets"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "scheduler-pull-secrets"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "system:kube-scheduler"}},
	}, metav1.CreateOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// tenantFacts: namespace A resolves its private image with its pull
// secret and its pods land where the registry says. Pods of namespace B
// that name the same image, by tag or by digest, with no secret or with a
// wrong one, are not placed from A's facts: the registry is asked for them
// with B's own credentials, refuses them, and they follow onFailure (the
// tag rules) with an Event that names the refusal.
func (r *resolutionEnv) tenantFacts(t *testing.T) {
	r = r.sub(t)
	nsA, nsB := r.namespace(), r.namespace()
	// Through a proxy of its own, which counts the requests.
	host := r.slow.Host
	artifact, err := single(win(testimage.OSVersion2022)).Build()
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.reg.Push(r.ctx, "contoso/tenant-private:3", artifact)
	if err != nil {
		t.Fatal(err)
	}
	img := host + "/contoso/tenant-private:3"
	byDigest := host + "/contoso/tenant-private@" + d.DigestStr()
	r.grantPullSecret(nsA, "regcred", host, r.reg.Password)
	r.grantPullSecret(nsB, "regcred", host, "not-the-password")
	withSecret := func(p *v1.Pod) {
		windowsOS(p)
		p.Spec.ImagePullSecrets = []v1.LocalObjectReference{{Name: "regcred"}}
	}

	a := r.schedule(nsA, profilePullSecrets, "a", 2, withSecret, img)
	r.landsOn(nsA, a, oracle.Build2022, oracle.Build2025)

	asked := r.slow.Requests()
	b := map[string]string{} // pod -> image
	for _, name := range r.schedule(nsB, profilePullSecrets, "no-secret", 1, windowsOS, img) {
		b[name] = img
	}
	for _, name := range r.schedule(nsB, profilePullSecrets, "wrong-secret", 1, withSecret, img) {
		b[name] = img
	}
	for _, name := range r.schedule(nsB, profilePullSecrets, "by-digest", 1, windowsOS, byDigest) {
		b[name] = byDigest
	}
	// And a pod of A beside them, at the same time: B's pods are not
	// resolved with its secret either.
	beside := r.schedule(nsA, profilePullSecrets, "beside", 1, withSecret, img)
	var bPods []string
	for pod, image := range b {
		bPods = append(bPods, pod)
		if msg := r.event(nsB, pod, "ImagePlatformsUnknown"); !strings.Contains(msg, "denied access") || !strings.Contains(msg, image) {
			t.Errorf("pod %s/%s: event %q does not say the registry denied access to %s", nsB, pod, msg, image)
		}
	}
	if n := r.slow.Requests() - asked; n == 0 {
		t.Errorf("the registry was not asked for namespace B's pods")
	}
	// Under the tag rules they may land on any Windows build.
	r.landsOn(nsB, bPods, oracle.Build2019, oracle.Build2022, oracle.Build2025)
	r.landsOn(nsA, beside, oracle.Build2022, oracle.Build2025)
	if msg := r.lastEvent(nsA, beside[0], "ImagePlatformsUnknown"); msg != "" {
		t.Errorf("namespace A's pod was not resolved with its secret: %s", msg)
	}
}

func (r *resolutionEnv) heldPod(t *testing.T) {
	r = r.sub(t)
	ns := r.namespace()
	r.push(r.reg.Host, "contoso/held:1", single(win(testimage.OSVersion2019)))
	img := r.gate.Host + "/contoso/held:1"
	held := r.schedule(ns, profileTagRules, "held", 1, windowsOS, img)
	select {
	case <-r.gateSeen:
	case <-time.After(scheduleTimeout):
		t.Fatal("the registry was never asked")
	}
	r.staysPending(ns, held[0], time.Second)
	if msg := r.lastEvent(ns, held[0], "FailedScheduling"); msg != "" {
		t.Errorf("a held pod was tried and failed: %s", msg)
	}

	released := time.Now()
	close(r.release)
	for {
		if p := r.getPod(ns, held[0]); p.Spec.NodeName != "" {
			break
		}
		if time.Since(released) > scheduleTimeout {
			t.Fatalf("held pod not bound %v after its registry answered", scheduleTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(released)
	t.Logf("bound %v after the registry was released (resolution and binding)", took.Round(time.Millisecond))
	if took > time.Second {
		t.Errorf("held pod bound %v after its registry answered, want within 1s", took)
	}
	r.landsOn(ns, held, oracle.Build2019)
}

func (r *resolutionEnv) slowRegistry(t *testing.T) {
	r = r.sub(t)
	ns := r.namespace()
	// Images resolved while the registry is fast...
	var known []string
	for i := range 3 {
		known = append(known, r.push(r.slow.Host, fmt.Sprintf("contoso/known-%d:1", i), single(win(testimage.OSVersion2022))))
	}
	r.landsOn(ns, r.schedule(ns, profileTagRules, "warm", 1, windowsOS, known...), oracle.Build2022, oracle.Build2025)

	// ...then every request takes 500 ms.
	r.slow.Set(registryserver.Fault{Latency: 500 * time.Millisecond})
	defer r.slow.Set(registryserver.Fault{})
	var fresh []string
	for i := range 4 {
		img := r.push(r.slow.Host, fmt.Sprintf("contoso/new-%d:1", i), single(win(testimage.OSVersion2019)))
		fresh = append(fresh, r.schedule(ns, profileTagRules, fmt.Sprintf("new-%d", i), 1, windowsOS, img)...)
	}
	var knownPods []string
	for i, img := range known {
		knownPods = append(knownPods, r.schedule(ns, profileTagRules, fmt.Sprintf("known-%d", i), 3, windowsOS, img)...)
	}
	start := time.Now()
	r.landsOn(ns, knownPods, oracle.Build2022, oracle.Build2025)
	knownTook := time.Since(start)
	waiting := 0
	for _, name := range fresh {
		if r.getPod(ns, name).Spec.NodeName == "" {
			waiting++
		}
	}
	t.Logf("%d pods on known images bound in %v; %d of %d pods on new images still waiting for the slow registry",
		len(knownPods), knownTook.Round(time.Millisecond), waiting, len(fresh))
	if waiting == 0 {
		t.Errorf("every pod on a new image was bound before the pods on known images: the registry's latency did not show")
	}
	r.landsOn(ns, fresh, oracle.Build2019)
}
