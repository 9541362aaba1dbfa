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
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/imagefacts"
	"github.com/windows-aware/windows-aware/pkg/imageinspect"
	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/ungate"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// ungateOptions configure the controller that removes the publish gate.
// It runs only when the profile gates pods (imageResolution on, with a
// gateTimeout), and then needs the API: a kubeconfig, or the pod's own
// ServiceAccount. It is meant to run alone (--webhook=false), under an
// identity that may patch pods, apart from the webhook's, which may not.
type ungateOptions struct {
	enabled        bool
	metricsAddress string
	kubeconfig     string
	timeout        time.Duration
	workers        int
	sweep          time.Duration
	leaseNamespace string
	leaseName      string
}

func (u *ungateOptions) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&u.enabled, "ungate", false,
		"when the profile's imageResolution gates pods, resolve their images and remove the gate "+wellknown.GatePlatform+" (on the replica that holds the Lease); "+
			"with --webhook=false, under an identity apart from the webhook's")
	fs.StringVar(&u.metricsAddress, "metrics-bind-address", "127.0.0.1:9444",
		"with --webhook=false: the address of /healthz and /metrics over plain HTTP (loopback by default; empty for none)")
	fs.StringVar(&u.kubeconfig, "kubeconfig", "", "kubeconfig of the API server, for removing gates and for --tls-secret (default: the in-cluster ServiceAccount)")
	fs.DurationVar(&u.timeout, "ungate-timeout", 0, "the longest a gated pod waits for its registry before onFailure applies (default: the profile's imageResolution.gateTimeout)")
	fs.IntVar(&u.workers, "ungate-workers", ungate.DefaultWorkers, "gated pods worked on at once")
	fs.DurationVar(&u.sweep, "ungate-sweep-period", ungate.DefaultSweep,
		"how often every pod is listed, a page at a time, for pods that carry the gate without the label "+wellknown.LabelGated+" (besides once when the Lease is taken)")
	fs.StringVar(&u.leaseNamespace, "leader-elect-resource-namespace", "", "namespace of the Lease held by the replica that removes gates (default: $POD_NAMESPACE, else kube-system)")
	fs.StringVar(&u.leaseName, "leader-elect-resource-name", "windows-aware-publish-ungate", "name of that Lease")
}

// gates reports whether the profile's webhook gates pods.
func gates(args *config.WindowsAwareArgs) bool {
	return imageinspect.Enabled(&args.ImageResolution) && args.ImageResolution.GateTimeout.Duration > 0
}

// start runs the controller in the background when the profile gates
// pods, and returns a function that waits for it to stop (and release its
// Lease) after ctx ends.
func (u *ungateOptions) start(ctx context.Context, logger klog.Logger, profile schedprofile.Profile) (wait func(), err error) {
	nothing := func() {}
	if !u.enabled || !gates(profile.Args) {
		return nothing, nil
	}
	cfg, err := u.restConfig()
	if err != nil {
		return nil, fmt.Errorf("removing publish gates needs the API server (--kubeconfig, or in a cluster its ServiceAccount; --ungate=false turns it off): %w", err)
	}
	cfg.UserAgent = "windows-aware-admission"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	// Pull secrets are read on a client of their own, whose rate limit
	// the gate removals do not share.
	secretClient, err := imagefacts.PullSecretClient(cfg, client)
	if err != nil {
		return nil, err
	}
	publisher, err := publish.NewResolving(ctx, profile.Name, profile.Args, imagefacts.SecretGetterOf(secretClient))
	if err != nil {
		return nil, err
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		return nil, err
	}
	recorder := broadcaster.NewRecorder(scheme.Scheme, "windows-aware-publish")
	lease := ungate.Lease{Namespace: u.leaseNamespace, Name: u.leaseName, Identity: identity()}
	if lease.Namespace == "" {
		lease.Namespace = os.Getenv("POD_NAMESPACE")
	}
	if lease.Namespace == "" {
		lease.Namespace = "kube-system"
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := ungate.RunLeading(ctx, client, lease, func(ctx context.Context) {
			c := ungate.New(client, publisher, recorder, ungate.Options{Timeout: u.timeout, Workers: u.workers, Sweep: u.sweep})
			if err := c.Run(ctx); err != nil {
				logger.Error(err, "Removing publish gates")
			}
		})
		if err != nil {
			logger.Error(err, "Standing for the Lease that removes publish gates", "lease", klog.KRef(lease.Namespace, lease.Name))
		}
	}()
	return func() {
		<-done
		broadcaster.Shutdown()
	}, nil
}

func (u *ungateOptions) restConfig() (*rest.Config, error) {
	if u.kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", u.kubeconfig)
	}
	return rest.InClusterConfig()
}

// identity names this replica in the Lease: its host (the pod's name in
// a cluster) and a unique suffix, so that a restarted replica is a new
// holder.
func identity() string {
	host, err := os.Hostname()
	if err != nil {
		host = "admission"
	}
	return host + "_" + string(uuid.NewUUID())
}
