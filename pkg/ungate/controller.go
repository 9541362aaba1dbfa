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

package ungate

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// Defaults of Options.
const (
	DefaultWorkers = 8
	// DefaultResync is how often every watched pod is looked at again,
	// so that one whose updates kept failing (and was dropped from the
	// queue) is tried again.
	DefaultResync = 5 * time.Minute
	// maxRetries bounds the failed attempts at one pod before it waits
	// for the next resync.
	maxRetries = 10
)

// Options configure a Controller.
type Options struct {
	// Timeout is the longest a pod waits for its registry, from its
	// creation: then onFailure applies. Default: the profile's
	// gateTimeout.
	Timeout time.Duration
	// Workers are the pods worked on at once; each may wait for a
	// registry up to Timeout. Default 8.
	Workers int
	// Resync is the informer's resync period. Default 5m.
	Resync time.Duration
	// Sweep is how often every pod is listed for gated pods without the
	// label (sweep.go), besides once at the start. Default 5m.
	Sweep time.Duration
	// PageSize is the pods a sweep reads per list call. Default 500.
	PageSize int64
	// Clock is the real clock when nil.
	Clock clock.PassiveClock
}

// Controller removes the publish gate from pods, writing what their
// registries told.
type Controller struct {
	client    kubernetes.Interface
	publisher *publish.Publisher
	recorder  events.EventRecorder
	opts      Options

	factory  informers.SharedInformerFactory
	informer cache.SharedIndexInformer
	lister   corelisters.PodLister
	queue    workqueue.TypedRateLimitingInterface[string]
	// fair orders queue's pods (fairqueue.go).
	fair *fairQueue
	// listed are the gated pods without the label, which the informer
	// does not hold, as the last sweep found them.
	listed listed
}

// New builds a controller that watches, through client, the pods labelled
// wellknown.LabelGated=true in every namespace, and lists every pod each
// Sweep for those that carry the gate without the label; it decides with
// publisher (one of publish.NewResolving) and records Events with
// recorder.
func New(client kubernetes.Interface, publisher *publish.Publisher, recorder events.EventRecorder, opts Options) *Controller {
	if opts.Timeout <= 0 {
		opts.Timeout = publisher.GateTimeout()
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Resync <= 0 {
		opts.Resync = DefaultResync
	}
	if opts.Sweep <= 0 {
		opts.Sweep = DefaultSweep
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	selector := labels.Set{wellknown.LabelGated: "true"}.AsSelector().String()
	factory := informers.NewSharedInformerFactoryWithOptions(client, opts.Resync,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	pods := factory.Core().V1().Pods()
	c := &Controller{
		client:    client,
		publisher: publisher,
		recorder:  recorder,
		opts:      opts,
		factory:   factory,
		informer:  pods.Informer(),
		lister:    pods.Lister(),
	}
	// The workqueue's own rate limiting and delays, over a queue fair by
	// namespace; a namespace's share is half the workers.
	c.fair = newFairQueue(c.due, opts.Clock.Now, opts.Workers/2)
	const name = "windows_aware_ungate"
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, time.Minute),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name, DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(
			workqueue.TypedDelayingQueueConfig[string]{Name: name, Queue: workqueue.NewTypedWithConfig(
				workqueue.TypedQueueConfig[string]{Name: name, Queue: c.fair})})})
	return c
}

// Run watches the gated pods and removes their gates until ctx ends. A
// pod gated while the controller was not running is found by the
// informer's list when it starts, or, without the label, by the sweep that
// starts with the workers and runs every Sweep.
func (c *Controller) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	defer c.queue.ShutDown()
	reg, err := c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			GatedPods.Inc()
			c.enqueue(obj)
		},
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		DeleteFunc: func(any) {
			// Deleted, or its label removed: either way no longer gated
			// by us, and nothing to do.
			GatedPods.Dec()
		},
	})
	if err != nil {
		return fmt.Errorf("watching gated pods: %w", err)
	}
	defer func() { _ = c.informer.RemoveEventHandler(reg) }()
	c.factory.Start(ctx.Done())
	defer c.factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return ctx.Err()
	}
	logger.Info("Removing publish gates", "timeout", c.opts.Timeout, "workers", c.opts.Workers, "onFailure", c.publisher.OnFailure(), "sweep", c.opts.Sweep)
	done := make(chan struct{})
	for range c.opts.Workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for c.next(ctx) {
			}
		}()
	}
	go func() {
		defer func() { done <- struct{}{} }()
		// Sliding: the period runs from the end of a sweep, so that a
		// slow list of a big cluster never overlaps the next.
		wait.UntilWithContext(ctx, c.sweep, c.opts.Sweep)
	}()
	<-ctx.Done()
	c.queue.ShutDown()
	for range c.opts.Workers + 1 {
		<-done
	}
	GatedPods.Set(0)
	return nil
}

func (c *Controller) enqueue(obj any) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// next works on one pod; false once the queue is shut down.
func (c *Controller) next(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	defer c.fair.finished(key)
	err := c.sync(ctx, key)
	switch {
	case err == nil || ctx.Err() != nil:
		c.queue.Forget(key)
	case c.queue.NumRequeues(key) < maxRetries:
		klog.FromContext(ctx).V(2).Info("Retrying a gated pod", "pod", key, "err", err)
		c.queue.AddRateLimited(key)
	default:
		utilruntime.HandleErrorWithContext(ctx, err, "Giving up on a gated pod until the next resync", "pod", key)
		c.queue.Forget(key)
	}
	return true
}

// sync resolves one pod's images and removes its gate.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := c.lister.Pods(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Not labelled: gated without the label, as a sweep found it,
		// or deleted (or its label removed) meanwhile, which the next
		// sweep tells apart.
		if pod = c.listed.get(key); pod == nil {
			return nil
		}
		err = nil
	}
	if err != nil {
		return err
	}
	if pod.Labels[wellknown.LabelGated] != "true" && !publish.Gated(pod) {
		return nil // done; the watch's selector drops it
	}
	var resolveErr error
	if publish.Gated(pod) {
		wait, cancel := context.WithDeadline(ctx, c.deadline(pod))
		resolveErr = c.publisher.Resolve(wait, pod)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err() // stopping: the next leader takes the pod up
		}
	}
	return c.ungate(ctx, pod, resolveErr)
}

// due is when the pod of key stops waiting for its registry (deadline);
// false when the pod is gone.
func (c *Controller) due(key string) (time.Time, bool) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return time.Time{}, false
	}
	pod, err := c.lister.Pods(namespace).Get(name)
	if err != nil {
		if pod = c.listed.get(key); pod == nil {
			return time.Time{}, false
		}
	}
	return c.deadline(pod), true
}

// deadline is when the pod stops waiting for its registry: Timeout after
// its creation. The pod's age alone decides, never when this controller
// started: a replica that takes the Lease over, or a controller that
// restarts (however often), ungates a pod gated longer than Timeout at
// once, with what the resolver knows already and no wait: a worker is
// held by a wait only until the pod's own deadline, which fairQueue's
// promise rests on.
func (c *Controller) deadline(pod *v1.Pod) time.Time {
	return pod.CreationTimestamp.Add(c.opts.Timeout)
}
