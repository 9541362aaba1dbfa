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
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/oracle"
	"github.com/windows-aware/windows-aware/internal/registryserver"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsawarepreemption"
)

// strandedWait is how long a preemptor that nothing requeues is watched
// for: past the queue's longest backoff (10 s), well short of the
// unschedulable pool's 5-minute flush that would free it.
const strandedWait = 15 * time.Second

// TestPreemptorHeldWhileItsVictimsGo reproduces, on purpose and every
// time, the race that left a PreemptionBasic preemptor unbound: the
// victims' deletion events reach the scheduler while its asynchronous
// preemption is still running, so DefaultPreemption's PreEnqueue holds
// the preemptor in the unschedulable pool; the preemption's own calls then
// find the victims gone (NotFound counts as success) and nothing requeues
// the pod before the pool's 5-minute flush (kubernetes/kubernetes issue
// 141694).
//
// A proxy in front of the API server, through which the scheduler alone
// talks, holds the preemption's first call (the first victim's status
// patch) while the test deletes both victims, and lets it go once the
// scheduler's queue reports the preemptor gated. With upstream's
// DefaultPreemption the preemptor stays pending; with
// WindowsAwarePreemption in its place, as the shipped profile has it, it
// is bound to the freed node. When a Kubernetes patch release carries
// upstream's fix, the DefaultPreemption row fails, and
// WindowsAwarePreemption can go.
func TestPreemptorHeldWhileItsVictimsGo(t *testing.T) {
	for _, tt := range []struct {
		preemption string
		wantBound  bool
	}{
		{preemption: windowsawarepreemption.Name, wantBound: true},
		{preemption: "DefaultPreemption", wantBound: false},
	} {
		t.Run(tt.preemption, func(t *testing.T) {
			e := requireCluster(t)
			ns := e.namespace()
			profile := "stranded-" + strings.ToLower(tt.preemption)
			node := profile + "-win-2019"
			const taint = "windows-aware.test/stranded"
			// Two cores: the preemptor needs both victims gone, so
			// the preemption runs its parallel phase, the one
			// before the last victim is recorded.
			e.createNodes(fixture.Node(node, fixture.NodeOptions{
				OS: oracle.Windows, Build: oracle.Build2019, CPU: "2",
				Taints: []v1.Taint{{Key: taint, Effect: v1.TaintEffectNoSchedule}},
			}))
			low, high := e.priorityClass(profile+"-low", 100), e.priorityClass(profile+"-high", 1000)
			pod := func(name, class, cpu string) *v1.Pod {
				p := newPod(name, profile, "mcr.microsoft.com/windows/servercore:ltsc2019")
				p.Spec.PriorityClassName = class
				p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}
				p.Spec.Tolerations = []v1.Toleration{{Key: taint, Operator: v1.TolerationOpExists}}
				p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
				return p
			}
			victims := []string{"victim-0", "victim-1"}
			for _, name := range victims {
				v := pod(name, low, "1")
				v.Spec.NodeName = node // no kubelet runs; nothing schedules it
				e.createPod(ns, v)
			}

			hold := e.holdingProxy(func(r *http.Request) bool {
				return r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/"+ns+"/pods/victim-") &&
					strings.HasSuffix(r.URL.Path, "/status")
			})
			sched := e.runScheduler("scheduler-"+profile, t.TempDir(), hold.kubeconfig,
				windowsAwareProfile(profile, tt.preemption, map[string]any{"defaultOS": "linux"}))

			preemptor := pod("preemptor", high, "2")
			preemptor.Spec.NodeSelector = map[string]string{v1.LabelHostname: node}
			e.createPod(ns, preemptor)
			select {
			case <-hold.held:
			case <-time.After(scheduleTimeout):
				t.Fatalf("the scheduler made no preemption call in %s", scheduleTimeout)
			}
			// Another actor deletes the victims while the preemption's
			// call is held, as the first preemption had in the
			// benchmark when the second one began.
			for _, name := range victims {
				err := e.client.CoreV1().Pods(ns).Delete(e.ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
				if err != nil {
					t.Fatalf("deleting %s: %v", name, err)
				}
			}
			scrape := newScraper(t, e.c)
			gated := map[string]string{"queue": "gated"}
			deadline := time.Now().Add(scheduleTimeout)
			for {
				families, err := scrape.tryScrape(sched)
				if err == nil && gauge(families, "scheduler_pending_pods", gated) == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the scheduler's queue never held the preemptor gated in %s (last scrape: %v)", scheduleTimeout, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
			hold.release()

			if tt.wantBound {
				if got := e.waitScheduled(ns, preemptor.Name, scheduleTimeout); got.Name != node {
					t.Errorf("preemptor on %s, want %s", got.Name, node)
				}
				return
			}
			e.staysPending(ns, preemptor.Name, strandedWait)
			if n := gauge(scrape.scrape(sched), "scheduler_pending_pods", gated); n != 1 {
				t.Errorf("%v pods gated after %s, want the preemptor", n, strandedWait)
			}
		})
	}
}

// apiHold is a plain-HTTP fault proxy on loopback in front of the API
// server that authenticates as the scheduler and holds the requests it
// was told to until release.
type apiHold struct {
	// kubeconfig points a client at the proxy.
	kubeconfig string
	// held is closed when the first request is held.
	held    chan struct{}
	release func()
}

// holdingProxy starts an apiHold that holds the requests hold matches.
// It is closed when the test ends, after what started later (a scheduler
// using it) has stopped.
func (e *env) holdingProxy(hold func(*http.Request) bool) *apiHold {
	e.t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", e.c.SchedulerKubeconfig)
	if err != nil {
		e.t.Fatal(err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	proxy, err := registryserver.NewFaultProxy(cfg.Host, transport, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	h := &apiHold{held: make(chan struct{})}
	released := make(chan struct{})
	var heldOnce, releaseOnce sync.Once
	h.release = func() { releaseOnce.Do(func() { close(released) }) }
	proxy.Set(registryserver.Fault{Hold: released, Match: func(r *http.Request) bool {
		if !hold(r) {
			return false
		}
		heldOnce.Do(func() { close(h.held) })
		return true
	}})
	e.t.Cleanup(func() {
		h.release()
		_ = proxy.Close()
	})

	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: "http://" + proxy.Host}
	kc.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	kc.CurrentContext = "proxy"
	h.kubeconfig = filepath.Join(e.t.TempDir(), "proxy.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, h.kubeconfig); err != nil {
		e.t.Fatal(err)
	}
	return h
}
