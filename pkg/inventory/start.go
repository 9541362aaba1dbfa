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

package inventory

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// rediscoverPeriod is how often Start looks again for Karpenter's
// NodePools where they were not served: Karpenter may be installed after
// the webhook.
const rediscoverPeriod = 5 * time.Minute

// Start fills inv from informers on nodes (projected) and, where the API
// server serves karpenter.sh/v1 NodePools, on them, until ctx ends. It
// does not wait for them to list: Snapshot says when they have.
func (inv *Inventory) Start(ctx context.Context, client kubernetes.Interface, dyn dynamic.Interface, logger klog.Logger) error {
	nodes := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().Nodes().List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.CoreV1().Nodes().Watch(ctx, o)
		},
	}, &v1.Node{}, 0, cache.Indexers{})
	if err := nodes.SetTransform(Project); err != nil {
		return err
	}
	if _, err := nodes.AddEventHandler(inv.NodeHandler()); err != nil {
		return err
	}
	inv.mu.Lock()
	inv.synced = append(inv.synced, nodes.HasSynced)
	inv.mu.Unlock()
	go nodes.RunWithContext(ctx)
	if dyn != nil {
		go inv.watchNodePools(ctx, client.Discovery(), dyn, logger)
	}
	return nil
}

// watchNodePools starts the NodePool informer once the API server serves
// NodePools, looking again every rediscoverPeriod until it does.
func (inv *Inventory) watchNodePools(ctx context.Context, disc discovery.DiscoveryInterface, dyn dynamic.Interface, logger klog.Logger) {
	for {
		served, err := servesNodePools(disc)
		if err != nil {
			logger.V(2).Info("Cannot tell whether Karpenter's NodePools are served; looking again later", "err", err)
		}
		if served {
			if err := inv.startNodePools(ctx, dyn); err != nil {
				logger.Error(err, "Watching Karpenter's NodePools")
				return
			}
			logger.Info("Counting Karpenter's NodePools as nodes the cluster can get", "resource", NodePoolResource.String())
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(rediscoverPeriod):
		}
	}
}

// servesNodePools reports whether the API server serves karpenter.sh/v1
// nodepools.
func servesNodePools(disc discovery.DiscoveryInterface) (bool, error) {
	list, err := disc.ServerResourcesForGroupVersion(NodePoolResource.GroupVersion().String())
	if err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == NodePoolResource.Resource }), nil
}

func (inv *Inventory) startNodePools(ctx context.Context, dyn dynamic.Interface) error {
	res := dyn.Resource(NodePoolResource)
	pools := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return res.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return res.Watch(ctx, o)
		},
	}, &unstructured.Unstructured{}, 0, cache.Indexers{})
	if err := pools.SetTransform(ProjectNodePool); err != nil {
		return err
	}
	if _, err := pools.AddEventHandler(inv.NodePoolHandler()); err != nil {
		return fmt.Errorf("NodePools: %w", err)
	}
	inv.mu.Lock()
	inv.synced = append(inv.synced, pools.HasSynced)
	inv.mu.Unlock()
	inv.dirty.Store(true)
	go pools.RunWithContext(ctx)
	return nil
}
