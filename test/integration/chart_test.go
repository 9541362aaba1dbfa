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
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localproc"
	"github.com/windows-aware/windows-aware/internal/oracle"
)

const (
	chartRelease = "windows-aware-scheduler"
	// chartScheduler is the profile name the test installs the chart with,
	// so that the shared cluster's schedulers (which serve windows-aware)
	// leave its pods alone.
	chartScheduler = "windows-aware-chart"
	// chartConfigKey is the ConfigMap key of the scheduler configuration.
	chartConfigKey = "scheduler-config.yaml"
)

// helmRelease drives `helm` against the test cluster, with Helm's own
// files in a temporary directory.
type helmRelease struct {
	e          *env
	helm       string
	chart      string
	namespace  string
	kubeconfig string
	home       string
}

func newHelmRelease(e *env, namespace string) *helmRelease {
	e.t.Helper()
	helm, err := exec.LookPath("helm")
	if err != nil {
		if root, rerr := controlplane.RepoRoot(); rerr == nil {
			if p := filepath.Join(root, "bin", "tools", "helm"); fileExists(p) {
				helm, err = p, nil
			}
		}
	}
	if err != nil {
		msg := "helm is not built: run `hack/build-tools.sh helm` (make test-integration does)"
		if os.Getenv("CI") == "true" {
			e.t.Fatal(msg)
		}
		e.t.Skip(msg)
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		e.t.Fatal(err)
	}
	return &helmRelease{
		e: e, helm: helm, chart: filepath.Join(root, "charts", "windows-aware-scheduler"),
		namespace: namespace, kubeconfig: e.c.Kubeconfig, home: e.t.TempDir(),
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// run runs helm with args and the release's kubeconfig and namespace.
func (h *helmRelease) run(args ...string) string {
	h.e.t.Helper()
	args = append(args, "--kubeconfig", h.kubeconfig, "--namespace", h.namespace)
	cmd := exec.CommandContext(h.e.ctx, h.helm, args...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(h.home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(h.home, "config"),
		"HELM_DATA_HOME="+filepath.Join(h.home, "data"),
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		h.e.t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// chartSchedulerProcess is the scheduler binary run as the chart's
// Deployment runs it: the container's command line, the configuration from the
// chart's ConfigMap, and the chart's ServiceAccount as its identity.
type chartSchedulerProcess struct {
	*localproc.Process
	port int
}

// TestChartInstallsAWorkingScheduler installs the chart with helm, runs
// the scheduler with what the chart installed and as its ServiceAccount,
// and checks that it places pods, records events, holds its lease, serves
// metrics to whoever may read them, and can do nothing more; then that
// helm upgrade changes the args and helm uninstall leaves nothing behind.
func TestChartInstallsAWorkingScheduler(t *testing.T) {
	e := requireCluster(t)
	ns := e.namespace()
	h := newHelmRelease(e, ns)
	h.run("install", chartRelease, h.chart, "--set", "schedulerName="+chartScheduler)
	uninstalled := false
	t.Cleanup(func() {
		if !uninstalled {
			h.run("uninstall", chartRelease)
		}
	})

	token := e.serviceAccountToken(ns, chartRelease)
	saKubeconfig := e.tokenKubeconfig(token)
	saClient := e.clientFor(token)

	e.createNodes(
		linuxNode("chart-linux"),
		windowsNode("chart-win-2019", oracle.Build2019, fixture.WindowsTaint),
		windowsNode("chart-win-2022", oracle.Build2022, fixture.WindowsTaint),
	)

	sched := e.runChartScheduler(ns, saKubeconfig, 1)

	t.Run("places pods", func(t *testing.T) {
		e := e.sub(t)
		e.createPod(ns, newPod("iis", chartScheduler, "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019"))
		e.createPod(ns, newPod("nano", chartScheduler, "mcr.microsoft.com/windows/nanoserver:ltsc2022"))
		e.createPod(ns, newPod("plain", chartScheduler, "registry.k8s.io/pause:3.10"))
		got := e.waitAllScheduled(ns, []string{"iis", "nano", "plain"}, scheduleTimeout)
		for pod, want := range map[string]string{"iis": "chart-win-2019", "nano": "chart-win-2022", "plain": "chart-linux"} {
			if got[pod].Name != want {
				t.Errorf("pod %s on %s, want %s", pod, got[pod].Name, want)
			}
		}
		for _, pod := range []string{"iis", "nano", "plain"} {
			if e.lastEvent(ns, pod, "Scheduled") == "" {
				t.Errorf("no Scheduled event for %s: %s", pod, e.describeEvents(ns, pod))
			}
		}
	})

	t.Run("holds and renews its lease", func(t *testing.T) {
		e := e.sub(t)
		first := e.waitLeaseHeld(ns, chartRelease, nil)
		second := e.waitLeaseHeld(ns, chartRelease, first.Spec.RenewTime)
		if *first.Spec.HolderIdentity != *second.Spec.HolderIdentity {
			t.Errorf("the lease changed hands from %s to %s with one scheduler", *first.Spec.HolderIdentity, *second.Spec.HolderIdentity)
		}
	})

	t.Run("serves metrics to readers only", func(t *testing.T) {
		e := e.sub(t)
		reader := e.metricsReaderToken(ns)
		if code, body := sched.get("/metrics", reader); code != http.StatusOK || !strings.Contains(body, "scheduler_schedule_attempts_total") {
			t.Errorf("/metrics with a reader's token: %d %.200s", code, body)
		}
		if code, _ := sched.get("/metrics", token); code != http.StatusForbidden {
			t.Errorf("/metrics with the scheduler's own token: %d, want 403", code)
		}
		if code, _ := sched.get("/metrics", ""); code != http.StatusForbidden && code != http.StatusUnauthorized {
			t.Errorf("/metrics anonymously: %d, want 401 or 403", code)
		}
	})

	t.Run("can do nothing more", func(t *testing.T) {
		e := e.sub(t)
		for _, tc := range []struct {
			name    string
			attr    authorizationv1.ResourceAttributes
			allowed bool
		}{
			{name: "bind pods", attr: authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: ns}, allowed: true},
			{name: "renew its lease", attr: authorizationv1.ResourceAttributes{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Name: chartRelease, Namespace: ns}, allowed: true},
			{name: "read secrets", attr: authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: ns}, allowed: false},
			{name: "list secrets anywhere", attr: authorizationv1.ResourceAttributes{Verb: "list", Resource: "secrets"}, allowed: false},
			{name: "patch nodes", attr: authorizationv1.ResourceAttributes{Verb: "patch", Resource: "nodes"}, allowed: false},
			{name: "update nodes", attr: authorizationv1.ResourceAttributes{Verb: "update", Resource: "nodes"}, allowed: false},
			{name: "take the stock scheduler's lease", attr: authorizationv1.ResourceAttributes{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Name: "kube-scheduler", Namespace: "kube-system"}, allowed: false},
			{name: "create leases", attr: authorizationv1.ResourceAttributes{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: ns}, allowed: false},
			{name: "create pods", attr: authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods", Namespace: ns}, allowed: false},
		} {
			review, err := saClient.AuthorizationV1().SelfSubjectAccessReviews().Create(e.ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &tc.attr},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if review.Status.Allowed != tc.allowed {
				t.Errorf("%s: allowed %v, want %v (%s)", tc.name, review.Status.Allowed, tc.allowed, review.Status.Reason)
			}
		}
		// And for real.
		if _, err := saClient.CoreV1().Secrets(ns).List(e.ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("listing secrets: %v, want forbidden", err)
		}
		patch := []byte(`{"metadata":{"labels":{"node.kubernetes.io/windows-build":"10.0.26100"}}}`)
		if _, err := saClient.CoreV1().Nodes().Patch(e.ctx, "chart-win-2019", types.StrategicMergePatchType, patch, metav1.PatchOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("patching a node: %v, want forbidden", err)
		}
	})

	t.Run("lacks nothing it uses", func(t *testing.T) {
		// A permission missing from the chart's roles shows as a reflector
		// or leader-election error in the scheduler's log.
		data, err := os.ReadFile(sched.LogFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "forbidden") {
				t.Errorf("the scheduler was refused something: %s", line)
			}
		}
	})

	t.Run("helm upgrade changes the args", func(t *testing.T) {
		e := e.sub(t)
		before := e.chartDeployment(ns).Spec.Template.Annotations["checksum/config"]
		h.run("upgrade", chartRelease, h.chart, "--set", "schedulerName="+chartScheduler, "--set", "pluginArgs.defaultOS=windows")
		if after := e.chartDeployment(ns).Spec.Template.Annotations["checksum/config"]; after == before || after == "" {
			t.Errorf("the pod template's config checksum did not change (%q → %q): the pods would not restart", before, after)
		}
		if cfg := e.chartConfig(ns); !strings.Contains(cfg, "defaultOS: windows") {
			t.Fatalf("the upgraded configuration lacks defaultOS: windows:\n%s", cfg)
		}
		// The pods restart on the new configuration; so does this one.
		sched.Stop(10 * time.Second)
		sched = e.runChartScheduler(ns, saKubeconfig, 2)
		e.createPod(ns, newPod("plain-after-upgrade", chartScheduler, "registry.k8s.io/pause:3.10"))
		if n := e.waitScheduled(ns, "plain-after-upgrade", scheduleTimeout); osOf(n) != "windows" {
			t.Errorf("with defaultOS: windows a plain pod landed on %s (%s)", n.Name, osOf(n))
		}
	})

	t.Run("helm uninstall leaves nothing behind", func(t *testing.T) {
		e := e.sub(t)
		sched.Stop(10 * time.Second)
		h.run("uninstall", chartRelease)
		uninstalled = true
		if left := e.chartLeftovers(ns); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	})
}

// sub returns the env for a subtest.
func (e *env) sub(t *testing.T) *env {
	return &env{t: t, c: e.c, client: e.client, ctx: e.ctx}
}

// serviceAccountToken returns a token of the ServiceAccount from the
// TokenRequest API, as the kubelet gets one for a pod.
func (e *env) serviceAccountToken(ns, name string) string {
	e.t.Helper()
	tr, err := e.client.CoreV1().ServiceAccounts(ns).CreateToken(e.ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("requesting a token for %s/%s: %v", ns, name, err)
	}
	return tr.Status.Token
}

// tokenKubeconfig writes a kubeconfig that authenticates with token only.
func (e *env) tokenKubeconfig(token string) string {
	e.t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: e.c.APIServerURL, CertificateAuthorityData: e.c.Config.CAData}
	cfg.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "sa"}
	cfg.CurrentContext = "c"
	path := filepath.Join(e.t.TempDir(), "sa.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		e.t.Fatal(err)
	}
	return path
}

func (e *env) clientFor(token string) kubernetes.Interface {
	e.t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", e.tokenKubeconfig(token))
	if err != nil {
		e.t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return client
}

func (e *env) chartDeployment(ns string) *appsv1.Deployment {
	e.t.Helper()
	d, err := e.client.AppsV1().Deployments(ns).Get(e.ctx, chartRelease, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

func (e *env) chartConfig(ns string) string {
	e.t.Helper()
	cm, err := e.client.CoreV1().ConfigMaps(ns).Get(e.ctx, chartRelease+"-config", metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	cfg, ok := cm.Data[chartConfigKey]
	if !ok {
		e.t.Fatalf("ConfigMap %s has no %s", cm.Name, chartConfigKey)
	}
	return cfg
}

// runChartScheduler runs the scheduler binary with the container command
// of the chart's Deployment and the configuration of its ConfigMap, both as
// installed, and the ServiceAccount's kubeconfig where the pod would use
// its in-cluster credentials. Only what a test on 127.0.0.1 must change is
// changed: the config path, the listen address and port.
func (e *env) runChartScheduler(ns, kubeconfig string, n int) *chartSchedulerProcess {
	e.t.Helper()
	cfg := e.chartConfig(ns)
	if strings.Contains(cfg, "clientConnection") {
		e.t.Fatalf("the chart's configuration sets clientConnection; the pods would not use their service account:\n%s", cfg)
	}
	dir := e.t.TempDir()
	cfgFile := filepath.Join(dir, chartConfigKey)
	cfg += "clientConnection:\n  kubeconfig: " + strconv.Quote(kubeconfig) + "\n"
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		e.t.Fatal(err)
	}

	d := e.chartDeployment(ns)
	if len(d.Spec.Template.Spec.Containers) != 1 {
		e.t.Fatalf("the chart's pod has %d containers", len(d.Spec.Template.Spec.Containers))
	}
	command := d.Spec.Template.Spec.Containers[0].Command
	port, err := localproc.FreePort()
	if err != nil {
		e.t.Fatal(err)
	}
	var args []string
	for _, a := range command[1:] {
		switch {
		case strings.HasPrefix(a, "--config="):
			a = "--config=" + cfgFile
		case strings.HasPrefix(a, "--bind-address="):
			a = "--bind-address=127.0.0.1"
		case strings.HasPrefix(a, "--secure-port="):
			a = "--secure-port=" + strconv.Itoa(port)
		}
		args = append(args, a)
	}
	// In a pod, delegated authentication and authorization use the
	// in-cluster credentials; here, the same token.
	args = append(args, "--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig, "-v=2")
	p, err := e.c.Run(e.ctx, fmt.Sprintf("chart-scheduler-%d", n), e.c.Binaries.Scheduler, args,
		fmt.Sprintf("https://127.0.0.1:%d/healthz", port))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if !p.Exited() {
			p.Stop(10 * time.Second)
		}
	})
	return &chartSchedulerProcess{Process: p, port: port}
}

// get requests path from the scheduler's secure port with a bearer token
// (none when empty).
func (s *chartSchedulerProcess) get(path, token string) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d%s", s.port, path), nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the scheduler's self-signed loopback certificate
	}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(body)
}

// metricsReaderToken returns the token of a ServiceAccount that may read
// /metrics, as a Prometheus would have.
func (e *env) metricsReaderToken(ns string) string {
	e.t.Helper()
	name := "metrics-reader-" + ns
	if _, err := e.client.CoreV1().ServiceAccounts(ns).Create(e.ctx, &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"}}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.client.RbacV1().ClusterRoles().Create(e.ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}},
	}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.client.RbacV1().ClusterRoleBindings().Create(e.ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "metrics-reader", Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_ = e.client.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
		_ = e.client.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return e.serviceAccountToken(ns, "metrics-reader")
}

// waitLeaseHeld waits until the lease has a holder and a renew time after
// after (any, when nil), and returns it.
func (e *env) waitLeaseHeld(ns, name string, after *metav1.MicroTime) *coordinationv1.Lease {
	e.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		l, err := e.client.CoordinationV1().Leases(ns).Get(e.ctx, name, metav1.GetOptions{})
		if err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" && l.Spec.RenewTime != nil &&
			(after == nil || l.Spec.RenewTime.After(after.Time)) {
			return l
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("lease %s/%s not held and renewed after %v (last: %+v, %v)", ns, name, after, l, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// chartLeftovers lists every object of the release still in the cluster:
// those carrying its instance label, and Helm's release records.
func (e *env) chartLeftovers(ns string) []string {
	e.t.Helper()
	return e.releaseLeftovers(ns, chartRelease)
}

// releaseLeftovers lists every object of the release still in the
// cluster: those carrying its instance label, and Helm's release records.
func (e *env) releaseLeftovers(ns, release string) []string {
	e.t.Helper()
	instance := metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=" + release}
	var left []string
	add := func(kind string, list runtime.Object, err error) {
		if err != nil {
			e.t.Fatalf("listing %s: %v", kind, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, item := range items {
			if m, err := meta.Accessor(item); err == nil {
				left = append(left, kind+"/"+m.GetNamespace()+"/"+m.GetName())
			}
		}
	}
	for _, space := range []string{ns, "kube-system"} {
		sa, err := e.client.CoreV1().ServiceAccounts(space).List(e.ctx, instance)
		add("ServiceAccount", sa, err)
		cm, err := e.client.CoreV1().ConfigMaps(space).List(e.ctx, instance)
		add("ConfigMap", cm, err)
		svc, err := e.client.CoreV1().Services(space).List(e.ctx, instance)
		add("Service", svc, err)
		dep, err := e.client.AppsV1().Deployments(space).List(e.ctx, instance)
		add("Deployment", dep, err)
		pdb, err := e.client.PolicyV1().PodDisruptionBudgets(space).List(e.ctx, instance)
		add("PodDisruptionBudget", pdb, err)
		role, err := e.client.RbacV1().Roles(space).List(e.ctx, instance)
		add("Role", role, err)
		rb, err := e.client.RbacV1().RoleBindings(space).List(e.ctx, instance)
		add("RoleBinding", rb, err)
		lease, err := e.client.CoordinationV1().Leases(space).List(e.ctx, instance)
		add("Lease", lease, err)
		secrets, err := e.client.CoreV1().Secrets(space).List(e.ctx, instance)
		add("Secret", secrets, err)
		rel, err := e.client.CoreV1().Secrets(space).List(e.ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=" + release})
		add("Secret", rel, err)
	}
	cr, err := e.client.RbacV1().ClusterRoles().List(e.ctx, instance)
	add("ClusterRole", cr, err)
	crb, err := e.client.RbacV1().ClusterRoleBindings().List(e.ctx, instance)
	add("ClusterRoleBinding", crb, err)
	mwc, err := e.client.AdmissionregistrationV1().MutatingWebhookConfigurations().List(e.ctx, instance)
	add("MutatingWebhookConfiguration", mwc, err)
	// The lease by name too: the scheduler, had it been able to create
	// one, would have made it without the chart's labels.
	if _, err := e.client.CoordinationV1().Leases(ns).Get(e.ctx, release, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		left = append(left, fmt.Sprintf("Lease/%s (%v)", release, err))
	}
	return left
}
