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

package kubectlcmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"

	"github.com/windows-aware/windows-aware/pkg/safetext"
)

// NewCommand is kubectl windows-aware: explain, status and upgrade-plan,
// with kubectl's flags for choosing the cluster and namespace.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:         "windows-aware",
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl windows-aware"},
		Short:       "Where the windows-aware scheduler places pods, and why",
		Long: `kubectl windows-aware tells what the windows-aware scheduler profile decides
about pods: the OS and Windows builds their images need, which of the cluster's
pools run them, and for the others why not and what to change.

  explain   a pod template's decision: files, or live objects of the cluster
  status    gated pods, recent refusals, and the cluster's pools by OS and build
  upgrade-plan  which workloads a Windows Server upgrade breaks, and what blocks draining

It reads the cluster as kubectl does: $KUBECONFIG or ~/.kube/config, --context,
-n, or the pod's own service account when run in the cluster.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetIn(streams.In)
	// The reports print what tenants and registries wrote: the streams
	// escape any control byte a report let through (pkg/safetext).
	cmd.SetOut(safetext.NewWriter(streams.Out))
	cmd.SetErr(safetext.NewWriter(streams.ErrOut))
	flags.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(newExplainCommand(flags), newStatusCommand(flags), newUpgradePlanCommand(flags))
	return cmd
}

// Connect reads the cluster and namespace kubectl's flags choose.
func Connect(flags *genericclioptions.ConfigFlags) (*rest.Config, string, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, "", fmt.Errorf("the cluster: %w", err)
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("the namespace: %w", err)
	}
	return cfg, ns, nil
}

// newExplainCommand is kubectl windows-aware explain.
func newExplainCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &ExplainOptions{}
	var local bool
	cmd := &cobra.Command{
		Use:   "explain [-f FILE]... [KIND/NAME... | --all-pods] [--resolve]",
		Short: "Tell what the windows-aware profile decides about pods, and which pools run them",
		Long: `Tell what the windows-aware profile decides about pod templates: for every Pod
and every pod template of a Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
CronJob, ReplicationController or PodTemplate, the OS and Windows builds it needs
and where each came from; the conflict the scheduler would reject it with; the
cluster's node pools, how many of their nodes run it and, for the others, why
not (OS, Windows build, the pod's own selector, a taint); and a fix when there
is one. Resources, pod affinity and ports are not looked at.

Live objects are read from the namespace kubectl would use (-n, or the
context's). Manifests are read from files, directories or standard input (-f -),
such as the output of helm template; --local judges them without a cluster.

The args that decide are those of the scheduler's configuration: --config FILE,
--config-map NAMESPACE/NAME, else the Helm chart's ConfigMap in the namespace
--scheduler-namespace names (kube-system), else the default args. Images are
decided by their tags unless --resolve asks their registries, as the
scheduler's imageResolution does (same allowlist and limits; this machine's
Docker config for credentials). A configuration read from the cluster does not
choose where this machine connects: its registries' endpoints, insecure and
allowPrivate are left out unless --trust-cluster-endpoints says otherwise.

Exit status: 0 when every template runs somewhere, 2 when one has a conflict or
no node of the cluster runs it (for CI), 1 when the input cannot be read.`,
		Example: `  kubectl windows-aware explain pod/iis-7d9c
  kubectl windows-aware explain --context prod -n web deployment/iis
  kubectl windows-aware explain -n web --all-pods -o yaml
  helm template my-chart | kubectl windows-aware explain -f -
  kubectl windows-aware explain --local -f manifests/ --config scheduler-config.yaml
  kubectl windows-aware explain --resolve deployment/app`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Refs = args
			if !local {
				o.Connect = func() (*rest.Config, string, error) { return Connect(flags) }
			}
			if code := o.Run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return &ExitCodeError{Code: code}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&o.Files, "filename", "f", nil, "manifest file or directory to read; - for standard input (repeatable)")
	fs.BoolVar(&local, "local", false, "judge the files alone, without a cluster")
	o.SchedulerOptions.AddFlags(fs)
	fs.BoolVar(&o.AllPods, "all-pods", false, "explain every pod of the namespace")
	fs.StringVarP(&o.Output, "output", "o", OutputText, "output format: text, json or yaml")
	return cmd
}
