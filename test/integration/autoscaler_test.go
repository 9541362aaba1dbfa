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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/windows-aware/windows-aware/internal/controlplane"
	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localproc"
)

// Karpenter's kwok cloud provider, as hack/build-tools.sh builds it: the
// binary and the directory of its CRDs, beside kwok in the tools
// directory.
const (
	karpenterBinary  = "karpenter-kwok"
	karpenterCRDsDir = "karpenter-crds"
)

var (
	nodeClaimsResource = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}
	nodePoolsResource  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
)

const (
	// nodePoolLabel names the NodePool of a node Karpenter launched.
	nodePoolLabel = "karpenter.sh/nodepool"
	// ltsc2022Image is a Windows Server 2022 image: it needs build 10.0.20348
	// (or a 2025 host, 10.0.26100, under containerd's rule).
	ltsc2022Image = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	// linuxNodesWithRoom is how many Linux nodes the test registers before
	// Karpenter starts; each has room for the test's pods.
	linuxNodesWithRoom = 2
)

// TestKarpenterScalesWindowsPools runs a real autoscaler, Karpenter's kwok
// provider, against the windows-aware scheduler: Linux nodes with room,
// Windows NodePools for 2019 and 2022 at zero, and a selector-less
// ltsc2022 pod of the windows-aware profile.
//
//   - Publish mode off (the pod as its author wrote it): our scheduler
//     rejects the Linux nodes, but Karpenter, which knows only the pod's
//     selectors, affinity and tolerations, judges that the pod fits on a
//     Linux node ("Pod should schedule on: node/…") and launches nothing.
//     The pod stays Pending for good, and carries the scheduler's
//     AutoscalerBlind event.
//   - Publish mode on (the pod created through bin/admission, registered
//     with the API server by the shipped webhook configuration): the pod
//     is stored with the OS selector, the builds that run its image, the
//     exact build preferred and the OS tolerations; Karpenter launches
//     exactly one node, from the 2022 pool, and the pod binds to it.
//
// The cases share one cluster and run in this order: once the 2022 node
// exists, the first case's pod would be placed on it.
func TestKarpenterScalesWindowsPools(t *testing.T) {
	k := startKarpenterCluster(t)

	t.Run("publish mode off: Karpenter nominates a Linux node and launches nothing", func(t *testing.T) {
		e := k.env.withT(t)
		ns := e.plainNamespace("autoscaler-publish-off")
		nodesBefore := k.nodeNames(t)

		created := time.Now()
		pod := e.createPod(ns, requestingPod("nanoserver", ltsc2022Image))
		msg := e.failedScheduling(ns, pod.Name, scheduleTimeout)
		if !strings.Contains(msg, "didn't match Pod's OS") {
			t.Fatalf("FailedScheduling = %q, want the Linux nodes rejected for the pod's OS", msg)
		}
		nominated := k.waitNominated(t, ns, pod.Name, time.Minute)
		if !strings.Contains(nominated, "node/linux-") {
			t.Fatalf("Karpenter nominated %q, want one of the Linux nodes", nominated)
		}
		t.Logf("Karpenter, %s after the pod's creation: %s", time.Since(created).Round(100*time.Millisecond), nominated)
		// Karpenter's decision is made: a few batching windows later
		// it has still launched nothing, and the pod is still pending.
		e.staysPending(ns, pod.Name, 5*time.Second)
		if claims := k.nodeClaims(t); len(claims) != 0 {
			t.Fatalf("Karpenter created NodeClaims %v, want none: it believes the pod fits on a Linux node", claimSummary(claims))
		}
		if nodes := k.nodeNames(t); !slices.Equal(nodes, nodesBefore) {
			t.Fatalf("nodes = %v, want the same as before the pod: %v", nodes, nodesBefore)
		}
		if msg := e.lastEvent(ns, pod.Name, "FailedScheduling"); !strings.Contains(msg, "didn't match Pod's OS") {
			t.Fatalf("last FailedScheduling = %q, want the Linux nodes still rejected for the pod's OS", msg)
		}
		// The scheduler said so on the pod, with the fix.
		if msg := e.lastEvent(ns, pod.Name, "AutoscalerBlind"); !strings.Contains(msg, "publish mode") {
			t.Fatalf("AutoscalerBlind event = %q, want one that names publish mode", msg)
		}
		k.karpenterAlive(t)
		e.deletePods(ns)
	})

	t.Run("publish mode on: one 2022 node is launched and the pod binds to it", func(t *testing.T) {
		e := k.env.withT(t)
		ns := e.plainNamespace("autoscaler-publish-on")
		nodesBefore := k.nodeNames(t)

		e.startPublishWebhook(ns, webhookOptions{})
		created := time.Now()
		pod := e.createPod(ns, requestingPod("nanoserver", ltsc2022Image))
		if got := requiredBuilds(pod); pod.Spec.NodeSelector[v1.LabelOSStable] != "windows" || !slices.Equal(got, []string{"10.0.20348", "10.0.25398", "10.0.26100"}) {
			t.Fatalf("the pod was stored with nodeSelector %v and required builds %v, want os windows and [10.0.20348 10.0.25398 10.0.26100]", pod.Spec.NodeSelector, got)
		}
		node := e.waitScheduled(ns, pod.Name, 2*time.Minute)
		t.Logf("pod bound to %s, launched by Karpenter, %s after its creation", node.Name, time.Since(created).Round(100*time.Millisecond))
		if osOf(node) != "windows" || buildOf(node) != "10.0.20348" || node.Labels[nodePoolLabel] != "windows-2022" {
			t.Fatalf("pod bound to %s (os %q, build %q, NodePool %q), want a node Karpenter launched from windows-2022 with build 10.0.20348",
				node.Name, osOf(node), buildOf(node), node.Labels[nodePoolLabel])
		}
		// A few batching windows later nothing else was launched.
		time.Sleep(3 * time.Second)
		claims := k.nodeClaims(t)
		if len(claims) != 1 || claims[0].GetLabels()[nodePoolLabel] != "windows-2022" {
			t.Fatalf("NodeClaims = %v, want exactly one, of windows-2022", claimSummary(claims))
		}
		nodes := k.nodeNames(t)
		added := slices.DeleteFunc(slices.Clone(nodes), func(n string) bool { return slices.Contains(nodesBefore, n) })
		if !slices.Equal(added, []string{node.Name}) {
			t.Fatalf("nodes added = %v, want only %s (no Linux node)", added, node.Name)
		}
		k.karpenterAlive(t)
	})
}

