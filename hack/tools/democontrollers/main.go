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

// Command demo-controllers runs the few of kube-controller-manager's
// controllers that make demo's cluster needs, upstream's own code from
// k8s.io/kubernetes at the version hack/tools/go.mod pins: Deployments,
// ReplicaSets, each namespace's default ServiceAccount, namespace
// deletion and garbage collection. kube-controller-manager links some
// forty controllers besides (volumes, node IPAM, endpoints, jobs,
// certificates ...), whose 369 packages beyond kube-apiserver's take
// minutes to compile on 2 cores the first time; these take 74. The
// integration tests run kube-controller-manager itself.
//
// It serves GET /healthz on --healthz-address once its informers have
// synced, and talks to the API server with --kubeconfig's identity: the
// demo's admin, on loopback.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
	"k8s.io/kubernetes/pkg/controller/namespace"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/controller/serviceaccount"
)

// resync is kube-controller-manager's default informer resync period
// (its --min-resync-period, 12h, is the floor of a random period; one
// fixed value serves a demo).
const resync = 12 * time.Hour

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server to control")
	healthz := flag.String("healthz-address", "127.0.0.1:0", "address to serve GET /healthz on")
	klog.InitFlags(nil)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *healthz); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "demo-controllers:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, healthzAddress string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	config.QPS, config.Burst = 100, 200
	config.UserAgent = "demo-controllers"
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	metadataClient, err := metadata.NewForConfig(config)
	if err != nil {
		return err
	}
	logger := klog.FromContext(ctx)

	typed := informers.NewSharedInformerFactory(client, resync)
	meta := metadatainformer.NewSharedInformerFactory(metadataClient, resync)
	informersStarted := make(chan struct{})
	restMapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	go wait.UntilWithContext(ctx, func(context.Context) { restMapper.Reset() }, 30*time.Second)

	deployments, err := deployment.NewDeploymentController(ctx,
		typed.Apps().V1().Deployments(), typed.Apps().V1().ReplicaSets(), typed.Core().V1().Pods(), client)
	if err != nil {
		return fmt.Errorf("deployment controller: %w", err)
	}
	replicaSets := replicaset.NewReplicaSetController(ctx,
		typed.Apps().V1().ReplicaSets(), typed.Core().V1().Pods(), client, replicaset.BurstReplicas)
	serviceAccounts, err := serviceaccount.NewServiceAccountsController(logger,
		typed.Core().V1().ServiceAccounts(), typed.Core().V1().Namespaces(), client,
		serviceaccount.DefaultServiceAccountsControllerOptions())
	if err != nil {
		return fmt.Errorf("service account controller: %w", err)
	}
	namespaces := namespace.NewNamespaceController(ctx, client, metadataClient,
		client.Discovery().ServerPreferredNamespacedResources, typed.Core().V1().Namespaces(),
		5*time.Minute, v1.FinalizerKubernetes)
	// Events are not garbage collected, as kube-controller-manager's
	// default --gc-ignored-resources says.
	ignored := map[schema.GroupResource]struct{}{
		{Group: "", Resource: "events"}:              {},
		{Group: "events.k8s.io", Resource: "events"}: {},
	}
	gc, err := garbagecollector.NewGarbageCollector(ctx, client, metadataClient, restMapper, ignored,
		informerfactory.NewInformerFactory(typed, meta), informersStarted)
	if err != nil {
		return fmt.Errorf("garbage collector: %w", err)
	}

	go deployments.Run(ctx, 5)
	go replicaSets.Run(ctx, 5)
	go serviceAccounts.Run(ctx, 1)
	go namespaces.Run(ctx, 10)
	go gc.Run(ctx, 20, 30*time.Second)
	go gc.Sync(ctx, client.Discovery(), 30*time.Second)

	typed.Start(ctx.Done())
	meta.Start(ctx.Done())
	close(informersStarted)

	var synced atomic.Bool
	listener, err := net.Listen("tcp", healthzAddress)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "demo-controllers: serving /healthz on http://%s\n", listener.Addr())
	server := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" || !synced.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	})}
	go func() {
		<-ctx.Done()
		_ = server.Close()
	}()
	go func() {
		typed.WaitForCacheSync(ctx.Done())
		meta.WaitForCacheSync(ctx.Done())
		synced.Store(true)
	}()
	if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	typed.Shutdown()
	meta.Shutdown()
	return ctx.Err()
}
