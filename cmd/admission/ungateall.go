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
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/ungate"
	"github.com/windows-aware/windows-aware/pkg/wellknown"
)

// ungateAllOptions are the flags of admission ungate-all.
type ungateAllOptions struct {
	kubeconfig string
	// webhookConfiguration, when set, is deleted first, so that no pod is
	// gated after the pods are listed.
	webhookConfiguration string
	// settle is how long to wait after that deletion: each API server
	// drops the webhook from its own watch of the configurations, shortly
	// after, and until then may still call it.
	settle   time.Duration
	pageSize int64
	timeout  time.Duration
}

// newUngateAllCommand is what uninstalling publish mode runs (the chart's
// pre-delete hook): with the gate remover about to go, every pod still
// gated would stay unschedulable for ever.
func newUngateAllCommand() *cobra.Command {
	o := &ungateAllOptions{}
	cmd := &cobra.Command{
		Use:   "ungate-all [--webhook-configuration NAME] [--kubeconfig FILE]",
		Short: "Remove the publish gate from every pod that carries it (for uninstalling publish mode)",
		Long: `Removes the scheduling gate ` + wellknown.GatePlatform + ` and the label
` + wellknown.LabelGated + ` from every pod of the cluster that carries them, and
changes nothing else: other gates stay, and the constraints the gate waited
for are not written. Each pod is then placed by the scheduler its
schedulerName names. Uninstalling publish mode runs it (the chart's
pre-delete hook), since without the gate remover a gated pod is never
scheduled.

With --webhook-configuration, that MutatingWebhookConfiguration is deleted
first and the command waits --settle for the API servers to stop calling
the webhook, so that no pod is gated after the pods are read; give it when
the webhook is being removed too.

It lists every pod, --page-size at a time, and picks those that carry the
gate or the label (a pod created with the gate, or whose label was removed,
carries the gate alone, and no selector finds a gate); it patches each with
a JSON patch that applies only to the pod as read, and reads it again on a
conflict. It needs: list and patch on pods, cluster-wide;
delete on the webhook configuration, by name. It exits non-zero, naming
them, when pods keep the gate.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			if o.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, o.timeout)
				defer cancel()
			}
			client, err := o.client()
			if err != nil {
				return err
			}
			return o.run(ctx, client, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the API server (default: the in-cluster ServiceAccount)")
	fs.StringVar(&o.webhookConfiguration, "webhook-configuration", "",
		"the publish webhook's MutatingWebhookConfiguration, deleted first so that no new pod is gated (default: none deleted)")
	fs.DurationVar(&o.settle, "settle", 5*time.Second, "after deleting the webhook configuration, how long to wait for the API servers to stop calling the webhook")
	fs.Int64Var(&o.pageSize, "page-size", ungate.DefaultPageSize, "pods read per list call")
	fs.DurationVar(&o.timeout, "timeout", 4*time.Minute, "give up after this long (0: never)")
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	fs.AddGoFlag(klogFlags.Lookup("v"))
	return cmd
}

func (o *ungateAllOptions) client() (kubernetes.Interface, error) {
	cfg, err := (&ungateOptions{kubeconfig: o.kubeconfig}).restConfig()
	if err != nil {
		return nil, fmt.Errorf("removing publish gates needs the API server (--kubeconfig, or in a cluster its ServiceAccount): %w", err)
	}
	cfg.UserAgent = "windows-aware-admission-ungate-all"
	// One patch per gated pod, once: above client-go's default of 5 a
	// second, so that thousands of gated pods fit in the timeout.
	cfg.QPS, cfg.Burst = 50, 100
	return kubernetes.NewForConfig(cfg)
}

func (o *ungateAllOptions) run(ctx context.Context, client kubernetes.Interface, out io.Writer) error {
	logger := klog.FromContext(ctx)
	if name := o.webhookConfiguration; name != "" {
		err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
		switch {
		case apierrors.IsNotFound(err):
			logger.Info("The webhook configuration is gone already", "name", name)
		case err != nil:
			return fmt.Errorf("deleting the webhook configuration %s, so that no more pods are gated: %w", name, err)
		default:
			logger.Info("Deleted the webhook configuration; waiting for the API servers to stop calling it", "name", name, "settle", o.settle)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(o.settle):
			}
		}
	}
	res, err := ungate.RemoveAll(ctx, client, o.pageSize)
	// ungated: the gate removed; unlabelled: the label alone (the gate
	// was gone); gone: deleted meanwhile; failed: still gated.
	fmt.Fprintf(out, "scheduling gate %s: ungated=%d unlabelled=%d gone=%d failed=%d\n",
		wellknown.GatePlatform, res.Ungated, res.Unlabelled, res.Gone, res.Failed)
	return err
}
