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

	"github.com/awslabs/operatorpkg/serrors"
	"github.com/go-logr/zapr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"

	kwok "sigs.k8s.io/karpenter/kwok/cloudprovider"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/overlay"
	"sigs.k8s.io/karpenter/pkg/controllers"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/logging"
	"sigs.k8s.io/karpenter/pkg/operator/options"
)

// run wires the kwok cloud provider and Karpenter's controllers as
// upstream's kwok main does, and runs them until the process is killed.
func run(kubeconfig string) error {
	ctx, op, err := newOperator(kubeconfig)
	if err != nil {
		return err
	}
	instanceTypes, err := kwok.ConstructInstanceTypes(ctx)
	if err != nil {
		// Upstream logs this and runs with no instance types, which
		// would only show later as pods nothing is created for.
		return fmt.Errorf("constructing instance types: %w", err)
	}
	undecorated := kwok.NewCloudProvider(ctx, op.GetClient(), instanceTypes)
	cloudProvider := overlay.Decorate(undecorated, op.GetClient(), op.InstanceTypeStore)
	clusterState := state.NewCluster(op.Clock, op.GetClient(), cloudProvider)
	op.WithControllers(ctx, controllers.NewControllers(
		ctx,
		op.Manager,
		op.Clock,
		op.GetClient(),
		op.EventRecorder,
		cloudProvider,
		undecorated,
		clusterState,
		op.InstanceTypeStore,
	)...)
	return op.Manager.Start(ctx)
}

// newOperator is Karpenter's operator.NewOperator less what a test on a
// shared machine must not have: the metrics and health probe servers
// (upstream binds them to every interface, and the test reads neither)
// and leader election (one replica). Everything else, the options from
// flags and environment, the logger, the client's rate limits and the
// field indexers the controllers query, is as upstream sets it up.
func newOperator(kubeconfig string) (context.Context, *operator.Operator, error) {
	ctx := injection.WithOptionsOrDie(context.Background(), options.Injectables...)

	logger := serrors.NewLogger(zapr.NewLogger(logging.NewLogger(ctx, "controller")))
	log.SetLogger(logger)
	klog.SetLogger(logger)

	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	config.QPS = float32(options.FromContext(ctx).KubeClientQPS)
	config.Burst = options.FromContext(ctx).KubeClientBurst
	config.UserAgent = operator.AppName + "/" + operator.Version
	kubernetesInterface, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, nil, err
	}

	mgr, err := ctrl.NewManager(config, ctrl.Options{
		Logger:                 logging.IgnoreDebugEvents(logger),
		LeaderElection:         false,
		Metrics:                server.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// As upstream: of the Leases, only the nodes' are watched.
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&coordinationv1.Lease{}: {Field: fields.SelectorFromSet(fields.Set{"metadata.namespace": "kube-node-lease"})},
		}},
		BaseContext: func() context.Context {
			ctx := log.IntoContext(context.Background(), logger)
			return injection.WithOptionsOrDie(ctx, options.Injectables...)
		},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("setting up the manager: %w", err)
	}
	if err := setupIndexers(ctx, mgr); err != nil {
		return nil, nil, err
	}
	return ctx, &operator.Operator{
		Manager:             mgr,
		KubernetesInterface: kubernetesInterface,
		EventRecorder:       events.NewRecorder(mgr.GetEventRecorderFor(operator.AppName)), //nolint:staticcheck // as upstream, until events.Recorder moves on
		Clock:               clock.RealClock{},
		InstanceTypeStore:   nodeoverlay.NewInstanceTypeStore(),
	}, nil
}

// setupIndexers registers the field indexes Karpenter's controllers list
// by, as upstream's operator does.
func setupIndexers(ctx context.Context, mgr ctrl.Manager) error {
	type index struct {
		obj     client.Object
		field   string
		extract client.IndexerFunc
	}
	indexes := []index{
		{&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }},
		{&corev1.Node{}, "spec.providerID", func(o client.Object) []string { return []string{o.(*corev1.Node).Spec.ProviderID} }},
		{&storagev1.VolumeAttachment{}, "spec.nodeName", func(o client.Object) []string {
			return []string{o.(*storagev1.VolumeAttachment).Spec.NodeName}
		}},
		{&v1.NodeClaim{}, "status.providerID", func(o client.Object) []string { return []string{o.(*v1.NodeClaim).Status.ProviderID} }},
		{&v1.NodeClaim{}, "spec.nodeClassRef.group", func(o client.Object) []string {
			return []string{o.(*v1.NodeClaim).Spec.NodeClassRef.Group}
		}},
		{&v1.NodeClaim{}, "spec.nodeClassRef.kind", func(o client.Object) []string {
			return []string{o.(*v1.NodeClaim).Spec.NodeClassRef.Kind}
		}},
		{&v1.NodeClaim{}, "spec.nodeClassRef.name", func(o client.Object) []string {
			return []string{o.(*v1.NodeClaim).Spec.NodeClassRef.Name}
		}},
		{&v1.NodePool{}, "spec.template.spec.nodeClassRef.group", func(o client.Object) []string {
			return []string{o.(*v1.NodePool).Spec.Template.Spec.NodeClassRef.Group}
		}},
		{&v1.NodePool{}, "spec.template.spec.nodeClassRef.kind", func(o client.Object) []string {
			return []string{o.(*v1.NodePool).Spec.Template.Spec.NodeClassRef.Kind}
		}},
		{&v1.NodePool{}, "spec.template.spec.nodeClassRef.name", func(o client.Object) []string {
			return []string{o.(*v1.NodePool).Spec.Template.Spec.NodeClassRef.Name}
		}},
	}
	for _, ix := range indexes {
		err := mgr.GetFieldIndexer().IndexField(ctx, ix.obj, ix.field, ix.extract)
		switch {
		case err == nil:
		case meta.IsNoMatchError(err):
			// As upstream: a missing CRD leaves the controllers that
			// need it without their index, and the others running.
			log.FromContext(ctx).Error(err, "no index", "field", ix.field)
		default:
			return fmt.Errorf("indexing %T by %s: %w", ix.obj, ix.field, err)
		}
	}
	return nil
}
