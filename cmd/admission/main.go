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

// Command admission is the publish-mode webhook of windows-aware: a
// mutating admission webhook that writes into each pod of the windows-aware
// profile, at its creation, the constraints the profile's scheduler
// enforces (package publish), so that autoscalers and other components
// that cannot run the scheduler's plugins see them. It reads the same
// KubeSchedulerConfiguration as the scheduler, so that both decide by one
// set of args.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/component-base/version"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/reviewgate"
	"github.com/windows-aware/windows-aware/pkg/schedprofile"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// options are the command's flags.
type options struct {
	config        string
	profile       string
	bindAddress   string
	port          int
	certFile      string
	keyFile       string
	selfTLS       selfManagedTLS
	shutdownDelay time.Duration
	limits        serverLimits // zero: defaultServerLimits
	reviews       reviewgate.Limits
	metricsAuth   metricsAuthOptions
	version       bool
	// webhook: serve the webhook; false runs the gate remover alone
	// (controller-only mode, under an identity of its own).
	webhook bool
	ungate  ungateOptions
	// warnings: the warnings webhook (warnings.go).
	warnings warningsOptions
	// schedulerLease: the Lease the opt-in follows (schedulerlease.go).
	schedulerLease schedulerLeaseFlag
}

func newCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "admission --config FILE (--tls-cert-file FILE --tls-private-key-file FILE | --tls-secret NS/NAME --tls-service NAME --webhook-configuration NAME | --webhook=false --ungate)",
		Short: "The publish-mode webhook: writes the windows-aware profile's constraints into pods at creation",
		Long: `The publish-mode webhook of windows-aware. At the CREATE of a pod whose
schedulerName is the windows-aware profile's, it adds what the profile's
scheduler enforces and other components cannot see: the kubernetes.io/os node
selector, the Windows builds that run the pod's images as required node
affinity, the exact build as a preferred term, tolerations of the OS taints,
and the annotation ` + wellknown.AnnotationPublished + ` recording them. It only adds, and
writes nothing into a pod whose own constraints contradict the decision. It
admits every pod: on an error the pod is admitted unchanged.

It serves /mutate (AdmissionReview v1), /opt-in (a pod of a namespace, or of
the cluster, that opts in becomes the profile's, DaemonSets' pods included,
while the scheduler renews the Lease --scheduler-lease names), /templates (a DaemonSet's,
Deployment's, StatefulSet's, ReplicaSet's, Job's or CronJob's pod template
that constrains no OS gets the kubernetes.io/os selector and the builds its
images need, at CREATE and at an UPDATE that changes the template), /healthz, /readyz and /metrics over
TLS (/metrics to a bearer token the API server authenticates and authorizes
for get on /metrics, unless --metrics-auth=none), with the certificate and key files reloaded when they change, or with
a CA and certificate it keeps itself in a Secret (--tls-secret), shared by
its replicas and renewed before they expire, whose CA it patches into its
MutatingWebhookConfiguration.

When the profile's imageResolution gates pods (the scheduling gate
` + wellknown.GatePlatform + `), a second Deployment runs it with
--webhook=false --ungate, under a ServiceAccount of its own: the replica that
holds a Lease resolves the images of the gated pods, writes what their
registries tell and removes the gate in one patch; after gateTimeout, or when
a registry fails, it removes the gate under onFailure with a Warning Event,
and when the API server refuses what it writes, it removes the gate alone.
The webhook itself then needs no right on pods.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.version {
				fmt.Fprintln(cmd.OutOrStdout(), versionString())
				return nil
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return o.run(ctx)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.config, "config", "", "the scheduler's KubeSchedulerConfiguration file, for the profile's WindowsAware args (default: the default args)")
	fs.StringVar(&o.profile, "profile", "", "the profile (schedulerName) whose pods are published (default: the one that enables WindowsAware)")
	fs.StringVar(&o.bindAddress, "bind-address", "0.0.0.0", "the address to serve on")
	fs.IntVar(&o.port, "port", 9443, "the port to serve on")
	fs.StringVar(&o.certFile, "tls-cert-file", "", "serving certificate (PEM, with its chain); reloaded when it changes")
	fs.StringVar(&o.keyFile, "tls-private-key-file", "", "serving certificate's private key (PEM); reloaded when it changes")
	o.selfTLS.addFlags(fs)
	fs.DurationVar(&o.shutdownDelay, "shutdown-delay", 5*time.Second,
		"on SIGTERM, how long to keep serving while /readyz fails, so that the Service stops sending requests first")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.BoolVar(&o.webhook, "webhook", true,
		"serve the webhook; --webhook=false --ungate runs the controller that removes publish gates alone, with no TLS and no webhook port")
	fs.IntVar(&o.reviews.MaxContainers, "max-review-containers", reviewgate.DefaultMaxContainers,
		"the most containers (init and ephemeral included, object and old object together) a review may hold to be read; past it the object is admitted unchanged, with a warning")
	fs.IntVar(&o.reviews.MaxImageBytes, "max-review-image-bytes", reviewgate.DefaultMaxImageBytes,
		"the most bytes of image strings a review may hold to be read; past it the object is admitted unchanged, with a warning")
	fs.IntVar(&o.reviews.Reviews, "max-concurrent-reviews", reviewgate.DefaultReviews,
		"reviews of at most 256 KiB read at once by this replica; a review that finds no room until shortly before the API server's timeout is admitted unchanged, with a warning")
	fs.IntVar(&o.reviews.LargeReviews, "max-concurrent-large-reviews", reviewgate.DefaultLargeReviews,
		"reviews of more than 256 KiB, or of no declared length, read at once by this replica")
	o.ungate.addFlags(fs)
	o.warnings.addFlags(fs)
	o.schedulerLease.addFlags(fs)
	o.metricsAuth.addFlags(fs)
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	fs.AddGoFlag(klogFlags.Lookup("v")) // the log verbosity; klog's other flags are of no use here
	cmd.AddCommand(newUngateAllCommand())
	return cmd
}

func (o *options) run(ctx context.Context) error {
	if !o.webhook && !o.ungate.enabled {
		return errors.New("--webhook=false runs the controller alone: give --ungate")
	}
	if o.webhook {
		if err := o.validateTLS(); err != nil {
			return err
		}
	}
	profile, err := schedprofile.Load(o.config, o.profile)
	if err != nil {
		return err
	}
	publisher, err := publish.New(profile.Name, profile.Args)
	if err != nil {
		return err
	}
	logger := klog.FromContext(ctx)
	if !o.webhook && !gates(profile.Args) {
		return fmt.Errorf("profile %q gates no pods (imageResolution off, or gateTimeout 0): there are no gates to remove", profile.Name)
	}
	if o.webhook {
		logger.Info("Starting", "version", versionString(), "profile", profile.Name, "address", fmt.Sprintf("%s:%d", o.bindAddress, o.port))
	} else {
		logger.Info("Starting the controller alone", "version", versionString(), "profile", profile.Name, "metrics", o.ungate.metricsAddress)
	}
	ungateCtx, stopUngating := context.WithCancel(ctx)
	defer stopUngating()
	waitUngating, err := o.ungate.start(ungateCtx, logger, profile)
	if err != nil {
		return err
	}
	defer func() {
		stopUngating()
		waitUngating() // the Lease is released for the next replica
	}()
	if !o.webhook {
		return serveControllerMetrics(ctx, logger, o.ungate.metricsAddress)
	}
	if err := o.schedulerLease.follow(ctx, logger, publisher, &o.ungate); err != nil {
		return err
	}
	return serve(ctx, logger, publisher, o)
}

// versionString names this project's version and the Kubernetes release it
// is built from; the build stamps both into component-base's version as
// <kubernetes>+windows-aware.<project>.
func versionString() string {
	v := version.Get()
	kube, project, ok := strings.Cut(v.GitVersion, "+windows-aware.")
	if !ok {
		return fmt.Sprintf("windows-aware admission %s (commit %s)", v.GitVersion, v.GitCommit)
	}
	return fmt.Sprintf("windows-aware admission %s (Kubernetes %s, commit %s)", project, kube, v.GitCommit)
}

func main() {
	if err := newCommand().Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