// requestingPod is a windows-aware pod that requests some CPU and memory,
// as Karpenter sizes nodes by requests.
func requestingPod(name, image string) *v1.Pod {
	p := newPod(name, windowsAware, image)
	p.Spec.Containers[0].Resources.Requests = v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("500m"),
		v1.ResourceMemory: resource.MustParse("256Mi"),
	}
	return p
}

// karpenterCluster is a control plane of the test's own with kwok, one
// scheduler with the shipped configuration, Karpenter's CRDs and
// configuration (testdata/karpenter), Linux nodes with room, and
// Karpenter's kwok provider running.
type karpenterCluster struct {
	env       *env
	dynamic   dynamic.Interface
	karpenter *localproc.Process
}

// startKarpenterCluster starts the cluster of TestKarpenterScalesWindowsPools.
// Without the Karpenter binary it skips the test, unless in CI.
func startKarpenterCluster(t *testing.T) *karpenterCluster {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	binary, crds := findKarpenter(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	testdata := filepath.Join(root, "test", "integration", "testdata", "karpenter")

	start := time.Now()
	e := ownClusterWith(t, controlplane.Options{Schedulers: 1, Kwok: true})
	k := &karpenterCluster{env: e}
	if k.dynamic, err = dynamic.NewForConfig(e.c.Config); err != nil {
		t.Fatal(err)
	}
	crdFiles, err := filepath.Glob(filepath.Join(crds, "*.yaml"))
	if err != nil || len(crdFiles) == 0 {
		t.Fatalf("no CRDs in %s (%v); run `make tools`", crds, err)
	}
	applyManifests(t, e, crdFiles...)
	applyManifests(t, e, filepath.Join(testdata, "nodepools.yaml"))
	for i := range linuxNodesWithRoom {
		e.createNodes(fixture.Node(fmt.Sprintf("linux-%d", i+1), fixture.NodeOptions{OS: "linux", CPU: "4", Memory: "16Gi", Kwok: true}))
	}

	k.karpenter, err = e.c.Run(e.ctx, "karpenter", binary, []string{
		"--kubeconfig=" + e.c.Kubeconfig,
		"--instance-types-file-path=" + filepath.Join(testdata, "instance-types.json"),
		// Decide within a second of a pod's arrival, not ten.
		"--batch-idle-duration=300ms",
		"--batch-max-duration=2s",
		"--log-level=debug",
	}, "")
	if err != nil {
		t.Fatalf("starting Karpenter: %v", err)
	}
	k.waitNodePoolsReady(t, time.Minute)
	t.Logf("Karpenter ready, its NodePools too, %s after start; logs in %s", time.Since(start).Round(100*time.Millisecond), e.c.LogDir)
	return k
}

// findKarpenter returns the Karpenter binary and CRD directory that
// hack/build-tools.sh puts beside kwok. When they are missing it skips the
// test, or fails it in CI.
func findKarpenter(t *testing.T) (binary, crds string) {
	t.Helper()
	bins, err := controlplane.FindBinaries("", "", controlplane.Kwok)
	if err == nil {
		dir := filepath.Dir(bins.Kwok)
		binary, crds = filepath.Join(dir, karpenterBinary), filepath.Join(dir, karpenterCRDsDir)
		if _, err = os.Stat(binary); err == nil {
			_, err = os.Stat(crds)
		}
	}
	if err == nil {
		return binary, crds
	}
	msg := fmt.Sprintf("the autoscaler test needs Karpenter's kwok provider beside kwok (run `make tools`): %v", err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (outside CI it is skipped; in CI, with CI=true, this is a failure)")
	return "", ""
}

// waitNodePoolsReady waits until Karpenter has validated every NodePool and
// found its node class ready: until then it provisions for none.
func (k *karpenterCluster) waitNodePoolsReady(t *testing.T, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		k.karpenterAlive(t)
		list, err := k.dynamic.Resource(nodePoolsResource).List(k.env.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing NodePools: %v", err)
		}
		var notReady []string
		for _, np := range list.Items {
			if !conditionTrue(&np, "Ready") {
				notReady = append(notReady, np.GetName())
			}
		}
		if len(list.Items) > 0 && len(notReady) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("NodePools %v not Ready after %s; Karpenter's log %s:\n%s", notReady, timeout, k.karpenter.LogFile, k.karpenter.Tail(4000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitNominated waits for Karpenter's Nominated event on the pod ("Pod
// should schedule on: node/…"), which it posts when it judges that the pod
// fits on an existing node, and returns its message.
func (k *karpenterCluster) waitNominated(t *testing.T, ns, pod string, timeout time.Duration) string {
	t.Helper()
	e := k.env.withT(t)
	deadline := time.Now().Add(timeout)
	for {
		if msg := e.lastEvent(ns, pod, "Nominated"); msg != "" {
			return msg
		}
		k.karpenterAlive(t)
		if time.Now().After(deadline) {
			t.Fatalf("Karpenter nominated no node for %s/%s after %s; events: %s; NodeClaims: %v; Karpenter's log %s:\n%s",
				ns, pod, timeout, e.describeEvents(ns, pod), claimSummary(k.nodeClaims(t)), k.karpenter.LogFile, k.karpenter.Tail(4000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (k *karpenterCluster) nodeClaims(t *testing.T) []unstructured.Unstructured {
	t.Helper()
	list, err := k.dynamic.Resource(nodeClaimsResource).List(k.env.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing NodeClaims: %v", err)
	}
	return list.Items
}

// nodeNames lists the cluster's nodes, sorted.
func (k *karpenterCluster) nodeNames(t *testing.T) []string {
	t.Helper()
	list, err := k.env.client.CoreV1().Nodes().List(k.env.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing nodes: %v", err)
	}
	var names []string
	for _, n := range list.Items {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}

// karpenterAlive fails the test, with the end of its log, if Karpenter
// exited.
func (k *karpenterCluster) karpenterAlive(t *testing.T) {
	t.Helper()
	if k.karpenter.Exited() {
		t.Fatalf("Karpenter exited; log %s:\n%s", k.karpenter.LogFile, k.karpenter.Tail(4000))
	}
}

// claimSummary names each NodeClaim with its NodePool, for messages.
func claimSummary(claims []unstructured.Unstructured) []string {
	var out []string
	for _, c := range claims {
		out = append(out, c.GetName()+" ("+c.GetLabels()[nodePoolLabel]+")")
	}
	return out
}

// conditionTrue reports whether the object's status has condition typ with
// status True.
func conditionTrue(obj *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

// withT is e for a subtest: the same cluster and context, failures
// reported to t.
func (e *env) withT(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}
